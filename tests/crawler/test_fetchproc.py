"""Fetching in a child process gives what fetching in this process gives, and loses nothing
when the child is gone."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import pickle
import signal
import subprocess
import sys
import time

import httpx
import pytest

from crawler import CrawlConfig, TopicProfile, crawl, fetchproc
from crawler.errors import BlockedURL, HTTPStatusError
from crawler.fetch import FetchConfig, Fetcher
from crawler.fetchproc import ProcessFetcher
from tests.crawler.helpers import with_
from tests.crawler.server import Reply, Seen, TestWeb

ARTICLE = (
    "<html><head><title>足球 战报：国安主场击败申花</title>"
    '<meta name="keywords" content="足球,中超"></head><body>'
    "<h1>足球 战报：国安主场击败申花</h1><p>北京国安在工人体育场以二比一战胜上海申花，"
    "两队在上半场各入一球，下半场国安凭借角球机会打入制胜球，全场比赛观众超过四万人。</p>"
    '<a href="/list">更多足球</a> <a href="https://other.example/x">外站</a></body></html>'
)


def _late(seen: Seen) -> Reply:
    """The article, after a pause (time to kill the child while it waits)."""
    time.sleep(0.6)
    return Reply(body=ARTICLE.encode())


def _serve(web: TestWeb) -> None:
    web.add("/a", Reply(body=ARTICLE.encode(), headers={"ETag": '"v1"'}))
    web.add("/slow", _late)
    web.add("/robots.txt", Reply(body=b"User-agent: *\nDisallow: /private\n"))


async def test_same_page_and_same_errors_as_in_process(web: TestWeb, config: FetchConfig) -> None:
    _serve(web)
    async with Fetcher(config) as local, ProcessFetcher(config) as child:
        assert child._proc is not None  # really in another process
        here, there = await local.fetch(web.url("/a")), await child.fetch(web.url("/a"))
        for name in (
            "url",
            "final_url",
            "status",
            "title",
            "meta_keywords",
            "text",
            "links",
            "content_hash",
            "simhash",
            "etag",
            "kind",
            "kind_evidence",
            "structure",
        ):
            assert getattr(there, name) == getattr(here, name), name
        assert there.links and there.etag == '"v1"' and there.kind == "item"
        for path, error in (("/missing", HTTPStatusError), ("/private/x", Exception)):
            with pytest.raises(error) as raised_here:
                await local.fetch(web.url(path))
            with pytest.raises(type(raised_here.value)) as raised_there:
                await child.fetch(web.url(path))
            assert str(raised_there.value) == str(raised_here.value)
            assert raised_there.value.kind == raised_here.value.kind  # type: ignore[attr-defined]
            assert getattr(raised_there.value, "status", None) == getattr(
                raised_here.value, "status", None
            )
        # the URL guard runs in the child too: a private address it was not allowed is refused
        with pytest.raises(BlockedURL):
            await child.fetch("http://10.1.2.3/")
    # the child's counters come back when it stops
    assert child.stats["ok"] == 1 and child.stats["http_status"] == 1, child.stats
    assert child.stats["robots"] == 1 and child.stats["blocked"] == 1, child.stats


async def test_conditional_get_in_the_child(web: TestWeb, config: FetchConfig) -> None:
    web.add(
        "/c",
        lambda seen: (
            Reply(304)
            if seen.headers.get("if-none-match") == '"v1"'
            else Reply(body=ARTICLE.encode(), headers={"ETag": '"v1"'})
        ),
    )
    async with ProcessFetcher(config) as child:
        page = await child.fetch(web.url("/c"), etag='"v1"')
    assert page.not_modified and page.status == 304 and page.etag == '"v1"'


async def test_a_dead_child_loses_nothing(web: TestWeb, config: FetchConfig) -> None:
    _serve(web)
    async with ProcessFetcher(config) as child:
        assert child._proc is not None
        slow = asyncio.create_task(child.fetch(web.url("/slow")))
        await asyncio.sleep(0.2)  # the request is in the child, its body still dripping
        child._proc.kill()
        page = await asyncio.wait_for(slow, timeout=30)  # fetched again, in this process
        assert page.title.startswith("足球")
        after = await child.fetch(web.url("/a"))
        assert after.status == 200 and child._proc is None and child._local is not None
    assert child.stats["ok"] == 2


async def test_a_child_that_cannot_start_is_replaced(
    web: TestWeb, config: FetchConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    _serve(web)

    async def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("no more processes")

    monkeypatch.setattr(asyncio, "create_subprocess_exec", refuse)
    async with ProcessFetcher(config) as child:
        page = await child.fetch(web.url("/a"))
    assert page.status == 200 and child._local is not None


async def test_a_crawl_decides_the_same_either_way(web: TestWeb, config: FetchConfig) -> None:
    _serve(web)
    web.add(
        "/",
        Reply(
            body=(
                "<html><head><title>体育首页</title></head><body>"
                + "".join(f'<a href="/n{i}">足球新闻 {i}</a> ' for i in range(12))
                + '<a href="/a">国安击败申花</a></body></html>'
            ).encode()
        ),
    )
    for i in range(12):
        web.add(f"/n{i}", Reply(body=ARTICLE.replace("申花", f"申花{i}").encode()))
    topic = TopicProfile.from_keywords(["足球"])

    async def events(in_child: bool) -> list[tuple[object, ...]]:
        cfg = CrawlConfig(
            fetch=with_(config, concurrency=1, per_host=1), scope="any", fetch_process=in_child
        )
        out = []
        async with contextlib.aclosing(crawl([web.url("/")], topic, cfg)) as stream:
            async for ev in stream:
                out.append(
                    (
                        ev.url,
                        ev.status,
                        ev.kind,
                        ev.matched,
                        round(ev.probability, 9),
                        ev.explanation,
                        ev.final,
                        ev.error_kind,
                    )
                )
        return out

    here, there = await events(False), await events(True)
    assert len(here) >= 14 and there == here
    assert any(matched for _, _, _, matched, *_ in here)


def test_the_package_names_load_on_first_use() -> None:
    """``crawler`` imports its parts when a name is first used: the fetch process needs only
    ``crawler.fetch``; every public name still resolves (fresh interpreter)."""
    probe = (
        "import sys, crawler\n"
        "import crawler.fetchproc\n"
        "print(sorted(m for m in ('crawler.engine', 'crawler.judgment', 'crawler.strategies')"
        " if m in sys.modules))\n"
        # the crawl's side of a crawl that fetches in a child needs neither httpx nor the parser
        "from crawler import CrawlConfig, FetchConfig, TopicProfile, crawl\n"
        "print(sorted(m for m in ('httpx', 'lxml.html', 'crawler.parse') if m in sys.modules))\n"
        "missing = [n for n in crawler.__all__ if getattr(crawler, n, None) is None]\n"
        "print(missing, sorted(crawler.__all__) == sorted(crawler._SOURCES))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["[]", "[]", "[] True"], done.stdout + done.stderr


def test_the_fetch_process_loads_neither_httpx_cli_nor_the_suffix_list_until_needed() -> None:
    """The child starts on what it uses (the crawl waits for it): httpx without its
    command-line client (click, rich), the URL code without tldextract (and ``requests``)
    until a registered domain is asked for — and then it gives the right one (fresh
    interpreter)."""
    probe = (
        "import sys, crawler.fetchproc as f\n"
        "f._without_httpx_cli()\n"
        "import crawler.fetch, crawler.parse, httpx\n"
        "later = ('click', 'rich', 'tldextract', 'requests')\n"
        "print(sorted(m for m in later if m in sys.modules))\n"
        "from crawler.urls import public_suffix, registered_domain\n"
        "print(registered_domain('news.sina.com.cn'), public_suffix('a.b.example.co.uk'))\n"
        "try:\n"
        "    httpx.main()\n"
        "except RuntimeError as exc:\n"
        "    print('cli:', exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == [
        "[]",
        "sina.com.cn co.uk",
        "cli: httpx's command-line client is not loaded in the fetch process",
    ], done.stdout + done.stderr


def test_auto_fetches_in_a_child_only_for_large_crawls_on_two_cpus(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from crawler import engine, fetchproc

    monkeypatch.setattr(fetchproc, "available_cpus", lambda: 2)
    assert engine._fetch_in_child(CrawlConfig(max_pages=engine.FETCH_PROCESS_PAGES), None)
    assert not engine._fetch_in_child(CrawlConfig(max_pages=engine.FETCH_PROCESS_PAGES - 1), None)
    assert not engine._fetch_in_child(CrawlConfig(), httpx.AsyncClient())  # a given client
    one_at_a_time = CrawlConfig(fetch=FetchConfig(concurrency=1))
    assert not engine._fetch_in_child(one_at_a_time, None)
    assert engine._fetch_in_child(CrawlConfig(max_pages=5, fetch_process=True), None)
    monkeypatch.setattr(fetchproc, "available_cpus", lambda: 1)
    assert not engine._fetch_in_child(CrawlConfig(), None)


async def test_ctrl_c_is_left_to_the_crawl(web: TestWeb, config: FetchConfig) -> None:
    """Ctrl-C reaches the whole process group; the child ignores it (the crawl's process
    stops it by closing its stdin, after saving its checkpoint), so it goes on answering."""
    _serve(web)
    async with ProcessFetcher(config) as child:
        assert child._proc is not None
        await child.fetch(web.url("/a"))  # started and serving
        child._proc.send_signal(signal.SIGINT)
        await asyncio.sleep(0.3)
        page = await child.fetch(web.url("/a"))
        assert page.status == 200 and child._proc is not None and child._local is None
    assert child.stats["ok"] == 2


async def test_the_child_ends_quietly_when_the_crawl_is_gone(config: FetchConfig) -> None:
    """The crawl's process killed: the child reads the end of its stdin, cannot answer, and
    exits cleanly (no traceback, exit status 0)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "crawler.fetchproc",
        stdin=asyncio.subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(fetchproc._frame((config, logging.WARNING)))
    proc.stdin.write(fetchproc._frame((1, "http://127.0.0.1:9/", None, None)))
    await proc.stdin.drain()
    proc._transport.get_pipe_transport(1).close()  # type: ignore[attr-defined]  # nobody reads
    proc.stdin.close()
    assert await asyncio.wait_for(proc.wait(), timeout=20) == 0
    assert b"Traceback" not in await proc.stderr.read()


