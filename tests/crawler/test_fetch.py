"""The fetcher against a real loopback server: limits, redirects, retries, charset, types."""

from __future__ import annotations

import gzip
import zlib

import httpx
import pytest

from crawler.errors import (
    BlockedURL,
    ConfigError,
    FetchTimeout,
    HTTPStatusError,
    TooLarge,
    TooManyRedirects,
    UnsupportedContent,
)
from crawler.fetch import FetchConfig, Fetcher
from tests.crawler.helpers import with_
from tests.crawler.server import Reply, Seen, TestWeb

HTML = (
    "<html><head><title>中超联赛第30轮综述</title>"
    '<meta name="keywords" content="中超,足球"></head>'
    "<body><article><p>北京国安主场迎战上海申花，比赛十分激烈。</p>"
    '<p>阅读 <a href="/next?utm_source=x">下一篇：国足备战</a> 了解更多。</p>'
    "</article></body></html>"
)


def html_reply(text: str = HTML, **kw: object) -> Reply:
    return Reply(body=text.encode("utf-8"), **kw)  # type: ignore[arg-type]


async def test_fetch_parses_a_page_and_sends_our_user_agent(web: TestWeb, config: FetchConfig):
    web.add("/a", html_reply())
    async with Fetcher(config) as fetcher:
        page = await fetcher.fetch(web.url("/a"))
    assert page.status == 200
    assert page.title == "中超联赛第30轮综述"
    assert page.meta_keywords == "中超,足球"
    assert [(link.url, link.anchor) for link in page.links] == [
        (web.url("/next"), "下一篇：国足备战")
    ]
    assert "北京国安" in page.text
    assert page.final_url == web.url("/a")
    assert page.content_hash and page.simhash != 0
    assert web.requests[-1].headers["user-agent"] == config.user_agent
    assert fetcher.stats["ok"] == 1


async def test_gbk_page_with_charset_only_in_meta(web: TestWeb, config: FetchConfig):
    body = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312">'
        "<title>体育新闻：国足出线形势分析</title></head><body><p>球迷们都很关心。镕</p></body></html>"
    ).encode("gbk")
    web.add("/gbk", Reply(body=body, content_type="text/html"))
    async with Fetcher(config) as fetcher:
        page = await fetcher.fetch(web.url("/gbk"))
    assert page.title == "体育新闻：国足出线形势分析"
    assert "球迷们都很关心。镕" in page.text


async def test_undecodable_bytes_do_not_break_the_page(web: TestWeb, config: FetchConfig):
    body = "<title>标题</title><p>正文".encode() + b"\xff\xfe\x80\x81" + "结尾</p>".encode()
    web.add("/bad", Reply(body=body, content_type="text/html; charset=utf-8"))
    async with Fetcher(config) as fetcher:
        page = await fetcher.fetch(web.url("/bad"))
    assert page.title == "标题"
    assert "正文" in page.text and "结尾" in page.text


async def test_redirects_are_followed_and_final_url_recorded(web: TestWeb, config: FetchConfig):
    web.add("/old", Reply(301, headers={"Location": "/middle"}))
    web.add("/middle", Reply(302, headers={"Location": web.url("/new")}))
    web.add("/new", html_reply())
    async with Fetcher(config) as fetcher:
        page = await fetcher.fetch(web.url("/old"))
    assert page.url == web.url("/old")
    assert page.final_url == web.url("/new")
    assert page.title == "中超联赛第30轮综述"


async def test_redirect_loop_and_too_many_redirects(web: TestWeb, config: FetchConfig):
    web.add("/loop1", Reply(302, headers={"Location": "/loop2"}))
    web.add("/loop2", Reply(302, headers={"Location": "/loop1"}))
    for i in range(10):
        web.add(f"/chain{i}", Reply(302, headers={"Location": f"/chain{i + 1}"}))
    async with Fetcher(config) as fetcher:
        with pytest.raises(TooManyRedirects, match="loop"):
            await fetcher.fetch(web.url("/loop1"))
        with pytest.raises(TooManyRedirects, match="more than 5 redirects"):
            await fetcher.fetch(web.url("/chain0"))
    assert web.hits["/chain5"] == 1 and web.hits["/chain6"] == 0


