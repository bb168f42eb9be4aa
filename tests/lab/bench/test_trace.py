"""`timelypush bench trace`: one crawl of the default strategy, each link's priority part by
part against the truth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lab.bench.trace import PARTS, auc


def _trace(web: Path, out: Path, *extra: str) -> tuple[list[dict], dict, str]:
    from app.cli import cli

    args = ["bench", "trace", "--web", str(web), "--pages", "60", "--out", str(out), *extra]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (out / "trace.jsonl").read_text("utf-8").splitlines()]
    report = json.loads((out / "trace.json").read_text("utf-8"))
    return rows, report, result.output


def test_each_fetch_is_traced_with_its_links_priority_and_the_truth(
    small_web: Path, tmp_path: Path
) -> None:
    rows, report, output = _trace(small_web, tmp_path)
    assert 40 <= len(rows) <= 60
    assert [r["n"] for r in rows] == list(range(1, len(rows) + 1))
    # every fetch but the seed came through a ranked link: its priority's parts are kept
    ranked = [r for r in rows[1:] if "value" in r]
    assert len(ranked) == len(rows) - 1
    assert all(r["value"] >= 0.0 and 0.0 <= r["K"] <= 1.0 for r in ranked)
    summary = report["summary"]
    assert summary["on_topic_items"] == sum(r["on_topic"] for r in rows) > 0
    assert sum(summary["per_100"]) == summary["on_topic_items"]
    table = summary["auc"]
    assert table["all"]["links"] == table["fetched"]["links"] + table["left"]["links"]
    assert all(table["all"][p] is None or 0.0 <= table["all"][p] <= 1.0 for p in PARTS), table
    assert "On-topic items fetched" in output and "| all |" in output
    assert (tmp_path / "trace.md").read_text("utf-8").startswith("# Trace:")


def test_with_truth_probabilities_each_item_counts_as_the_truth_says(
    small_web: Path, tmp_path: Path
) -> None:
    rows, report, _ = _trace(small_web, tmp_path, "--truth-probabilities", "--topic", "football")
    assert report["truth_probabilities"] and report["topic"] == "football"
    items = [r for r in rows if r["kind"] == "item"]
    assert items
    assert all(r["probability"] == float(r["on_topic"]) for r in items), items
    # the probability the crawl counted for a fetched item then ranks them perfectly
    if 0 < sum(r["on_topic"] for r in items) < len(items):
        assert report["summary"]["probability_auc"] == 1.0


def test_an_unknown_topic_is_refused(small_web: Path, tmp_path: Path) -> None:
    from app.cli import cli

    args = ["bench", "trace", "--web", str(small_web), "--topic", "golf", "--out", str(tmp_path)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code != 0
    assert "sports or football" in result.output


def test_a_parameter_of_the_strategy_or_the_judgment_is_taken_and_recorded(
    small_web: Path, tmp_path: Path
) -> None:
    # with a hub worth nothing, a link is worth K · E_item alone, whose parts the trace keeps:
    # E_item = max(A, 0.3 A + 0.35 P + 0.35 S) (crawler.steering, one seed host: no nudge)
    rows, report, _ = _trace(small_web, tmp_path, "--param", "hub=0", "--param", "seed_item=0")
    assert report["params"] == {"hub": 0.0, "seed_item": 0.0}

    def item_only(r: dict) -> float:
        return r["K"] * max(r["A"], 0.3 * r["A"] + 0.35 * r["P"] + 0.35 * r["S"])

    ranked = [r for r in rows[1:] if "value" in r and r["A"] >= 0]
    assert ranked and all(abs(r["value"] - item_only(r)) < 2e-3 for r in ranked), ranked[:3]
    # the defaults add a hub's worth to the links that may be hubs
    plain, _, _ = _trace(small_web, tmp_path / "plain")
    assert any(r["value"] > item_only(r) + 0.01 for r in plain[1:] if "value" in r)


@pytest.mark.parametrize("bad", ["nope=1", "hub=high"])
def test_an_unknown_or_non_numeric_parameter_is_refused_before_crawling(
    small_web: Path, tmp_path: Path, bad: str
) -> None:
    from app.cli import cli

    for command in ("trace", "focus"):
        out = tmp_path / command
        args = ["bench", command, "--web", str(small_web), "--out", str(out), "--param", bad]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2, result.output
        assert bad in result.output and "--param" in result.output
        assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize(
    ("on", "off", "expected"),
    [([2.0, 3.0], [1.0], 1.0), ([1.0], [2.0, 3.0], 0.0), ([1.0, 2.0], [1.0, 0.0], 0.875)],
)
def test_the_auc_counts_pairs_and_half_ties(on: list, off: list, expected: float) -> None:
    assert auc(on, off) == expected


def test_the_auc_needs_both_kinds() -> None:
    assert auc([], [1.0]) is None
    assert auc([1.0], []) is None


def test_one_fetch_at_a_time_traces_the_same_crawl_twice(small_web: Path, tmp_path: Path) -> None:
    # sixteen at a time the order of the fetches depends on which comes back first; one at
    # a time each fetch is chosen with everything before it counted, and the crawl repeats
    first, report, output = _trace(small_web, tmp_path / "a", "--concurrency", "1")
    again, _, _ = _trace(small_web, tmp_path / "b", "--concurrency", "1")
    assert report["concurrency"] == 1 and "1 at a time" in output
    assert [r["url"] for r in first] == [r["url"] for r in again]
    assert first == again
