"""Hand-made link graphs for the focus tests: pages by path, a fake fetcher, a crawl runner."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import replace
from typing import Any

from crawler.engine import CrawlConfig, CrawlEvent, crawl
from crawler.errors import HTTPStatusError
from crawler.fetch import FetchConfig
from crawler.profile import TopicProfile
from crawler.types import Link, Page

BASE = "http://t.test"


def url(path: str) -> str:
    return BASE + path


def page(path: str, title: str, links: list[tuple[str, str]] = (), **fields: Any) -> Page:  # type: ignore[assignment]
    """A parsed page at ``path`` whose links are (path, anchor) pairs."""
    return Page(
        url=url(path),
        final_url=url(path),
        status=200,
        title=title,
        links=[Link(url(p), anchor=a) for p, a in links],
        **fields,
    )


def site(*pages: Page) -> dict[str, Page]:
    return {p.url: p for p in pages}


class GraphFetcher:
    """Serves pages from a dict; unknown URLs are 404. Records every fetch."""

    def __init__(self, pages: dict[str, Page]) -> None:
        self.pages = pages
        self.calls: list[str] = []

    async def fetch(
        self, url: str, *, etag: str | None = None, last_modified: str | None = None
    ) -> Page:
        self.calls.append(url)
        await asyncio.sleep(0)
        if url not in self.pages:
            raise HTTPStatusError(404, url=url)
        return replace(self.pages[url])


def config(strategy: str, *, concurrency: int = 1, **kwargs: Any) -> CrawlConfig:
    fetch = FetchConfig(concurrency=concurrency, per_host=concurrency, delay=0, allow_private=True)
    kwargs.setdefault("learn", False)
    return CrawlConfig(strategy=strategy, fetch=fetch, **kwargs)


async def run(
    pages: dict[str, Page],
    keywords: str | TopicProfile,
    strategy: str,
    *,
    seeds: tuple[str, ...] = ("/",),
    limit: int | None = None,
    checkpoint: dict[str, Any] | None = None,
    on_checkpoint: Any = None,
    fetcher: GraphFetcher | None = None,
    **kwargs: Any,
) -> list[CrawlEvent]:
    """Crawl the graph; return the events (stop after ``limit`` events if given)."""
    fetcher = fetcher or GraphFetcher(pages)
    events: list[CrawlEvent] = []
    cfg = config(strategy, **kwargs)
    gen = crawl(
        [url(s) if s.startswith("/") else s for s in seeds],
        keywords,
        cfg,
        fetcher=fetcher,
        checkpoint=checkpoint,
        on_checkpoint=on_checkpoint,
    )
    async with contextlib.aclosing(gen) as stream:
        async for ev in stream:
            events.append(ev)
            if limit is not None and len(events) >= limit:
                break
    return events


def fetches(events: list[CrawlEvent]) -> list[CrawlEvent]:
    """The fetches' events, in fetch order (end-of-visit decision rows are not fetches)."""
    return [e for e in events if not e.final]


def order(events: list[CrawlEvent]) -> list[str]:
    """The fetched paths, in fetch order (end-of-visit decision rows are not fetches)."""
    return [e.url.removeprefix(BASE) for e in fetches(events)]