async def test_redirect_to_metadata_address_is_refused_even_from_allowlisted_host(
    web: TestWeb, config: FetchConfig
):
    web.add("/go", Reply(302, headers={"Location": "http://169.254.169.254/latest/meta-data/"}))
    web.add("/go-local", Reply(302, headers={"Location": "http://localhost:1/"}))
    web.add("/go-ftp", Reply(302, headers={"Location": "ftp://127.0.0.1/"}))
    async with Fetcher(config) as fetcher:
        with pytest.raises(BlockedURL, match=r"169\.254\.169\.254"):
            await fetcher.fetch(web.url("/go"))
        with pytest.raises(BlockedURL, match="localhost"):
            await fetcher.fetch(web.url("/go-local"))
        with pytest.raises(BlockedURL, match="http"):
            await fetcher.fetch(web.url("/go-ftp"))
        assert fetcher.stats["blocked"] == 3


async def test_loopback_is_refused_without_allowlist(web: TestWeb, config: FetchConfig):
    web.add("/a", html_reply())
    async with Fetcher(with_(config, allowlist=())) as fetcher:
        with pytest.raises(BlockedURL, match="loopback"):
            await fetcher.fetch(web.url("/a"))
    assert web.hits["/a"] == 0
    async with Fetcher(with_(config, allowlist=(), allow_private=True)) as fetcher:
        assert (await fetcher.fetch(web.url("/a"))).status == 200


async def test_slow_drip_hits_the_total_timeout(web: TestWeb, config: FetchConfig):
    web.add("/drip", Reply(body=b"<html>" + b" " * 1000, drip=0.05))
    async with Fetcher(with_(config, total_timeout=0.4, read_timeout=2)) as fetcher:
        with pytest.raises(FetchTimeout):
            await fetcher.fetch(web.url("/drip"))
        assert fetcher.stats["timeout"] == 1


async def test_oversized_body_is_refused(web: TestWeb, config: FetchConfig):
    big = b"<html><body>" + b"x" * 200_000 + b"</body></html>"
    web.add("/big", Reply(body=big))
    web.add("/big-streamed", Reply(body=big, length=False))
    web.add("/small-streamed", Reply(body=HTML.encode(), length=False))
    async with Fetcher(with_(config, max_bytes=100_000)) as fetcher:
        with pytest.raises(TooLarge, match="Content-Length"):
            await fetcher.fetch(web.url("/big"))
        with pytest.raises(TooLarge, match="larger than 100000 bytes"):
            await fetcher.fetch(web.url("/big-streamed"))
        assert (await fetcher.fetch(web.url("/small-streamed"))).title == "中超联赛第30轮综述"


async def test_gzip_bomb_stops_at_the_limit(web: TestWeb, config: FetchConfig):
    bomb = gzip.compress(b"<html><body>" + b"\0" * 20_000_000, compresslevel=9)
    assert len(bomb) < 100_000
    web.add("/bomb", Reply(body=bomb, headers={"Content-Encoding": "gzip"}))
    async with Fetcher(with_(config, max_bytes=1_000_000)) as fetcher:
        with pytest.raises(TooLarge, match="inflates"):
            await fetcher.fetch(web.url("/bomb"))


async def test_gzip_and_deflate_bodies_are_decoded(web: TestWeb, config: FetchConfig):
    web.add("/gz", Reply(body=gzip.compress(HTML.encode()), headers={"Content-Encoding": "gzip"}))
    raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    deflated = raw.compress(HTML.encode()) + raw.flush()
    web.add("/df", Reply(body=deflated, headers={"Content-Encoding": "deflate"}))
    async with Fetcher(config) as fetcher:
        assert (await fetcher.fetch(web.url("/gz"))).title == "中超联赛第30轮综述"
        assert (await fetcher.fetch(web.url("/df"))).title == "中超联赛第30轮综述"
    assert "gzip" in web.requests[0].headers["accept-encoding"]


