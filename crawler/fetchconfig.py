"""How to fetch: ``FetchConfig`` (what ``crawler.fetch.Fetcher`` and the fetch process read).

Its own module, free of the HTTP stack, so that a crawl whose fetching runs in another process
(``crawler.fetchproc``) does not import httpx and the parser just to describe it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_USER_AGENT", "FETCH_PROCESS_MODES", "FetchConfig"]

DEFAULT_USER_AGENT = "TimelyPushBot/0.1 (+https://github.com/timelypush/timelypush)"

FETCH_PROCESS_MODES: dict[str, bool | None] = {"auto": None, "on": True, "off": False}
"""The words command lines offer for ``CrawlConfig.fetch_process`` (auto: decided by the
crawl, see ``crawler.engine``)."""


@dataclass(frozen=True, slots=True)
class FetchConfig:
    """How to fetch. Defaults suit real sites; tests set ``delay=0`` and an allowlist."""

    user_agent: str = DEFAULT_USER_AGENT
    concurrency: int = 16
    """Requests in flight, all hosts together."""
    per_host: int = 2
    """Requests in flight per host (``host:port``)."""
    delay: float = 1.0
    """Seconds between request starts on one host (robots.txt Crawl-delay may raise it)."""
    connect_timeout: float = 10.0
    read_timeout: float = 20.0
    total_timeout: float = 30.0
    """Seconds for one attempt: connect, headers, the whole body."""
    max_bytes: int = 5_000_000
    max_redirects: int = 5
    retries: int = 2
    """Extra attempts after a transient failure (timeout, network, 429, 5xx)."""
    respect_robots: bool = True
    proxy: str | None = None
    """An HTTP(S) proxy URL; target hosts are then resolved by the proxy, not locally."""
    allowlist: tuple[str, ...] = ()
    """Hosts and CIDRs the URL guard lets through although they are private."""
    allow_private: bool = False
    max_retry_after: float = 60.0
    """Cap on a server's Retry-After and Crawl-delay, in seconds."""
    backoff: float = 0.5
    """First retry delay in seconds; doubled on every further retry."""
