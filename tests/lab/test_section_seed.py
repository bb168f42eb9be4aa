"""A coarse concern whose seed is one section of a site whose URLs and titles name no section.

The crawl starts among the topic's pages and only a few of them print the user's words (体育,
足球, 篮球, 比赛 in a headline about a match seldom). Self-training at the end of the visit must
take the topic's other pages without taking the rest of the site with them: one round that took
every page its first fit judged relevant took most of the site, and each later round the rest
(docs/benchmarks.md, "Self-training a round at a time"). The stories show a breadcrumb (体育 >
正文), which says where each is filed; judged again without reading it, the same pages check
self-training (docs/benchmarks.md, "The section a page's breadcrumb names")."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.lab.webs import flat_webs

SEEDS = (1, 2, 3, 4, 5, 6)


@pytest.fixture(scope="module")
def webs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Small Chinese webs of the real corpus (``tests.lab.webs.flat_webs``)."""
    return flat_webs(tmp_path_factory, SEEDS)


def test_self_training_takes_the_topic_not_the_site(webs: list[Path]) -> None:
    from lab.bench.match import _crawl, _judge_all
    from lab.judge import TOPIC_KEYWORDS
    from lab.process import lab_server
    from lab.truth import Truth

    keywords = TOPIC_KEYWORDS["zh"]["sports"]
    counts = {"crawl": [0, 0], "no breadcrumbs": [0, 0]}  # right, wrong
    on_topic = off_topic = 0
    for web in webs:
        truth = Truth.load(web)
        seed = json.loads((web / "manifest.json").read_text(encoding="utf-8"))["seeds"]["sports"]
        # one visit from the sports section, one fetch at a time (the same order every run):
        # what it fetched, and what it pushed during the visit and at its end
        with lab_server(web) as proxy:
            pages, pushed, _ = asyncio.run(_crawl(proxy, seed, keywords, 250, concurrency=1))
        items = {p.final_url for p in pages if truth.is_item(p.final_url)}
        relevant = {u for u in items if truth.relevant(u, "sports")}
        # the same pages judged as on a site whose stories show no breadcrumb (体育 > 正文):
        # then nothing on a story but its words says where it is filed
        blind, _ = _judge_all(pages, keywords, params={"sections": 0})
        for name, decided in (("crawl", pushed), ("no breadcrumbs", blind)):
            counts[name][0] += len(decided & relevant)
            counts[name][1] += len((decided & items) - relevant)
        on_topic += len(relevant)
        off_topic += len(items - relevant)
    # the visits fetched the topic and as much else: pushing every item would fail the first
    # check below, pushing only what prints the words the second
    assert on_topic > 0.3 * (on_topic + off_topic) and off_topic > 0.3 * (on_topic + off_topic)
    right, wrong = counts["no breadcrumbs"]
    assert wrong <= 0.1 * off_topic, (counts, on_topic, off_topic)
    assert right >= 0.65 * on_topic, (counts, on_topic, off_topic)
    # the stories' breadcrumbs say which are sports: nearly all of them, and nothing else
    right, wrong = counts["crawl"]
    assert wrong <= 0.02 * off_topic, (counts, on_topic, off_topic)
    assert right >= 0.95 * on_topic, (counts, on_topic, off_topic)