async def test_binary_content_is_refused_by_type_extension_or_sniffing(
    web: TestWeb, config: FetchConfig
):
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 100
    web.add("/img", Reply(body=png, content_type="image/png"))
    web.add("/file.pdf", Reply(body=b"%PDF-1.4", content_type=None))
    web.add("/blob", Reply(body=png, content_type="application/octet-stream"))
    async with Fetcher(config) as fetcher:
        with pytest.raises(UnsupportedContent, match="image/png"):
            await fetcher.fetch(web.url("/img"))
        with pytest.raises(UnsupportedContent, match=r"\.pdf"):
            await fetcher.fetch(web.url("/file.pdf"))
        with pytest.raises(UnsupportedContent, match="binary"):
            await fetcher.fetch(web.url("/blob"))


async def test_rss_feed_is_accepted_with_item_links(web: TestWeb, config: FetchConfig):
    rss = (
        '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel>'
        "<title>体育频道</title><description>最新体育新闻</description>"
        "<item><title>国足晋级</title><link>https://sports.example.com/a1.html</link>"
        "<description>国足在比赛中获胜。</description></item>"
        "<item><title>中超收官</title><link>https://sports.example.com/a2.html</link></item>"
        "</channel></rss>"
    )
    web.add("/feed.xml", Reply(body=rss.encode(), content_type="application/rss+xml"))
    async with Fetcher(config) as fetcher:
        page = await fetcher.fetch(web.url("/feed.xml"))
    assert page.is_feed
    assert page.title == "体育频道"
    assert [(link.url, link.anchor) for link in page.links] == [
        ("https://sports.example.com/a1.html", "国足晋级"),
        ("https://sports.example.com/a2.html", "中超收官"),
    ]


async def test_conditional_get_and_304(web: TestWeb, config: FetchConfig):
    def handler(seen: Seen) -> Reply:
        if seen.headers.get("if-none-match") == '"v1"':
            return Reply(304, content_type=None)
        return html_reply(
            headers={"ETag": '"v1"', "Last-Modified": "Sun, 01 Nov 2026 10:00:00 GMT"}
        )

    web.add("/c", handler)
    async with Fetcher(config) as fetcher:
        first = await fetcher.fetch(web.url("/c"))
        assert first.etag == '"v1"' and first.last_modified
        again = await fetcher.fetch(
            web.url("/c"), etag=first.etag, last_modified=first.last_modified
        )
    assert again.not_modified and again.status == 304
    assert again.etag == '"v1"'
    assert web.requests[-1].headers["if-modified-since"] == first.last_modified
    assert fetcher.stats["not_modified"] == 1


async def test_429_retry_after_is_honoured_and_capped(web: TestWeb, config: FetchConfig):
    calls = {"n": 0}

    def busy(seen: Seen) -> Reply:
        calls["n"] += 1
        if calls["n"] == 1:
            return Reply(429, b"slow down", headers={"Retry-After": "7"})
        if calls["n"] == 2:
            return Reply(503, b"busy", headers={"Retry-After": "3600"})
        return html_reply()

    web.add("/busy", busy)
    waits: list[float] = []

    async def no_sleep(seconds: float) -> None:
        waits.append(seconds)

    async with Fetcher(with_(config, retries=2, max_retry_after=20)) as fetcher:
        fetcher.politeness.sleep = no_sleep
        page = await fetcher.fetch(web.url("/busy"))
    assert page.status == 200 and web.hits["/busy"] == 3
    assert len(waits) == 2
    assert 4 < waits[0] <= 7  # Retry-After: 7 (less the time the retry took to start)
    assert 17 < waits[1] <= 20  # Retry-After: 3600, capped at max_retry_after
    assert fetcher.stats["retries"] == 2


async def test_errors_are_retried_then_raised_with_status(web: TestWeb, config: FetchConfig):
    web.add("/down", Reply(500, b"oops"))
    web.add("/gone", Reply(404, b"nope"))
    async with Fetcher(with_(config, retries=2)) as fetcher:
        fetcher.politeness.sleep = _instant
        with pytest.raises(HTTPStatusError) as info:
            await fetcher.fetch(web.url("/down"))
        assert info.value.status == 500
        with pytest.raises(HTTPStatusError, match="404"):
            await fetcher.fetch(web.url("/gone"))
    assert web.hits["/down"] == 3 and web.hits["/gone"] == 1
    assert fetcher.stats["http_status"] == 2


