"""`timelypush bench replay`: crawls kept by `bench match --keep` are judged again as
`bench match` judges them, without crawling."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from crawler.judgment import JUDGE_DEFAULTS, SENSITIVITY


@pytest.fixture(scope="module")
def replayed(small_web: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """One small web's kept crawls (60 fetches, both topics, each with a second visit of 20
    fetches once 5 % of the articles changed), judged again with revisits of 10 pages, as
    visits of 20 and with their second visits: (kept folder, output folder, the replay's
    printed output)."""
    from app.cli import cli

    runner = CliRunner()
    tmp = tmp_path_factory.mktemp("replay")
    kept, out = tmp / "kept", tmp / "out"
    web = ["--web", str(small_web), "--pages", "60", "--second", "20"]
    matched = runner.invoke(
        cli, ["bench", "match", *web, "--keep", str(kept), "--out", str(out / "match")]
    )
    assert matched.exit_code == 0, matched.output
    options = ["--workers", "1", "--revisits", "10", "--visits", "20", "--second"]
    options += ["--out", str(out / "replay")]
    result = runner.invoke(cli, ["bench", "replay", str(kept), *options])
    assert result.exit_code == 0, result.output
    return kept, out, result.output


def _replay_again(kept: Path, out: Path, *options: str) -> tuple[str, dict[str, Any]]:
    """``bench replay KEPT`` with ``options``, one worker, results in ``out``: what it printed
    and its replay.json."""
    from app.cli import cli

    args = ["bench", "replay", str(kept), "--workers", "1", *options, "--out", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return result.output, json.loads((out / "replay.json").read_text(encoding="utf-8"))


def test_a_kept_crawl_is_judged_again_as_bench_match_judged_it(
    small_web: Path, replayed: tuple[Path, Path, str]
) -> None:
    kept, out, output = replayed
    assert sorted(p.name for p in kept.iterdir()) == [
        f"{small_web.name}.football.0.crawl.pickle",
        f"{small_web.name}.sports.0.crawl.pickle",
    ]
    assert "[2/2]" in output  # progress, one line per kept crawl
    report = json.loads((out / "replay" / "replay.json").read_text(encoding="utf-8"))
    runs = {run["topic"]: run for run in report["crawls"]}
    assert set(runs) == {"sports", "football"}
    assert "after_feedback" in runs["football"] and "after_feedback" not in runs["sports"]
    # the same pages judged the same way: bench match's own replay at the default threshold
    default = next(k for k, v in SENSITIVITY.items() if v == JUDGE_DEFAULTS["threshold"])
    match = json.loads((out / "match" / "match.json").read_text(encoding="utf-8"))
    for run in match["webs"][0]["runs"]:
        assert runs[run["topic"]]["model"] == {
            k: run["sensitivity"][default][k] for k in ("precision", "recall", "f1", "pushed")
        }
    assert runs["sports"]["model"]["pushed"] > 0


def test_a_folder_without_kept_crawls_is_refused(tmp_path: Path) -> None:
    from app.cli import cli

    result = CliRunner().invoke(cli, ["bench", "replay", str(tmp_path)])
    assert result.exit_code == 2
    assert "no kept crawls" in result.output


def test_revisits_judge_a_crawls_second_half_from_the_model_of_its_first(
    small_web: Path, replayed: tuple[Path, Path, str]
) -> None:
    import pickle

    from lab.truth import Truth

    kept, out, output = replayed
    assert "revisits of 10 pages" in output
    report = json.loads((out / "replay" / "replay.json").read_text(encoding="utf-8"))
    rows = {row["topic"]: row for row in report["revisits"]}
    assert set(rows) == {"sports", "football"}
    truth = Truth.load(small_web)
    for topic, row in rows.items():
        path = kept / f"{small_web.name}.{topic}.0.crawl.pickle"
        pages = pickle.loads(path.read_bytes())["pages"]
        second = pages[len(pages) // 2 :]
        assert row["revisits"] == len(second) // 10
        judged = second[: 10 * row["revisits"]]
        on_topic = {p.final_url for p in judged if truth.relevant(p.final_url, topic, items=True)}
        assert row["relevant"] == len(on_topic)
        assert 0 <= row["correct"] <= row["relevant"]
    assert rows["sports"]["correct"] > 0  # the coarse topic's revisits push its stories


def _kept_runs(
    small_web: Path, replayed: tuple[Path, Path, str]
) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any], dict[str, Any]]]]:
    """The replay's report, and per kept crawl: its topic, its run in the report and the kept
    crawl itself."""
    import pickle

    kept, out, _ = replayed
    report = json.loads((out / "replay" / "replay.json").read_text(encoding="utf-8"))
    runs = [
        (run["topic"], run, pickle.loads((kept / f"{run['crawl']}.crawl.pickle").read_bytes()))
        for run in report["crawls"]
    ]
    return report, runs


def _counted(small_web: Path, topic: str, pages: list[Any], pushed: set[str]) -> dict[str, int]:
    """The on-topic items among ``pages`` by the web's truth, and the ``pushed`` ones right
    and wrong, counted here."""
    from lab.bench.replay import _on_topic
    from lab.truth import Truth

    relevant = _on_topic(pages, Truth.load(small_web), topic)
    return {
        "relevant": len(relevant),
        "correct": len(pushed & relevant),
        "wrong": len(pushed - relevant),
    }


def test_visits_judge_a_crawl_as_consecutive_visits_each_from_the_last_ones_state(
    small_web: Path, replayed: tuple[Path, Path, str]
) -> None:
    from lab.bench.match import _judge_all

    assert "visit of 20 pages" in replayed[2]
    report, kept_runs = _kept_runs(small_web, replayed)
    runs = {topic: run for topic, run, _ in kept_runs}
    for topic, run, data in kept_runs:
        pages, keywords = data["pages"], data["keywords"]
        assert len(run["visits"]) == len(pages) // 20 >= 2
        # the second visit is judged from the state the first one saved
        _, judge = _judge_all(pages[:20], keywords)
        state = json.loads(json.dumps(judge.state()))
        pushed, _ = _judge_all(pages[20:40], keywords, state=state)
        assert run["visits"][1] == _counted(small_web, topic, pages[20:40], pushed)
    rows = {(row["topic"], row["visit"]): row for row in report["visits"]}
    assert rows[("sports", 1)]["lang"] == "zh" and rows[("sports", 1)]["crawls"] == 1
    assert rows[("sports", 1)]["correct"] == runs["sports"]["visits"][0]["correct"]


def test_the_pages_the_visits_cover_are_also_judged_as_one_visit(
    small_web: Path, replayed: tuple[Path, Path, str]
) -> None:
    from lab.bench.match import _judge_all

    assert "as one visit: right / wrong" in replayed[2]
    report, kept_runs = _kept_runs(small_web, replayed)
    rows = {row["topic"]: row for row in report["one_visit"]}
    for topic, run, data in kept_runs:
        covered = data["pages"][: 20 * len(run["visits"])]
        pushed, _ = _judge_all(covered, data["keywords"])
        counted = _counted(small_web, topic, covered, pushed)
        assert run["one_visit"] == counted
        # the visits' counts, summed, beside it
        row = rows[topic]
        assert row["visits"]["correct"] == sum(v["correct"] for v in run["visits"])
        assert row["visits"]["relevant"] == row["one"]["relevant"] == counted["relevant"]
        assert 0.0 <= row["one"]["f1"] <= 1.0


def test_a_first_visit_may_read_more_than_the_visits_after_it(
    small_web: Path, replayed: tuple[Path, Path, str], tmp_path: Path
) -> None:
    # as a concern's first visit reads more of the site: 30 pages, then visits of 10
    import pickle

    from lab.bench.match import _judge_all

    kept, _, _ = replayed
    output, report = _replay_again(kept, tmp_path, "--visits", "10", "--first", "30")
    assert "visit of 10 pages (the first of 30)" in output
    for run in report["crawls"]:
        data = pickle.loads((kept / f"{run['crawl']}.crawl.pickle").read_bytes())
        pages, keywords, topic = data["pages"], data["keywords"], run["topic"]
        assert len(run["visits"]) == 1 + (len(pages) - 30) // 10
        first, judge = _judge_all(pages[:30], keywords)
        assert run["visits"][0] == _counted(small_web, topic, pages[:30], first)
        state = json.loads(json.dumps(judge.state()))
        second, _ = _judge_all(pages[30:40], keywords, state=state)
        assert run["visits"][1] == _counted(small_web, topic, pages[30:40], second)


def test_visit_bounds_cover_whole_visits_only() -> None:
    from lab.bench.replay import _visit_bounds

    assert _visit_bounds(65, 20) == [(0, 20), (20, 40), (40, 60)]
    assert _visit_bounds(65, 10, 30) == [(0, 30), (30, 40), (40, 50), (50, 60)]
    assert _visit_bounds(25, 10, 30) == []


def test_a_judgment_parameter_applies_to_every_judgment_of_the_replay(
    small_web: Path, replayed: tuple[Path, Path, str], tmp_path: Path
) -> None:
    import pickle

    from lab.bench.match import _judge_all, _prf
    from lab.bench.replay import _on_topic
    from lab.truth import Truth

    kept, _, _ = replayed
    params = {"threshold": 0.9, "expand": 0.0}
    options = ["--visits", "20", "--param", "threshold=0.9", "--param", "expand=0"]
    output, report = _replay_again(kept, tmp_path, *options)
    assert "Judged with threshold = 0.9, expand = 0" in output
    assert report["params"] == params
    truth = Truth.load(small_web)
    for run in report["crawls"]:
        data = pickle.loads((kept / f"{run['crawl']}.crawl.pickle").read_bytes())
        pages, keywords, topic = data["pages"], data["keywords"], run["topic"]
        # the whole crawl, and each visit from the state the one before saved, with them
        pushed, _ = _judge_all(pages, keywords, params=params)
        assert run["model"] == _prf(pushed, _on_topic(pages, truth, topic))
        _, judge = _judge_all(pages[:20], keywords, params=params)
        state = json.loads(json.dumps(judge.state()))
        second, _ = _judge_all(pages[20:40], keywords, state=state, params=params)
        assert run["visits"][1] == _counted(small_web, topic, pages[20:40], second)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("treshold=0.9", "NAME one of"),  # a misspelt key would be ignored by the model
        ("threshold", "NAME=VALUE"),
        ("threshold=high", "'high' is not a number"),
    ],
)
def test_a_judgment_parameter_the_model_does_not_know_is_refused(
    replayed: tuple[Path, Path, str], tmp_path: Path, given: str, said: str
) -> None:
    from app.cli import cli

    kept, _, _ = replayed
    options = ["--param", given, "--out", str(tmp_path)]
    result = CliRunner().invoke(cli, ["bench", "replay", str(kept), *options])
    assert result.exit_code == 2
    assert said in result.output and "threshold" in result.output
    assert not (tmp_path / "replay.json").exists()  # refused before any judging


def test_a_second_visit_of_the_changed_web_is_crawled_from_the_first_ones_state_and_counted(
    small_web: Path, replayed: tuple[Path, Path, str]
) -> None:
    """`bench match --second`: the next visit crawls the web after 5 % of its articles moved
    to new URLs, starting from the first visit's state, and its items are counted as new,
    fetched again or first fetched, with the pushes right and wrong by the changed web's
    truth; `bench replay --second` judges the kept second visit again from the replayed first
    visit's state and counts the same way."""
    from lab.bench.match import _judge_all
    from lab.bench.replay import _stored
    from lab.bench.second import GROUPS, second_counts
    from lab.truth import Truth

    _, out, output = replayed
    match = json.loads((out / "match" / "match.json").read_text(encoding="utf-8"))
    assert match["second"] == 20
    md = (out / "match" / "match.md").read_text(encoding="utf-8")
    assert "A second visit of 20 fetches" in md
    report, kept_runs = _kept_runs(small_web, replayed)
    crawled = {run["topic"]: run["second_visit"] for run in match["webs"][0]["runs"]}
    replayed_rows = {topic: counts for _, topic, counts in report["second_visits"]}
    assert set(crawled) == set(replayed_rows) == {"sports", "football"}
    for topic, run, data in kept_runs:
        later = data["second"]
        pages2 = later["pages"]
        assert 0 < len(pages2) <= 20
        truth2 = Truth.load(Path(later["web"]))
        new = set(later["new"])
        assert new and not new & set(Truth.load(small_web).records)  # new URLs
        # the crawl's own counts: its pushes, by group
        counts = second_counts(
            data["pages"], data["matched"], pages2, later["matched"], new, truth2, topic
        )
        assert crawled[topic] == counts
        items = [p for p in pages2 if truth2.records.get(p.final_url, {}).get("kind") == "article"]
        assert sum(counts[g]["fetched"] for g in GROUPS) == len({p.final_url for p in items})
        before = {p.final_url for p in data["pages"]}
        assert counts["again"]["fetched"] == len({p.final_url for p in items} & before)
        assert counts["new"]["fetched"] == len({p.final_url for p in items} & new)
        for group in GROUPS:
            row = counts[group]
            assert 0 <= row["right"] <= row["on_topic"] <= row["fetched"]
            assert 0 <= row["wrong"] <= row["fetched"] - row["on_topic"]
        # judged again: the replayed first visit's state judges the kept second visit
        pushed, judge = _judge_all(data["pages"], data["keywords"])
        again, _ = _judge_all(pages2, data["keywords"], state=_stored(judge))
        assert run["second_visit"] == second_counts(
            data["pages"], pushed, pages2, again, new, truth2, topic
        )
        assert replayed_rows[topic] == run["second_visit"]  # one kept crawl per topic
    assert "new items: fetched / on topic" in output


