"""robots.txt: cached per site, Crawl-delay honoured, a clear reason when disallowed."""

from __future__ import annotations

import pytest

from crawler.errors import RobotsDisallowed
from crawler.fetch import FetchConfig, Fetcher
from tests.crawler.helpers import with_
from tests.crawler.server import Reply, TestWeb

ROBOTS = b"""User-agent: *
Disallow: /private/
Crawl-delay: 3

User-agent: EvilBot
Disallow: /
"""
PAGE = Reply(body="<html><title>公开页面</title><body><p>你好</p></body></html>".encode())


def _site(web: TestWeb, robots: Reply) -> None:
    web.add("/robots.txt", robots)
    web.add("/public", PAGE)
    web.add("/other", PAGE)
    web.add("/private/secret", PAGE)


async def test_disallowed_url_is_refused_with_a_reason(web: TestWeb, config: FetchConfig):
    _site(web, Reply(body=ROBOTS, content_type="text/plain"))
    async with Fetcher(config) as fetcher:
        fetcher.politeness.sleep = _instant
        assert (await fetcher.fetch(web.url("/public"))).title == "公开页面"
        with pytest.raises(RobotsDisallowed, match=r"robots\.txt .* disallows") as info:
            await fetcher.fetch(web.url("/private/secret"))
    assert "TimelyPushTest" in str(info.value)
    assert web.hits["/private/secret"] == 0
    assert web.hits["/robots.txt"] == 1  # cached for the site
    assert fetcher.stats["robots"] == 1


async def test_user_agent_specific_rules(web: TestWeb, config: FetchConfig):
    _site(web, Reply(body=ROBOTS, content_type="text/plain"))
    async with Fetcher(with_(config, user_agent="EvilBot/2.0")) as fetcher:
        with pytest.raises(RobotsDisallowed):
            await fetcher.fetch(web.url("/public"))


async def test_crawl_delay_spaces_requests_to_the_host(web: TestWeb, config: FetchConfig):
    _site(web, Reply(body=ROBOTS, content_type="text/plain"))
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    async with Fetcher(config) as fetcher:  # configured delay is 0
        fetcher.politeness.sleep = record
        await fetcher.fetch(web.url("/public"))
        await fetcher.fetch(web.url("/other"))
    assert len(waits) == 1 and 1 < waits[0] <= 3  # the second start waits for Crawl-delay: 3


async def test_robots_can_be_ignored_when_configured(web: TestWeb, config: FetchConfig):
    _site(web, Reply(body=ROBOTS, content_type="text/plain"))
    async with Fetcher(with_(config, respect_robots=False)) as fetcher:
        assert (await fetcher.fetch(web.url("/private/secret"))).status == 200
    assert web.hits["/robots.txt"] == 0


async def test_missing_robots_allows_everything(web: TestWeb, config: FetchConfig):
    web.add("/private/secret", PAGE)  # /robots.txt is a 404
    async with Fetcher(config) as fetcher:
        assert (await fetcher.fetch(web.url("/private/secret"))).status == 200


async def test_server_error_on_robots_disallows_the_site_for_now(web: TestWeb, config: FetchConfig):
    _site(web, Reply(503, b"down"))
    async with Fetcher(config) as fetcher:
        with pytest.raises(RobotsDisallowed, match="503"):
            await fetcher.fetch(web.url("/public"))
    assert web.hits["/public"] == 0


async def test_redirected_robots_is_followed(web: TestWeb, config: FetchConfig):
    web.add("/robots.txt", Reply(301, headers={"Location": "/real-robots.txt"}))
    web.add("/real-robots.txt", Reply(body=ROBOTS, content_type="text/plain"))
    web.add("/private/secret", PAGE)
    async with Fetcher(config) as fetcher:
        with pytest.raises(RobotsDisallowed):
            await fetcher.fetch(web.url("/private/secret"))


async def _instant(seconds: float) -> None:
    return None