async def test_connection_refused_is_a_network_error(config: FetchConfig):
    from crawler.errors import NetworkError

    async with Fetcher(with_(config, respect_robots=False)) as fetcher:
        with pytest.raises(NetworkError):
            await fetcher.fetch("http://127.0.0.1:9/")  # discard port: nothing listens


async def test_injected_client_with_mock_transport():
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/robots.txt":
            return httpx.Response(404)
        return httpx.Response(200, html=HTML)

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    config = FetchConfig(delay=0, allowlist=("news.example",))
    async with Fetcher(config, client=client) as fetcher:
        page = await fetcher.fetch("http://news.example/a")
    assert page.title == "中超联赛第30轮综述"
    assert not client.is_closed
    await client.aclose()


def test_invalid_proxy_is_a_config_error():
    with pytest.raises(ConfigError):
        Fetcher(FetchConfig(proxy="not a proxy url"))


async def _instant(seconds: float) -> None:
    return None


async def test_through_an_http_proxy_target_hosts_need_no_local_dns(
    web: TestWeb, config: FetchConfig
):
    """The loopback server doubles as a forward proxy: it sees absolute request URLs."""
    web.add("/article", html_reply())
    proxied = with_(config, proxy=web.origin, allowlist=())
    async with Fetcher(proxied) as fetcher:
        page = await fetcher.fetch("http://news.invalid/article")  # .invalid never resolves
        assert page.title == "中超联赛第30轮综述"
        assert page.final_url == "http://news.invalid/article"
        with pytest.raises(BlockedURL):  # IP literals are still checked
            await fetcher.fetch("http://10.0.0.1/article")
    assert web.requests[-1].path == "http://news.invalid/article"
    assert any(seen.path == "http://news.invalid/robots.txt" for seen in web.requests)


async def test_infinite_calendar_links_are_flagged_as_traps(web: TestWeb, config: FetchConfig):
    """A calendar page links to the next month forever; every such link is a trap."""
    from crawler.urls import trap_reason

    def month(seen: Seen) -> Reply:
        query = seen.path.partition("?")[2]
        params = dict(p.split("=") for p in query.split("&") if "=" in p) or {"y": "2026", "m": "1"}
        y, m = int(params["y"]), int(params["m"])
        ny, nm = (y + 1, 1) if m == 12 else (y, m + 1)
        body = (
            f"<html><title>活动日历 {y}年{m}月</title><body><h1>{y}年{m}月</h1>"
            f"<a href='/calendar?y={ny}&m={nm}'>下个月</a>"
            f"<a href='/calendar/day/{y}-{m:02d}-15'>{m}月15日</a>"
            "<a href='/news/a.html'>新闻</a></body></html>"
        )
        return html_reply(body)

    web.add("/calendar", month)
    url = web.url("/calendar?y=2026&m=11")
    async with Fetcher(config) as fetcher:
        for _ in range(5):  # follow "next month" a few times: it never ends
            page = await fetcher.fetch(url)
            traps = {link.url: trap_reason(link.url) for link in page.links}
            assert traps[web.url("/news/a.html")] is None
            calendar = [u for u in traps if "calendar" in u]
            assert len(calendar) == 2 and all(traps[u] for u in calendar)
            url = next(u for u in calendar if "?" in u)
    assert "y=2027" in url


async def test_redirect_to_a_name_resolving_to_a_private_address_is_refused(
    web: TestWeb, config: FetchConfig, fake_dns: dict[str, str]
):
    web.add("/to-intranet", Reply(302, headers={"Location": "http://intranet.example/admin"}))
    web.add("/to-metadata", Reply(301, headers={"Location": "http://metadata.example/"}))
    async with Fetcher(config) as fetcher:
        with pytest.raises(BlockedURL, match=r"intranet\.example \(10\.0\.0\.5\)"):
            await fetcher.fetch(web.url("/to-intranet"))
        with pytest.raises(BlockedURL, match=r"169\.254\.169\.254"):
            await fetcher.fetch(web.url("/to-metadata"))


