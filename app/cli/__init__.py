"""`timelypush` command line. Each sub-module registers one group of commands.

`timelypush lab …` and `timelypush bench …` come from the development package `lab` of a
source checkout (:func:`add_development_commands`); the installed wheel has no `lab`.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import typer
from typer.core import TyperGroup

from app.cli import core, crawl, push

DEVELOPMENT_COMMANDS = ("lab", "bench")
"""The groups `lab.cli` registers: the lab webs and the benchmarks."""


class FullHelpGroup(TyperGroup):
    """A command group whose list of commands wraps each summary instead of cutting it."""

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=1000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


cli = typer.Typer(
    name="timelypush",
    help="Timely Push (及时推): focused crawling and push notifications.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # click's plain help wraps at the terminal's width and never cuts an option name short;
    # piped (no terminal) it is 100 columns wide instead of click's 80
    rich_markup_mode=None,
    cls=FullHelpGroup,
    context_settings={
        "max_content_width": 100,
        "terminal_width": None if sys.stdout.isatty() else 100,
    },
)


def add_development_commands(cli: typer.Typer) -> None:
    """Register `lab` and `bench` from the development package, or say they need a checkout.

    The package is loaded by name so that nothing in `app` imports `lab` (the import contract
    "lab is development only"). Without it, each command only prints an ``error:`` line.
    """
    try:
        development = importlib.import_module("lab.cli")
    except ModuleNotFoundError as exc:
        if exc.name not in ("lab", "lab.cli"):
            raise  # `lab` is there but something it needs is not: a real error
        for name in DEVELOPMENT_COMMANDS:
            _add_unavailable(cli, name)
        return
    development.register(cli)


def _add_unavailable(cli: typer.Typer, name: str) -> None:
    @cli.command(
        name,
        hidden=True,
        add_help_option=False,
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    )
    def unavailable() -> None:
        typer.echo(
            f"error: `timelypush {name}` needs a source checkout of Timely Push (`uv sync`): "
            "the development package `lab` is not installed",
            err=True,
        )
        raise typer.Exit(2)


for module in (core, crawl, push):
    module.register(cli)
add_development_commands(cli)


def _full_help(app: typer.Typer) -> None:
    for group in app.registered_groups:
        if group.typer_instance is not None:
            group.typer_instance.info.cls = FullHelpGroup
            _full_help(group.typer_instance)


_full_help(cli)


def main() -> None:
    cli()
