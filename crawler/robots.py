"""robots.txt, fetched once per host and cached, parsed with Protego (Scrapy's parser).

Policy (RFC 9309): a 2xx answer is parsed; a 4xx answer (no robots.txt) allows everything; a
5xx answer, a network failure or a timeout disallows the whole host for a short while (the
site may be down or overloaded — the crawler should not hammer it). ``Crawl-delay`` for our
User-Agent is reported so the politeness layer can honour it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from protego import Protego

from crawler.errors import FetchError, RobotsDisallowed

__all__ = ["RobotsCache", "RobotsRules"]

logger = logging.getLogger(__name__)

RobotsFetch = Callable[[str], Awaitable[tuple[int, str]]]
"""Fetches a robots.txt URL: returns (status, text); raises FetchError on failure."""


@dataclass(slots=True)
class RobotsRules:
    """The robots.txt decision for one host at one time."""

    parser: Protego | None
    """None: no usable rules (see ``allow_all``)."""
    allow_all: bool
    reason: str
    """Why the rules are what they are (for messages): "robots.txt", "no robots.txt (404)" …"""
    expires: float

    def allowed(self, url: str, user_agent: str) -> bool:
        if self.parser is None:
            return self.allow_all
        return bool(self.parser.can_fetch(url, user_agent))

    def crawl_delay(self, user_agent: str) -> float | None:
        if self.parser is None:
            return None
        delay = self.parser.crawl_delay(user_agent)
        return float(delay) if delay is not None else None


def robots_url(url: str) -> str:
    """The robots.txt URL of the site of ``url`` (scheme, host and port kept)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/robots.txt"


class RobotsCache:
    """robots.txt rules per site, fetched lazily (one fetch per site at a time) and cached."""

    def __init__(
        self,
        fetch: RobotsFetch,
        user_agent: str,
        *,
        ttl: float = 3600.0,
        error_ttl: float = 300.0,
    ) -> None:
        self._fetch = fetch
        self.user_agent = user_agent
        self.ttl = ttl
        self.error_ttl = error_ttl
        self._rules: dict[str, RobotsRules] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def rules(self, url: str) -> RobotsRules:
        """The cached (or freshly fetched) rules of the site of ``url``."""
        key = robots_url(url)
        cached = self._rules.get(key)
        if cached is not None and cached.expires > time.monotonic():
            return cached
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            cached = self._rules.get(key)
            if cached is not None and cached.expires > time.monotonic():
                return cached
            rules = await self._load(key)
            self._rules[key] = rules
            return rules

    async def _load(self, key: str) -> RobotsRules:
        now = time.monotonic()
        try:
            status, text = await self._fetch(key)
        except FetchError as exc:
            logger.info("robots.txt %s unreachable (%s): host disallowed for now", key, exc)
            return RobotsRules(None, False, f"robots.txt unreachable ({exc})", now + self.error_ttl)
        if 200 <= status < 300:
            try:
                parser = Protego.parse(text)
            except Exception as exc:  # a parser bug must not stop the crawl
                logger.warning("robots.txt %s unparseable: %s", key, exc)
                return RobotsRules(None, True, "robots.txt unparseable", now + self.ttl)
            return RobotsRules(parser, True, "robots.txt", now + self.ttl)
        if 400 <= status < 500 and status != 429:
            return RobotsRules(None, True, f"no robots.txt ({status})", now + self.ttl)
        logger.info("robots.txt %s answered %s: host disallowed for now", key, status)
        return RobotsRules(None, False, f"robots.txt answered {status}", now + self.error_ttl)

    async def check(self, url: str) -> None:
        """Raise RobotsDisallowed if robots.txt forbids ``url`` for our User-Agent."""
        rules = await self.rules(url)
        if rules.allowed(url, self.user_agent):
            return
        if rules.parser is not None:
            why = f"robots.txt of {urlsplit(url).netloc} disallows this URL"
        else:
            why = f"{rules.reason}; the site is not crawled until it answers"
        raise RobotsDisallowed(f"{url}: {why} for User-Agent {self.user_agent!r}", url=url)

    async def crawl_delay(self, url: str) -> float | None:
        """The ``Crawl-delay`` (seconds) robots.txt asks of us, or None."""
        return (await self.rules(url)).crawl_delay(self.user_agent)