async def test_429_without_retries_still_pauses_the_host(web: TestWeb, config: FetchConfig):
    web.add("/limited", Reply(429, b"", headers={"Retry-After": "9"}))
    web.add("/a", html_reply())
    web.add("/nolocation", Reply(302))
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    async with Fetcher(config) as fetcher:  # retries=0
        fetcher.politeness.sleep = record
        with pytest.raises(HTTPStatusError, match="429"):
            await fetcher.fetch(web.url("/limited"))
        assert (await fetcher.fetch(web.url("/a"))).status == 200
        with pytest.raises(HTTPStatusError, match="without a Location"):
            await fetcher.fetch(web.url("/nolocation"))
    assert waits and 6 < waits[0] <= 9  # Retry-After: 9, less the time since the 429


async def test_per_host_and_global_concurrency_limits(config: FetchConfig):
    import asyncio
    import threading
    import time

    state = {"now": 0, "max": 0, "total_max": 0}
    per_server: dict[int, int] = {}
    lock = threading.Lock()
    servers = [TestWeb().start(), TestWeb().start()]

    def slow(port: int):
        def handler(seen: Seen) -> Reply:
            with lock:
                per_server[port] = per_server.get(port, 0) + 1
                state["now"] += 1
                state["max"] = max(state["max"], per_server[port])
                state["total_max"] = max(state["total_max"], state["now"])
            time.sleep(0.05)  # hold the request open so overlaps can happen
            with lock:
                per_server[port] -= 1
                state["now"] -= 1
            return html_reply()

        return handler

    try:
        for server in servers:
            server.add("/p", slow(server.port))
        urls = [server.url(f"/p?n={i}") for server in servers for i in range(6)]
        limits = with_(config, per_host=2, concurrency=3, respect_robots=False)
        async with Fetcher(limits) as fetcher:
            pages = await asyncio.gather(*(fetcher.fetch(u) for u in urls))
        assert all(page.status == 200 for page in pages)
        assert state["max"] <= 2  # never more than per_host on one server
        assert 2 <= state["total_max"] <= 3  # requests overlapped, within the global limit
        assert sum(server.hits["/p"] for server in servers) == 12
    finally:
        for server in servers:
            server.stop()


