"""What 👎 teaches a one-keyword concern on a small web of the real corpus.

A visit from a site's sports section with the one keyword 足球 pushes other sports too; the
user marks the twenty newest pushes, most of them 👎. Judged again with those verdicts, the
visit must push fewer of the wrong pages nobody marked, not more: when the 👎 shared the
unlabelled pages' weight, every page no one marked looked likelier to be on the topic, and one
such visit pushed 62 other wrong pages instead of 44 (docs/benchmarks.md, "What a 👎 weighs")."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.lab.webs import flat_webs

SEEDS = (1, 4)


@pytest.fixture(scope="module")
def webs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Small Chinese webs of the real corpus (``tests.lab.webs.flat_webs``)."""
    return flat_webs(tmp_path_factory, SEEDS)


def test_thumbs_down_leave_fewer_wrong_pushes_among_the_pages_nobody_marked(
    webs: list[Path],
) -> None:
    from lab.bench.match import _crawl, _judge_all, feedback_clicks
    from lab.judge import TOPIC_KEYWORDS
    from lab.process import lab_server
    from lab.truth import Truth

    keywords = TOPIC_KEYWORDS["zh"]["football"]
    checked = []
    for web in webs:
        truth = Truth.load(web)
        seed = json.loads((web / "manifest.json").read_text(encoding="utf-8"))["seeds"]["sports"]
        with lab_server(web) as proxy:  # one fetch at a time: the same pages every run
            pages, _, _ = asyncio.run(_crawl(proxy, seed, keywords, 250, concurrency=1))
        items = {p.final_url for p in pages if truth.is_item(p.final_url)}
        wrong = {u for u in items if not truth.relevant(u, "football")}
        pushed, judge = _judge_all(pages, keywords)
        relevant = items - wrong
        clicks = feedback_clicks(pages, pushed, relevant)
        downs = sum(1 for c in clicks if not c.label)
        marked = {p.final_url for p in pages if p.title in {c.title for c in clicks}}
        after, _ = _judge_all(pages, keywords, state=judge.state(), feedback=clicks)
        before_wrong = len((pushed & wrong) - marked)
        after_wrong = len((after & wrong) - marked)
        checked.append((web.name, downs, before_wrong, after_wrong))
        if downs >= 15:  # the user said most of what was pushed is wrong
            assert after_wrong < before_wrong, checked
    # the visits pushed wrong pages, and the user marked most of the newest wrong on one or more
    assert any(downs >= 15 and before for _, downs, before, _ in checked), checked