def test_a_second_visit_counts_a_page_pushed_once_and_sorts_items_by_when_they_appeared() -> None:
    from types import SimpleNamespace

    from lab.bench.second import second_counts
    from lab.truth import Truth

    def page(url: str) -> Any:
        return SimpleNamespace(final_url=url)

    def article(category: str) -> dict[str, object]:
        return {"kind": "article", "category": category, "football": False}

    on_topic = {"new-on", "again-on", "again-pushed", "first-on"}
    records = {u: article("sports") for u in on_topic}
    records |= {u: article("finance") for u in ("new-off", "again-off", "first-off")}
    records["hub"] = {"kind": "list", "category": "sports", "football": False}
    truth = Truth(records, {})
    first = [page(u) for u in ("again-on", "again-off", "again-pushed", "hub")]
    second = [page(u) for u in records] + [page("new-on")]  # fetched twice: one item
    pushed = {"new-on", "new-off", "again-on", "again-off", "again-pushed", "first-on", "hub"}
    counts = second_counts(
        first, {"again-pushed"}, second, pushed, {"new-on", "new-off"}, truth, "sports"
    )
    assert counts == {
        "new": {"fetched": 2, "on_topic": 1, "right": 1, "wrong": 1},
        # "again-pushed" was pushed by the first visit: not a push of this one
        "again": {"fetched": 3, "on_topic": 2, "right": 1, "wrong": 1},
        "first": {"fetched": 2, "on_topic": 1, "right": 1, "wrong": 0},
    }


