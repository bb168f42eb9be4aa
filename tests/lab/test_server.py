"""The lab server: a loopback HTTP proxy that keeps every site's host name."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from lab.server import LabServer, load_web


@pytest.fixture
async def lab(small_web: Path) -> AsyncIterator[LabServer]:
    async with LabServer(load_web(small_web)) as server:
        yield server


def proxied(server: LabServer) -> httpx.AsyncClient:
    return httpx.AsyncClient(proxy=server.url, trust_env=False, timeout=10)


async def test_ground_truth_is_never_served(lab: LabServer) -> None:
    async with proxied(lab) as client:
        for url in (
            "http://www.lab-sina.test/truth.jsonl",
            "http://www.lab-sina.test/graph.jsonl",
            "http://www.lab-sina.test/manifest.json",
            "http://www.lab-sina.test/../truth.jsonl",
            "http://www.lab-sina.test/%2e%2e/truth.jsonl",
        ):
            response = await client.get(url)
            assert response.status_code == 404, url


async def test_each_host_gets_its_own_pages(lab: LabServer) -> None:
    async with proxied(lab) as client:
        sina = await client.get("http://www.lab-sina.test/")
        sohu = await client.get("http://www.lab-sohu.test/")
        sports = await client.get("http://sports.lab-sina.test/")
    assert sina.status_code == sohu.status_code == sports.status_code == 200
    assert "新浪网首页" in sina.text
    assert sina.content != sohu.content != sports.content
    assert "体育频道" in sports.text
    # origin-form requests are routed by the Host header
    async with httpx.AsyncClient(base_url=lab.url, trust_env=False) as client:
        direct = await client.get("/", headers={"Host": "www.lab-sina.test"})
    assert direct.content == sina.content


async def test_gbk_portal_declares_its_charset_only_in_meta(lab: LabServer) -> None:
    async with proxied(lab) as client:
        response = await client.get("http://www.lab-sohu.test/")
    assert response.headers["content-type"] == "text/html"
    raw = response.content
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")
    assert b'content="text/html; charset=gbk"' in raw
    assert "搜狐首页" in raw.decode("gbk")


async def test_unknown_paths_hosts_and_methods(lab: LabServer) -> None:
    async with proxied(lab) as client:
        assert (await client.get("http://www.lab-sina.test/nope.html")).status_code == 404
        assert (await client.get("http://www.example.test/")).status_code == 502
        assert (await client.post("http://www.lab-sina.test/")).status_code == 405
        robots = await client.get("http://sports.lab-sina.test/robots.txt")
        assert robots.status_code == 200 and "User-agent" in robots.text


async def test_conditional_get_and_error_injection(small_web: Path) -> None:
    web = load_web(small_web)
    async with LabServer(web) as ok, proxied(ok) as client:
        first = await client.get("http://www.lab-sina.test/")
        again = await client.get(
            "http://www.lab-sina.test/", headers={"If-None-Match": first.headers["etag"]}
        )
        assert again.status_code == 304
    async with LabServer(web, error_rate=1.0) as flaky, proxied(flaky) as client:
        assert (await client.get("http://www.lab-sina.test/")).status_code == 503


async def test_every_page_of_a_blog_is_served_at_its_own_address(tmp_path: Path) -> None:
    """A blog's posts at ``/?p=123`` are stored as ``index.html?p=123``: each address gets its
    own page, not the home page its path alone names."""
    from lab.blog import build_blog
    from lab.builder import url_to_file
    from lab.truth import Truth
    from tests.lab.test_blog import chinese_docs

    web = tmp_path / "blog"
    build_blog(chinese_docs(), web, lang="zh", seed=5, sites=4, articles=40)
    truth = Truth.load(web)
    queried = [url for url in truth.records if "?" in url]
    assert queried, "no blog of this web has posts at a query address"
    async with LabServer(load_web(web)) as server, proxied(server) as client:
        for url in truth.records:
            response = await client.get(url)
            assert response.status_code == 200, url
            host, rel = url_to_file(url)
            assert response.content == (web / "sites" / host / rel).read_bytes(), url
