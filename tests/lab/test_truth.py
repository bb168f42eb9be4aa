"""Scoring a crawl against the lab's ground truth: harvest curve, recall, reachability."""

from __future__ import annotations

import json
from pathlib import Path

from lab.truth import Score, Truth


def test_reachable_pages_follow_links_and_skip_dead_ones(small_web: Path) -> None:
    truth = Truth.load(small_web)
    seeds = json.loads((small_web / "manifest.json").read_text())["seeds"]
    reachable = truth.reachable([seeds["home"]])
    assert seeds["sports"] in reachable
    assert reachable <= set(truth.records)
    football = truth.relevant_reachable([seeds["sports"]], "football")
    assert football and all(truth.records[u]["football"] for u in football)


def test_score_counts_harvest_every_step_and_recall(small_web: Path) -> None:
    truth = Truth.load(small_web)
    sports = [u for u, r in truth.records.items() if r["category"] == "sports"][:3]
    other = [u for u, r in truth.records.items() if r["category"] not in ("sports", "")][:1]
    score = Score(truth, "sports", target=6, step=2)
    for url in [*sports[:1], *other, *sports[1:3]]:
        score.add(url, ok=True, matched=url in sports)
    score.add("http://www.lab-sina.test/missing.html", ok=False, matched=False)
    score.add(sports[0], ok=True, matched=True)  # a page seen twice counts once
    assert (score.fetched, score.relevant, score.errors) == (4, 3, 1)
    assert score.curve == [(2, 0.5), (4, 0.75)]
    assert score.recall == 0.5
    assert score.to_dict()["crawler_precision"] == 1.0