def test_the_ranking_reads_the_visits_own_probabilities_as_it_went_and_after_its_end(
    small_web: Path, replayed: tuple[Path, Path, str], tmp_path: Path
) -> None:
    import pickle

    from crawler import Judge, TopicProfile
    from crawler.judgment import roc_auc
    from lab.bench.match import _judge_all
    from lab.bench.replay import _on_topic
    from lab.truth import Truth

    kept, _, _ = replayed
    output, report = _replay_again(kept, tmp_path, "--ranking", "20")
    assert "every 20 pages while it ran" in output
    truth = Truth.load(small_web)

    def auc(judge: Judge, urls: list[str], relevant: set[str]) -> float | None:
        now = [(u, judge.probability_now(u)) for u in urls]
        pos = [p for u, p in now if p is not None and u in relevant]
        neg = [p for u, p in now if p is not None and u not in relevant]
        return round(roc_auc(pos, neg), 3) if pos and neg else None

    for run in report["crawls"]:
        data = pickle.loads((kept / f"{run['crawl']}.crawl.pickle").read_bytes())
        pages, keywords = data["pages"], data["keywords"]
        relevant = _on_topic(pages, truth, run["topic"])
        urls = list(dict.fromkeys(p.final_url for p in pages))
        ranking = run["ranking"]
        assert [n for n, _ in ranking["during"]] == list(range(20, len(urls) + 1, 20))
        # each point: a fresh judge that has read the pages up to it, its probabilities now
        judge = Judge(TopicProfile.from_keywords(keywords))
        seen: list[str] = []
        points = dict(ranking["during"])
        for page in pages:
            page.tokens = None
            judge.judge(page)
            if page.final_url not in seen:
                seen.append(page.final_url)
                if len(seen) in points:
                    assert points[len(seen)] == auc(judge, seen, relevant)
        _, judge = _judge_all(pages, keywords)
        assert ranking["end"] == auc(judge, urls, relevant)
        assert ranking["end"] is not None
    rows = {row["topic"]: row for row in report["ranking"]}
    assert set(rows) == {"sports", "football"}
    for run in report["crawls"]:
        assert rows[run["topic"]]["end"] == run["ranking"]["end"]  # one crawl: its own


