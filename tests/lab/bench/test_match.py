"""`timelypush bench match` with repeated crawls: the run with the median model F1 is reported."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lab.bench.match import _median_run, markdown


def run(f1: float, after: float) -> dict[str, Any]:
    scores = {"precision": f1, "recall": f1, "f1": f1, "pushed": 10, "hubs_pushed": 0}
    return {
        "topic": "football",
        "items": 100,
        "on_topic_items": 20,
        "judgment_cpu_ms_per_page": 1.0,
        "model": scores,
        "kp": scores,
        "anywhere": scores,
        "after_feedback": {**scores, "f1": after},
    }


def test_the_median_run_is_reported_with_every_runs_f1() -> None:
    chosen = _median_run([run(0.7, 0.9), run(0.5, 0.6), run(0.9, 0.8)])
    assert chosen["model"]["f1"] == 0.7 and chosen["after_feedback"]["f1"] == 0.9
    assert chosen["repeats"] == {"model": [0.7, 0.5, 0.9], "after_feedback": [0.9, 0.6, 0.8]}
    # an even count reports the lower middle, a real run rather than an average of two
    assert _median_run([run(0.8, 0.1), run(0.6, 0.2)])["model"]["f1"] == 0.6
    table = markdown({"webs": [{"web": "w/en11", "lang": "en", "runs": [chosen]}]})
    assert "| en11 (en) | football | 20 / 100 | model | 0.700 | 0.700 | **0.700** | 0 " in table
    assert "| 0.700, 0.500, 0.900 |" in table
    assert "| 0.900, 0.600, 0.800 |" in table


def test_each_sensitivity_setting_gets_a_row_of_what_it_pushed() -> None:
    chosen = run(0.7, 0.9)
    chosen["sensitivity"] = {
        "precise": {"pushed": 8, "precision": 0.9, "recall": 0.4, "threshold": 0.8},
        "balanced": {"pushed": 12, "precision": 0.75, "recall": 0.5, "threshold": 0.65},
        "broad": {"pushed": 30, "precision": 0.5, "recall": 0.8, "threshold": 0.4},
    }
    table = markdown({"webs": [{"web": "w/web11", "lang": "zh", "runs": [chosen, run(0.6, 0.6)]}]})
    assert "| web | topic | precise (0.8) | balanced (0.65) | broad (0.4) |" in table
    assert (
        "| web11 (zh) | football | 8 (0.90 / 0.40) | 12 (0.75 / 0.50) | 30 (0.50 / 0.80) |" in table
    )
    # a run without the replay (an older report) adds no row
    rows = [line for line in table.splitlines() if line.startswith("| web11 (zh) | football | ")]
    assert len([line for line in rows if "/ 100 |" not in line]) == 1


def test_a_judgment_parameter_given_to_bench_match_judges_every_row_with_it(
    small_web: Path, tmp_path: Path
) -> None:
    import json
    import pickle

    from typer.testing import CliRunner

    from app.cli import cli
    from crawler.judgment import SENSITIVITY
    from lab.bench.match import _judge_all, _prf
    from lab.bench.replay import _on_topic
    from lab.truth import Truth

    kept, out = tmp_path / "kept", tmp_path / "out"
    options = ["--web", str(small_web), "--pages", "60", "--keep", str(kept), "--out", str(out)]
    result = CliRunner().invoke(cli, ["bench", "match", *options, "--param", "expand=0"])
    assert result.exit_code == 0, result.output
    report = json.loads((out / "match.json").read_text(encoding="utf-8"))
    assert report["params"] == {"expand": 0.0}
    assert (out / "match.md").read_text(encoding="utf-8").startswith("Judged with expand = 0 ")
    truth = Truth.load(small_web)
    for run in report["webs"][0]["runs"]:
        data = pickle.loads((kept / f"{small_web.name}.{run['topic']}.0.crawl.pickle").read_bytes())
        pages, keywords = data["pages"], data["keywords"]
        relevant = _on_topic(pages, truth, run["topic"])
        # each sensitivity row: the kept pages judged with the parameter at that threshold
        for setting, threshold in SENSITIVITY.items():
            params = {"expand": 0.0, "threshold": threshold}
            pushed, _ = _judge_all(pages, keywords, params=params)
            row = run["sensitivity"][setting]
            assert {k: row[k] for k in ("precision", "recall", "f1", "pushed")} == _prf(
                pushed, relevant
            )


def test_a_judgment_parameter_bench_match_does_not_know_is_refused(
    small_web: Path, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from app.cli import cli

    options = ["--web", str(small_web), "--param", "expnad=0", "--out", str(tmp_path)]
    result = CliRunner().invoke(cli, ["bench", "match", *options])
    assert result.exit_code == 2 and "NAME one of" in result.output
    assert not (tmp_path / "match.json").exists()