async def test_an_unreadable_answer_hands_over_and_the_child_still_stops(
    web: TestWeb, config: FetchConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    _serve(web)
    async with ProcessFetcher(config) as child:
        proc = child._proc
        assert proc is not None

        def garbled(reader: asyncio.StreamReader) -> None:
            raise pickle.UnpicklingError("garbled")

        assert child._reader is not None
        child._reader.cancel()  # the reader starts over, and the next answer is garbled
        with contextlib.suppress(asyncio.CancelledError):
            await child._reader
        child._proc = proc
        monkeypatch.setattr(fetchproc, "_receive", garbled)
        child._reader = asyncio.create_task(child._read(proc.stdout))  # type: ignore[arg-type]
        await asyncio.sleep(0.1)
        page = await child.fetch(web.url("/a"))  # fetched here
        assert page.status == 200 and child._local is not None and child._proc is None
    assert proc.returncode is not None  # stopped, not left behind


def test_a_page_and_its_links_cross_the_pipe_whole() -> None:
    """A link pickles as a call with every one of its fields (``Link.__reduce__``): a field
    added to ``Link`` and not to its pickling fails here."""
    import copy
    import dataclasses

    from crawler.parse import parse_html
    from crawler.types import Link

    page = parse_html(ARTICLE.encode(), "https://news.example/a")
    page.links.append(Link("https://news.example/b", "b", "about b", nofollow=True))
    again = pickle.loads(fetchproc._frame(page)[4:])
    assert again == page and again.links == page.links and len(again.links) == 3
    link = page.links[-1]
    assert link.__reduce__()[1] == dataclasses.astuple(link)
    assert copy.copy(link) == link and copy.deepcopy(page) == page
