"""`timelypush bench match` with repeated crawls: the run with the median model F1 is reported."""

from __future__ import annotations

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
