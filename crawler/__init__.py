"""The focused crawler: fetch, robots, parse, text, relevance, link ranking, frontier, engine.

A library: no application, no database, no environment variables. Configuration comes in as
arguments. The public API is what ``__all__`` lists.
"""

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
from crawler.fetch import FetchConfig, Fetcher
from crawler.fingerprint import content_hash, hamming, near_duplicate, simhash
from crawler.guard import UrlGuard, ensure_public_url
from crawler.judgment import JUDGE_DEFAULTS, SENSITIVITY, Example, Judge, Judgment
from crawler.pagekind import HUB, ITEM, PageKind
from crawler.parse import decode_body, parse_html
from crawler.pinning import GuardedBackend, pinned_transport
from crawler.profile import TopicProfile
from crawler.relevance import Relevance, score_page
from crawler.types import Link, Page
from crawler.urls import canonicalize, host_of, in_scope, registered_domain, trap_reason

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
