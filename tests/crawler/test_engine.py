"""The crawl engine: events, limits, scope, errors, checkpoint/resume, and a real HTTP server."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import replace

import pytest

from crawler.engine import CrawlConfig, crawl
from crawler.errors import (
    FetchTimeout,
    HTTPStatusError,
    NetworkError,
    RobotsDisallowed,
)
from crawler.fetch import FetchConfig
from crawler.types import Link
from tests.crawler.focus_graphs import (
    GraphFetcher,
    fetches,
    order,
    page,
    run,
    site,
    url,
)
from tests.crawler.focus_graphs import config as graph_config
from tests.crawler.server import serve_html

TOPIC = "足球"


def tree() -> dict:
    """A 3-level tree: / → /1../3 → /1a,/1b … (13 pages), every title on topic or not."""
    pages = [page("/", "足球首页", [(f"/{i}", f"栏目{i}") for i in range(1, 4)])]
    for i in range(1, 4):
        pages.append(
            page(f"/{i}", "足球栏目" if i != 2 else "天气", [(f"/{i}{c}", "文章") for c in "abc"])
        )
        pages += [page(f"/{i}{c}", "足球文章" if c != "c" else "股市") for c in "abc"]
    return site(*pages)


async def test_one_event_per_page_with_json_keys() -> None:
    events = [e for e in await run(tree(), TOPIC, "bfs") if not e.final]
    assert len(events) == 13
    assert len({e.url for e in events}) == 13
    first = events[0].to_json()
    for key in ("url", "final_url", "status", "depth", "relevance", "priority", "matched", "title"):
        assert key in first
    json.dumps(first, ensure_ascii=False)
    assert first["title"] == "足球首页" and first["matched"] and first["depth"] == 0
    assert first["explanation"]["hits"][0]["term"] == "足球"
    assert [e.depth for e in events] == [0, 1, 1, 1] + [2] * 9
    assert not events[2].matched  # /2 天气


async def test_limits_pages_and_depth() -> None:
    assert len(fetches(await run(tree(), TOPIC, "bfs", max_pages=5))) == 5
    assert order(await run(tree(), TOPIC, "bfs", max_depth=1)) == ["/", "/1", "/2", "/3"]
    assert await run(tree(), TOPIC, "bfs", time_limit=0) == []


async def test_scope_traps_nofollow_and_errors() -> None:
    root = page("/", "足球", [("/ok", "a"), ("/missing", "b")])
    root.links += [
        Link("http://other.test/x", "c"),
        Link(url("/nf"), "d", nofollow=True),
        Link(url("/a/a/a/a"), "e"),
    ]
    graph = site(root, page("/ok", "足球"), page("/nf", "足球"), page("/a/a/a/a", "足球"))
    events = await run(graph, TOPIC, "bfs")
    assert order(events) == ["/", "/ok", "/missing"]
    missing = events[2]
    assert missing.status == 404 and "404" in (missing.error or "") and not missing.matched
    assert missing.error_kind == HTTPStatusError.kind == "http_status"
    assert events[0].error_kind is None and events[1].error_kind is None
    any_scope = order(await run(graph, TOPIC, "bfs", scope="any"))
    assert "http://other.test/x" in [url(p) if p.startswith("/") else p for p in any_scope]


def two_hosts() -> dict:
    """A sport channel's page linking six football stories on its host and six weather
    stories on another host of the same crawl."""
    other = "http://o.test"
    sport = [(f"/s{i}", f"足球新闻{i}") for i in range(6)]
    root = page("/", "足球频道", sport)
    root.links += [Link(f"{other}/w{i}", anchor=f"天气预报{i}") for i in range(6)]
    pages = [root] + [page(p, f"足球：第{i}轮") for i, (p, _) in enumerate(sport)]
    pages += [
        replace(page("/", f"天气：降温{i}"), url=f"{other}/w{i}", final_url=f"{other}/w{i}")
        for i in range(6)
    ]
    return site(*pages)


@pytest.mark.parametrize("wait", [True, False])
async def test_a_busy_host_costs_time_not_the_page_budget(wait: bool) -> None:
    # one fetch at a time per host: while the channel's host is busy, the other host is free
    fetch = FetchConfig(delay=0, allow_private=True, retries=0, concurrency=4, per_host=1)
    config = CrawlConfig(fetch=fetch, scope="any", max_pages=7, wait_for_better=wait)
    graph = two_hosts()
    events = [e async for e in crawl([url("/")], TOPIC, config, fetcher=GraphFetcher(graph))]
    hosts = [e.url.split("/")[2] for e in events if not e.final]
    assert len(hosts) == 7
    if wait:  # the seven fetches the budget allows go to the seven best pages
        assert hosts == ["t.test"] * 7
    else:  # the weather stories are fetched whenever the channel's host is busy
        assert hosts.count("o.test") >= 2


class _Failing:
    """A fetcher whose every fetch fails with the given exception."""

    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    async def fetch(self, url: str, *, etag: str | None = None, last_modified: str | None = None):
        raise self.exc


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (FetchTimeout("read timed out", url=url("/")), "timeout"),
        (NetworkError("connection refused", url=url("/")), "network"),
        (RobotsDisallowed("robots.txt forbids it", url=url("/")), "robots"),
        (RuntimeError("a fetcher bug"), "other"),
    ],
)
async def test_a_failed_fetch_carries_the_documented_kind(exc: Exception, kind: str) -> None:
    fetch = FetchConfig(delay=0, allow_private=True)
    events = [
        e async for e in crawl([url("/")], TOPIC, CrawlConfig(fetch=fetch), fetcher=_Failing(exc))
    ]
    assert len(events) == 1
    assert events[0].error_kind == kind
    assert events[0].error == f"{type(exc).__name__}: {exc}"  # the text stays as it was
    assert events[0].status == 0 and events[0].page is None


async def test_redirect_target_is_not_fetched_again() -> None:
    graph = site(
        page("/", "足球", [("/old", "a"), ("/new", "b")]),
        replace(page("/old", "足球"), final_url=url("/new")),
        page("/new", "足球"),
    )
    events = await run(graph, TOPIC, "bfs")
    assert order(events) == ["/", "/old"]
    assert events[1].final_url == url("/new")


async def test_the_end_of_the_visit_is_announced_once_before_its_decisions() -> None:
    """``on_deciding(n)`` comes after the last fetch and before the end's events, with the
    number of this visit's items not pushed yet (a caller's progress says what it waits for);
    a crawl by a seed scorer has no such end and no call."""
    for scorer, expected in (("model", True), ("kp", False)):
        log: list[object] = []
        stream = crawl(
            [url("/")],
            TOPIC,
            graph_config("bfs", scorer=scorer),
            fetcher=GraphFetcher(tree()),
            on_deciding=lambda n, log=log: log.append(("deciding", n)),
        )
        async with contextlib.aclosing(stream) as events:
            async for event in events:
                log.append("final" if event.final else "fetch")
        calls = [entry for entry in log if isinstance(entry, tuple)]
        if not expected:
            assert not calls and log.count("fetch") == 13
            continue
        assert len(calls) == 1, log
        at = log.index(calls[0])
        assert log[:at] == ["fetch"] * 13 and "fetch" not in log[at:]
        # the items the end judges again: at least each one it decides in a final event, and
        # never more than the visit's pages
        assert log.count("final") <= calls[0][1] <= 13


async def test_resume_after_a_kill_fetches_nothing_twice_and_loses_nothing() -> None:
    baseline = order(await run(tree(), TOPIC, "bfs"))
    states: list[dict] = []
    fetcher = GraphFetcher(tree())
    first = await run(tree(), TOPIC, "bfs", limit=6, on_checkpoint=states.append, fetcher=fetcher)
    assert len(first) == 6
    state = json.loads(json.dumps(states[-1]))  # what a caller would persist
    assert state["fetched"] == 6
    second = await run(tree(), TOPIC, "bfs", checkpoint=state, fetcher=fetcher)
    assert order(first) + order(second) == baseline
    assert sorted(fetcher.calls) == sorted(set(fetcher.calls))


async def test_resume_with_fetches_in_flight() -> None:
    baseline = set(order(await run(tree(), TOPIC, "bfs")))
    states: list[dict] = []
    first = await run(tree(), TOPIC, "bfs", limit=4, concurrency=4, on_checkpoint=states.append)
    second = await run(tree(), TOPIC, "bfs", checkpoint=states[-1], concurrency=4)
    both = order(first) + order(second)
    assert len(both) == len(set(both)) and set(both) == baseline


async def test_periodic_checkpoints_and_budget_across_resume() -> None:
    states: list[dict] = []
    events = await run(
        tree(),
        TOPIC,
        "topic-pagerank",
        max_pages=13,
        on_checkpoint=states.append,
        checkpoint_every=5,
    )
    assert len([e for e in events if not e.final]) == 13
    assert [s["fetched"] for s in states] == [5, 10, 13]
    assert states[0]["strategy"] == "topic-pagerank" and len(states[0]["frontier"]["seen"]) == 5
    # the page budget counts pages fetched before the resume
    again = await run(tree(), TOPIC, "topic-pagerank", max_pages=7, checkpoint=states[0])
    assert len(order(again)) == 2


async def test_unknown_strategy_and_scope_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown strategy"):
        await run(tree(), TOPIC, "dfs")
    with pytest.raises(ValueError, match="unknown scope"):
        await run(tree(), TOPIC, "bfs", scope="planet")


# --- a real HTTP server on loopback ----------------------------------------------------------

SITE = {
    "/": '<html><head><title>足球新闻</title><meta name="keywords" content="足球,体育"></head>'
    '<body><a href="/a">足球比赛</a> <a href="/b">天气</a> <a href="/gone">旧闻</a>'
    ' <a href="/moved">搬家</a></body></html>',
    "/a": "<html><head><title>足球 战报：国安主场击败申花</title></head><body>"
    "<h1>足球 战报：国安主场击败申花</h1><p>北京国安在工人体育场以二比一战胜上海申花，"
    "两队在上半场各入一球，下半场国安凭借角球机会打入制胜球，全场比赛观众超过四万人。</p>"
    '<a href="/a2">更多足球</a></body></html>',
    "/a2": "<html><head><title>足球 评论</title></head><body><p>评论</p></body></html>",
    "/b": "<html><head><title>天气预报</title></head><body><p>晴</p></body></html>",
    "/c": "<html><head><title>搬家以后</title></head><body><p>新址</p></body></html>",
}


@pytest.fixture
def server() -> Iterator[str]:
    with serve_html(SITE, {"/moved": "/c"}) as web:
        yield web.origin


@pytest.mark.parametrize("in_child", [False, True], ids=["fetch here", "fetch in a child"])
@pytest.mark.parametrize("concurrency", [1, 4])
async def test_crawl_a_real_server_on_loopback(
    server: str, concurrency: int, in_child: bool
) -> None:
    fetch = FetchConfig(
        delay=0, allow_private=True, retries=0, concurrency=concurrency, per_host=concurrency
    )
    config = CrawlConfig(strategy="topic-pagerank", fetch=fetch, fetch_process=in_child)
    events = []
    async with contextlib.aclosing(crawl([server + "/"], TOPIC, config)) as stream:
        async for ev in stream:
            events.append(ev)
    by_path = {e.url.removeprefix(server): e for e in events}
    assert set(by_path) == {"/", "/a", "/b", "/gone", "/moved", "/a2"}
    assert len(events) == 6
    # the home page is a hub: crawled for its links, never pushed, however on-topic
    assert by_path["/"].kind == "hub" and not by_path["/"].matched
    assert by_path["/"].probability >= 0.5
    assert by_path["/a"].kind == "item" and by_path["/a"].matched and not by_path["/b"].matched
    assert by_path["/gone"].status == 404 and by_path["/gone"].error
    assert by_path["/moved"].final_url == server + "/c"
    if concurrency == 1:
        # the on-topic link (anchor 足球比赛) before the off-topic ones
        assert [e.url.removeprefix(server) for e in events][:2] == ["/", "/a"]


def _learning_site() -> dict:
    """A home page linking 12 football stories that share 恒大 and 12 weather stories."""
    stories = [(f"/f{i}", f"足球：恒大第{i}轮") for i in range(12)]
    stories += [(f"/w{i}", f"天气：第{i}场降雨") for i in range(12)]
    pages = [page("/", "首页", stories)]
    for i, (path, title) in enumerate(stories):
        body = "恒大主场，球迷到场。" if i < 12 else "气温下降，注意保暖。"
        pages.append(page(path, title, text=f"{title}。{body}" * 3))
    return site(*pages)


async def test_the_profile_learns_terms_only_where_its_terms_are_used() -> None:
    from crawler.profile import TopicProfile

    learned = {}
    for strategy, scorer in (("adaptive", "model"), ("bfs", "model"), ("adaptive", "kp")):
        profile = TopicProfile.from_keywords("足球")
        await run(_learning_site(), profile, strategy, learn=True, scorer=scorer)
        learned[strategy, scorer] = profile.learned
    # where the judgment decides and steers, the profile's terms would feed neither
    assert learned["adaptive", "model"] == {}
    # a strategy that ranks links by the profile's terms, and a seed scorer, learn them
    assert "恒大" in learned["bfs", "model"]
    assert "恒大" in learned["adaptive", "kp"]


@pytest.mark.parametrize(
    ("keywords", "chinese"),
    [(["football", "Premier League"], False), (["足球"], True), (["AI", "芯片"], True)],
)
async def test_a_crawl_loads_the_chinese_word_table_only_for_a_topic_written_in_chinese(
    server: str, monkeypatch: pytest.MonkeyPatch, keywords: list[str], chinese: bool
) -> None:
    """The table that weighs Chinese words (40 MB) is loaded while the fetch process starts
    only when the topic has a Chinese term; English pages never read it."""
    from crawler import text
    from crawler.profile import TopicProfile

    loads: list[bool] = []
    monkeypatch.setattr(text, "load", lambda *, idf=True: loads.append(idf))
    fetch = FetchConfig(delay=0, allow_private=True, retries=0, concurrency=2, per_host=2)
    config = CrawlConfig(max_pages=3, fetch=fetch, fetch_process=True)
    topic = TopicProfile.from_keywords(keywords)
    async with contextlib.aclosing(crawl([server + "/"], topic, config)) as stream:
        assert [ev async for ev in stream]
    assert loads == [chinese]
