"""`timelypush` command line. Each sub-module registers one group of commands."""

from __future__ import annotations

import sys
from typing import Any

import typer
from typer.core import TyperGroup

from app.cli import bench, core, crawl, lab, push


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
for module in (core, crawl, push, lab, bench):
    module.register(cli)


def _full_help(app: typer.Typer) -> None:
    for group in app.registered_groups:
        if group.typer_instance is not None:
            group.typer_instance.info.cls = FullHelpGroup
            _full_help(group.typer_instance)


_full_help(cli)


def main() -> None:
    cli()
