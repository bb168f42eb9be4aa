"""`timelypush bench revisit`: the revisit policies compared at an equal fetch budget."""

from __future__ import annotations


def test_bench_revisit_equal_budget_and_default_beats_uniform() -> None:
    import json

    from typer.testing import CliRunner

    from app.cli import cli

    result = CliRunner().invoke(
        cli, ["bench", "revisit", "--sources", "200", "--seed", "3", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    policies = report["policies"]
    assert set(policies) >= {"uniform", "seed-levels", "seed-levels-clamped", "nutch", "default"}
    keys = {
        "mean_delay_h",
        "median_delay_h",
        "p95_delay_h",
        "miss_rate",
        "freshness",
        "fetches_per_detection",
        "fetches",
    }
    for row in policies.values():
        assert keys <= set(row)
    fetches = [row["fetches"] for row in policies.values()]
    assert max(fetches) <= 1.02 * min(fetches)
    assert policies["default"]["mean_delay_h"] < policies["uniform"]["mean_delay_h"]
    assert report["bound_mean_delay_h"] <= policies["default"]["mean_delay_h"]
