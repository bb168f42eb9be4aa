"""The focused crawler: fetch, robots, parse, text, relevance, link ranking, frontier, engine.

A library: no application, no database, no environment variables. Configuration comes in as
arguments. The public API is what ``__all__`` lists.

Its names are imported on first use (PEP 562), so that a process which needs one part — the
fetch process needs only ``crawler.fetch`` — does not pay for loading the rest.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crawler.engine import CrawlConfig, CrawlEvent, crawl
    from crawler.errors import (
        BlockedURL,
        ConfigError,
        CrawlerError,
        FetchError,
        FetchTimeout,
        HTTPStatusError,
        NetworkError,
        RobotsDisallowed,
        TooLarge,
        TooManyRedirects,
        UnsupportedContent,
    )
    from crawler.fetch import Fetcher
    from crawler.fetchconfig import FetchConfig
    from crawler.fingerprint import content_hash, hamming, near_duplicate, simhash
    from crawler.guard import UrlGuard, ensure_public_url
    from crawler.judgment import JUDGE_DEFAULTS, SENSITIVITY, Example, Judge, Judgment
    from crawler.pagekind import HUB, ITEM, PageKind
    from crawler.parse import decode_body, parse_html
    from crawler.pinning import GuardedBackend, pinned_transport
    from crawler.profile import TopicProfile
    from crawler.relevance import Relevance, score_page
    from crawler.steering import forget_items
    from crawler.types import Link, Page
    from crawler.urls import canonicalize, host_of, in_scope, registered_domain, trap_reason

_SOURCES: dict[str, str] = {
    "CrawlConfig": "crawler.engine",
    "CrawlEvent": "crawler.engine",
    "crawl": "crawler.engine",
    "BlockedURL": "crawler.errors",
    "ConfigError": "crawler.errors",
    "CrawlerError": "crawler.errors",
    "FetchError": "crawler.errors",
    "FetchTimeout": "crawler.errors",
    "HTTPStatusError": "crawler.errors",
    "NetworkError": "crawler.errors",
    "RobotsDisallowed": "crawler.errors",
    "TooLarge": "crawler.errors",
    "TooManyRedirects": "crawler.errors",
    "UnsupportedContent": "crawler.errors",
    "FetchConfig": "crawler.fetchconfig",
    "Fetcher": "crawler.fetch",
    "content_hash": "crawler.fingerprint",
    "hamming": "crawler.fingerprint",
    "near_duplicate": "crawler.fingerprint",
    "simhash": "crawler.fingerprint",
    "UrlGuard": "crawler.guard",
    "ensure_public_url": "crawler.guard",
    "JUDGE_DEFAULTS": "crawler.judgment",
    "SENSITIVITY": "crawler.judgment",
    "Example": "crawler.judgment",
    "Judge": "crawler.judgment",
    "Judgment": "crawler.judgment",
    "HUB": "crawler.pagekind",
    "ITEM": "crawler.pagekind",
    "PageKind": "crawler.pagekind",
    "decode_body": "crawler.parse",
    "parse_html": "crawler.parse",
    "GuardedBackend": "crawler.pinning",
    "pinned_transport": "crawler.pinning",
    "TopicProfile": "crawler.profile",
    "Relevance": "crawler.relevance",
    "score_page": "crawler.relevance",
    "forget_items": "crawler.steering",
    "Link": "crawler.types",
    "Page": "crawler.types",
    "canonicalize": "crawler.urls",
    "host_of": "crawler.urls",
    "in_scope": "crawler.urls",
    "registered_domain": "crawler.urls",
    "trap_reason": "crawler.urls",
}
"""Each public name → the module that defines it."""


def __getattr__(name: str) -> Any:
    module = _SOURCES.get(name)
    if module is None:
        raise AttributeError(f"module 'crawler' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "HUB",
    "ITEM",
    "JUDGE_DEFAULTS",
    "SENSITIVITY",
    "BlockedURL",
    "ConfigError",
    "CrawlConfig",
    "CrawlEvent",
    "CrawlerError",
    "Example",
    "FetchConfig",
    "FetchError",
    "FetchTimeout",
    "Fetcher",
    "GuardedBackend",
    "HTTPStatusError",
    "Judge",
    "Judgment",
    "Link",
    "NetworkError",
    "Page",
    "PageKind",
    "Relevance",
    "RobotsDisallowed",
    "TooLarge",
    "TooManyRedirects",
    "TopicProfile",
    "UnsupportedContent",
    "UrlGuard",
    "canonicalize",
    "content_hash",
    "crawl",
    "decode_body",
    "ensure_public_url",
    "forget_items",
    "hamming",
    "host_of",
    "in_scope",
    "near_duplicate",
    "parse_html",
    "pinned_transport",
    "registered_domain",
    "score_page",
    "simhash",
    "trap_reason",
]
