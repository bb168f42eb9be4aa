"""`timelypush bench …`: benchmarks that print numbers (see docs/benchmarks.md)."""

from __future__ import annotations

import typer

from app.bench import digest, focus, match, parse, ranking, revisit, throughput, webhook

bench_cli = typer.Typer(help="Benchmarks that print numbers.", no_args_is_help=True)


def register(cli: typer.Typer) -> None:
    for module in (parse, ranking, revisit, focus, match, throughput, digest, webhook):
        module.register(bench_cli)
    cli.add_typer(bench_cli, name="bench")
