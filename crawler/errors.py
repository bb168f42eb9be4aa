"""The crawler's exception tree.

::

    CrawlerError
    ├── FetchError                  a URL could not be fetched (carries ``url``)
    │   ├── BlockedURL              refused by the URL guard (SSRF) or not http(s)
    │   ├── RobotsDisallowed        robots.txt forbids the URL for our User-Agent
    │   ├── TooLarge                body (raw or decoded) over ``max_bytes``
    │   ├── UnsupportedContent      not HTML / XHTML / RSS / Atom
    │   ├── HTTPStatusError         final status not 2xx / 304 (carries ``status``)
    │   ├── FetchTimeout            connect, read or total timeout
    │   ├── TooManyRedirects        more than ``max_redirects`` hops, or a loop
    │   └── NetworkError            connection refused / reset, DNS failure, protocol error
    └── ConfigError                 invalid configuration (bad allowlist entry, proxy, …)

Every error carries a human-readable message that says what happened and, where it helps,
what to do about it. ``FetchError.kind`` is a short stable name used for counters and logs.
"""

from __future__ import annotations

__all__ = [
    "BlockedURL",
    "ConfigError",
    "CrawlerError",
    "FetchError",
    "FetchTimeout",
    "HTTPStatusError",
    "NetworkError",
    "RobotsDisallowed",
    "TooLarge",
    "TooManyRedirects",
    "UnsupportedContent",
]


class CrawlerError(Exception):
    """Base class of every error raised by the crawler library."""


class ConfigError(CrawlerError):
    """The configuration given to a crawler component is invalid."""


class FetchError(CrawlerError):
    """A URL could not be fetched; ``url`` is the URL that failed (maybe a redirect hop)."""

    kind = "fetch"

    def __init__(self, message: str, *, url: str = "") -> None:
        super().__init__(message)
        self.url = url
        self.message = message

    def __str__(self) -> str:
        return self.message


class BlockedURL(FetchError):
    """The URL guard refused the URL: not http(s), or it points at a non-public address."""

    kind = "blocked"


class RobotsDisallowed(FetchError):
    """robots.txt of the host disallows this URL for the configured User-Agent."""

    kind = "robots"


class TooLarge(FetchError):
    """The response body (as received, or after decompression) exceeded the size limit."""

    kind = "too_large"


class UnsupportedContent(FetchError):
    """The response is not HTML, XHTML, RSS or Atom (e.g. an image, a PDF, a zip)."""

    kind = "unsupported"


class HTTPStatusError(FetchError):
    """The server answered with an error status (after retries, for transient ones)."""

    kind = "http_status"

    def __init__(self, status: int, message: str = "", *, url: str = "") -> None:
        super().__init__(message or f"HTTP status {status} from {url or 'server'}", url=url)
        self.status = status
        self.retry_after: float | None = None
        """Seconds the server asked us to wait (429/503 ``Retry-After``), if any."""


class FetchTimeout(FetchError):
    """Connecting, reading or the whole request took longer than its timeout."""

    kind = "timeout"


class TooManyRedirects(FetchError):
    """The redirect chain was longer than ``max_redirects`` or came back to a visited URL."""

    kind = "redirects"


class NetworkError(FetchError):
    """A transport failure: DNS, connection refused or reset, TLS or protocol error."""

    kind = "network"