async def test_connection_is_pinned_to_the_checked_address(
    web: TestWeb, config: FetchConfig, monkeypatch: pytest.MonkeyPatch
):
    """The name is resolved once, by the guard; the client connects to that address (no
    second lookup a rebinding DNS server could answer differently)."""
    import socket

    lookups: list[str] = []
    real = socket.getaddrinfo

    def getaddrinfo(host: str, port: object, *args: object, **kwargs: object) -> list:
        if host == "pinned.example":
            lookups.append(host)
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        return real(host, port, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    web.add("/a", html_reply())
    url = f"http://pinned.example:{web.port}/a"
    pinned = with_(config, allowlist=("127.0.0.0/8",), respect_robots=False)
    async with Fetcher(pinned) as fetcher:
        page = await fetcher.fetch(url)
    assert page.title == "中超联赛第30轮综述"
    assert page.final_url == url
    assert lookups == ["pinned.example"]  # the guard's lookup only
    assert web.requests[-1].headers["host"] == f"pinned.example:{web.port}"


_COOKIE_STEPS = [
    # (URL, Set-Cookie headers of its answer)
    ("http://a.example.com/", ["sid=1; Path=/", "shared=2; Domain=example.com; Path=/"]),
    ("http://b.example.com/", []),
    ("http://a.example.com/x/y", ["deep=3; Path=/x", "s=5; Secure"]),
    ("http://a.example.com/x/z", []),
    ("http://a.example.com/", ["sid=; Max-Age=0; Path=/"]),  # deleted
    ("http://other.org/", ["o=1"]),
    ("http://a.example.com/x/", []),
    ("http://www.lab.test/", ["lab=1; Domain=lab.test"]),
    ("http://news.lab.test/", []),
    ("http://www.bbc.co.uk/", ["b=1; Domain=bbc.co.uk"]),
    ("http://bbc.co.uk/", []),
    ("http://127.0.0.1:8000/", ["ip=1"]),
    ("http://127.0.0.1:8000/again", []),
    ("https://a.example.com/x/y", []),
]


async def test_the_crawl_client_sends_the_cookies_httpx_would() -> None:
    """The crawl's client keeps a jar per site; every request's Cookie header is the one
    httpx's own client sends after the same answers (sites that keep to their own cookies)."""
    from crawler.fetch import CrawlClient

    async def sent(client: httpx.AsyncClient) -> list[str | None]:
        out: list[str | None] = []
        for url, set_cookies in _COOKIE_STEPS:
            request = client.build_request("GET", url)
            out.append(request.headers.get("cookie"))
            response = httpx.Response(
                200, headers=[("Set-Cookie", c) for c in set_cookies], request=request
            )
            client.cookies.extract_cookies(response)
        return out

    async with httpx.AsyncClient() as stock, CrawlClient() as ours:
        theirs, mine = await sent(stock), await sent(ours)
        assert mine == theirs
        assert sum(1 for header in mine if header) >= 8  # the steps do send cookies
        assert sorted(c.name for c in ours.cookies.jar) == sorted(c.name for c in stock.cookies.jar)
        # a site's request reads its own site's jar, not the others'
        assert sorted(ours.cookies.sites) == [
            "127.0.0.1",
            "bbc.co.uk",
            "example.com",
            "lab.test",
            "other.org",
        ]  # type: ignore[attr-defined]


async def test_a_fetcher_keeps_a_cookie_for_its_site(web: TestWeb) -> None:
    """Through a real server: a cookie set on one page is sent with the next page's request."""
    web.add(
        "/set",
        Reply(body=b"<html><title>set</title></html>", headers={"Set-Cookie": "sid=abc; Path=/"}),
    )
    web.add("/next", Reply(body=b"<html><title>next</title></html>"))
    config = FetchConfig(delay=0, allow_private=True, retries=0)
    async with Fetcher(config) as fetcher:
        await fetcher.fetch(web.url("/set"))
        await fetcher.fetch(web.url("/next"))
    assert [r.headers.get("cookie") for r in web.requests if r.path in ("/set", "/next")] == [
        None,
        "sid=abc",
    ]


async def test_cookies_given_to_the_crawl_client_go_where_httpxs_would() -> None:
    from crawler.fetch import CrawlClient

    given = {"pref": "zh"}
    async with httpx.AsyncClient(cookies=given) as stock, CrawlClient(cookies=given) as ours:
        for client in (stock, ours):
            client.cookies.set("site", "1", domain="a.example.com")
        for url in ("http://a.example.com/", "http://other.org/"):
            mine = ours.build_request("GET", url).headers.get("cookie")
            assert mine == stock.build_request("GET", url).headers.get("cookie")
            assert mine and "pref=zh" in mine


async def test_a_site_cannot_reach_another_sites_cookies_through_the_crawl_client() -> None:
    """Where the standard library's single jar lets one site delete or share another's
    cookies, the crawl's per-site jars do not (httpx's own client shown for contrast)."""
    from crawler.fetch import CrawlClient

    steps = [
        ("https://b.example.com/", ["c=5; Domain=.example.com"]),
        ("https://other.org/", ["c=1; Domain=.example.com; Max-Age=0"]),  # a foreign deletion
        ("https://10.0.0.1/", ["d=2; Domain=.0.0.1"]),  # a partial IP address
    ]
    asks = ["https://a.example.com/", "https://20.0.0.1/"]
    headers: dict[str, list[str | None]] = {}
    async with httpx.AsyncClient() as stock, CrawlClient() as ours:
        for name, client in (("stock", stock), ("ours", ours)):
            for url, set_cookies in steps:
                request = client.build_request("GET", url)
                answer = [("Set-Cookie", c) for c in set_cookies]
                client.cookies.extract_cookies(httpx.Response(200, headers=answer, request=request))
            headers[name] = [client.build_request("GET", u).headers.get("cookie") for u in asks]
    assert headers["stock"] == [None, "d=2"]
    assert headers["ours"] == ["c=5", None]
