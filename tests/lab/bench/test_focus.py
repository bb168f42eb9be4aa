"""`bench focus`'s report: what a second visit found, as the reader of focus_<web>.md sees it."""

from __future__ import annotations

from lab.bench.focus import markdown


def _report(visit: dict[str, object]) -> dict[str, object]:
    return {
        "web": "w",
        "manifest_pages": 10,
        "seed": "http://www.lab.test/sport/",
        "concurrency": 16,
        "commit": "abc",
        "params": {},
        "strategies": {},
        "revisit": {"football": visit},
    }


def test_a_second_visit_reports_new_items_and_those_the_first_visit_left() -> None:
    text = markdown(
        _report(
            {
                "changed": 20,
                "on_topic_changed": 4,
                "budget": 200,
                "per_fetch": {"default, warm": 0.015, "bfs": 0.0},
                "unseen_per_fetch": {"default, warm": 0.0625, "bfs": 0.005},
            }
        )
    )
    line = next(x for x in text.splitlines() if x.startswith("**Second visit, football**"))
    new, _, unseen = line.partition("; ")
    assert "default, warm 0.0150" in new and "bfs 0.0000" in new
    assert unseen.startswith("on-topic items the first visit did not fetch")
    assert "default, warm 0.0625" in unseen and "bfs 0.0050" in unseen


def test_a_report_saved_before_the_second_count_still_reads() -> None:
    text = markdown(
        _report({"changed": 20, "on_topic_changed": 4, "budget": 200, "per_fetch": {"bfs": 0.01}})
    )
    line = next(x for x in text.splitlines() if x.startswith("**Second visit, football**"))
    assert line.endswith("bfs 0.0100")
