"""`timelypush` command line. Each sub-module registers one group of commands."""

from __future__ import annotations

import typer

from app.cli import bench, core, crawl, lab, push

cli = typer.Typer(
    name="timelypush",
    help="Timely Push (及时推): focused crawling and push notifications.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
for module in (core, crawl, push, lab, bench):
    module.register(cli)


def main() -> None:
    cli()
