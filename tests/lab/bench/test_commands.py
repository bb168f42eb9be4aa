"""docs/benchmarks.md stays true: every `timelypush bench` command it names exists."""

from __future__ import annotations

import re

from app.core.config import ROOT


def test_every_documented_bench_command_exists() -> None:
    from typer.testing import CliRunner

    from app.cli import cli

    docs = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    named = sorted(set(re.findall(r"timelypush bench ([a-z]+)", docs)))
    assert {"digest", "focus", "ranking", "throughput", "webhook"} <= set(named)
    runner = CliRunner()
    for name in named:
        result = runner.invoke(cli, ["bench", name, "--help"])
        assert result.exit_code == 0, f"`timelypush bench {name}` is documented but missing"