def test_the_ranking_summary_keeps_the_points_every_crawl_reached() -> None:
    from lab.bench.replay import ranking_markdown, ranking_summary

    def run(topic: str, during: list[list[Any]], end: float | None) -> dict[str, Any]:
        return {"web": "w", "topic": topic, "ranking": {"during": during, "end": end}}

    runs = [
        run("football", [[10, 0.5], [20, 0.7], [30, 0.9]], 0.9),
        run("football", [[10, None], [20, 0.6]], 0.8),
        run("sports", [[10, 1.0]], None),
    ]
    rows = ranking_summary(runs)
    assert rows == [
        {"web": "w", "topic": "football", "crawls": 2, "during": [[20, 0.65]], "end": 0.85},
        {"web": "w", "topic": "sports", "crawls": 1, "during": [[10, 1.0]], "end": None},
    ]
    table = ranking_markdown(rows, 10)
    assert "| w | football | 2 | – | 0.650 | 0.850 |" in table
    assert "| w | sports | 1 | 1.000 | – | – |" in table


def test_each_host_is_judged_alone_as_a_concern_on_that_site_would_judge_it(
    small_web: Path, replayed: tuple[Path, Path, str], tmp_path: Path
) -> None:
    import pickle
    from urllib.parse import urlsplit

    from lab.bench.match import _judge_all
    from lab.bench.replay import HOST_MIN_ON_TOPIC, _on_topic
    from lab.truth import Truth

    kept, _, _ = replayed
    output, report = _replay_again(kept, tmp_path, "--hosts", "10")
    assert "judged alone" in output
    truth = Truth.load(small_web)
    judged = 0
    for run in report["crawls"]:
        data = pickle.loads((kept / f"{run['crawl']}.crawl.pickle").read_bytes())
        by_host: dict[str, list] = {}
        for page in data["pages"]:
            by_host.setdefault(urlsplit(page.final_url).hostname, []).append(page)
        expected = {
            host
            for host, own in by_host.items()
            if len(own) >= 10 and len(_on_topic(own, truth, run["topic"])) >= HOST_MIN_ON_TOPIC
        }
        assert {h["host"] for h in run["hosts"]} == expected
        for row in run["hosts"]:
            own = by_host[row["host"]]
            # only that host's pages, in fetch order, from a fresh model
            pushed, _ = _judge_all(own, data["keywords"])
            relevant = _on_topic(own, truth, run["topic"])
            assert (row["pages"], row["relevant"]) == (len(own), len(relevant))
            assert row["correct"] == len(pushed & relevant)
            assert row["wrong"] == len(pushed - relevant)
            judged += 1
    assert judged >= 1
    summary = {row["topic"]: row for row in report["hosts"]}
    assert sum(row["hosts"] for row in summary.values()) == judged
