"""The push decision does not depend on how a site writes its titles.

The same small Chinese web three times — article titles with the section and portal names
(``…_体育_新浪网``), with the portal's name alone (``…_新浪网``), and the headline alone — every
page judged for a one-keyword topic, as a visit would (in a shuffled order, then the end of
the visit). Where the titles name no section the judgment reads it from the URL.

Each web is judged in three visit orders and compared by the mean: on a web this small the
order alone moves the one-keyword F1 of one web by ±0.15 (six orders, two versions of the
judgment: 0.57–0.96 and 0.62–0.97;
self-training's first rounds take a different set of pages; docs/benchmarks.md, "A fifth set of
crawls, how far a replay moves by itself, …"), and one order made the comparison a coin flip."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from crawler import Judge, Page, TopicProfile
from crawler.parse import parse_html
from lab.builder import TITLES, build, url_to_file

ORDERS = (1, 2, 3)
"""The shuffles each web is judged in."""


def judged_f1(truth: list[dict], pages: dict[str, Page], order: int) -> float:
    """F1 of a visit that judges ``pages`` (a web's, by URL; ``truth``: its records) in the
    shuffle ``order``."""
    records = list(truth)
    random.Random(order).shuffle(records)
    judge = Judge(TopicProfile.from_keywords(["足球"]))
    pushed = set()
    for record in records:
        if judge.judge(pages[record["url"]]).relevant:
            pushed.add(record["url"])
    pushed |= {url for url, _ in judge.finish()}
    relevant = {r["url"] for r in records if r["kind"] == "article" and r["football"]}
    return 2 * len(pushed & relevant) / (len(pushed) + len(relevant))


@pytest.fixture(scope="module")
def webs(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for titles in TITLES:
        out[titles] = tmp_path_factory.mktemp(f"web-{titles}")
        build(shared_data / "corpus", out[titles], seed=3, sites=3, articles=400, titles=titles)
    return out


# nine whole-web judgments (three title styles, three orders): about 95 s on a 2-vCPU machine
# alone, over the suite's 120 s limit once another suite shared the machine
@pytest.mark.timeout(300)
def test_the_one_keyword_topic_does_not_depend_on_how_titles_are_written(
    webs: dict[str, Path],
) -> None:
    # in the test process, after other tests' concerns: their words do not change how these
    # pages are cut (when they did, 0.66 fell to 0.51 on the section titles)
    f1 = {}
    for titles, web in webs.items():
        # each page parsed once for the three orders it is judged in
        truth = [json.loads(line) for line in (web / "truth.jsonl").read_text("utf-8").splitlines()]
        pages = {}
        for record in truth:
            host, rel = url_to_file(record["url"])
            pages[record["url"]] = parse_html(
                (web / "sites" / host / rel).read_bytes(), record["url"]
            )
        f1[titles] = sum(judged_f1(truth, pages, order) for order in ORDERS) / len(ORDERS)
    assert f1["section"] > 0.3, f1  # the decision works at all on this small web
    assert f1["site"] >= 0.8 * f1["section"], f1
    assert f1["plain"] >= 0.8 * f1["section"], f1
