"""The fetcher: one URL in, one parsed ``Page`` out — safely, politely, within limits.

For every request: the URL guard (SSRF) checks the URL, robots.txt is consulted (cached per
site), the politeness layer grants a per-host slot, and the response is streamed with
connect / read / total timeouts and a size limit counted on the wire and after decompression.
Redirects are followed by hand (at most ``max_redirects``), every hop re-checked by the guard
and robots.txt. Non-HTML is refused from the headers before the body is read. A 304 to a
conditional GET returns ``Page(not_modified=True)``. 429/503 back the host off for its
``Retry-After`` (capped); timeouts, network errors and 5xx are retried with exponential
backoff. Failures raise the ``FetchError`` subclasses of ``crawler.errors`` and are counted
in ``Fetcher.stats``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.utils
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from http.cookiejar import Cookie, CookieJar
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

import httpx

from crawler.aionet import use_asyncio_backend
from crawler.body import ACCEPT, ACCEPT_ENCODING, content_kind, read_limited, sniff_markup
from crawler.errors import (
    BlockedURL,
    ConfigError,
    FetchError,
    FetchTimeout,
    HTTPStatusError,
    NetworkError,
    TooLarge,
    TooManyRedirects,
)
from crawler.fetchconfig import DEFAULT_USER_AGENT, FetchConfig
from crawler.guard import UrlGuard
from crawler.parse import parse_html
from crawler.pinning import connect_to, guard_backend
from crawler.politeness import Politeness
from crawler.robots import RobotsCache
from crawler.types import Page
from crawler.urls import canonicalize, host_site

__all__ = ["DEFAULT_USER_AGENT", "FetchConfig", "Fetcher"]

logger = logging.getLogger(__name__)

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_ROBOTS_MAX_BYTES = 512_000


class _AllSites(CookieJar):
    """Every site's cookies as one jar, for what reads the client's jar whole (httpx following
    redirects itself, a caller listing ``client.cookies``); a cookie set on it goes to its
    site's jar."""

    def __init__(self, sites: dict[str, httpx.Cookies]) -> None:
        super().__init__()
        self._sites = sites

    def __iter__(self) -> Iterator[Cookie]:
        for jar in list(self._sites.values()):
            yield from jar.jar

    def __len__(self) -> int:
        return sum(len(jar.jar) for jar in self._sites.values())

    def set_cookie(self, cookie: Cookie) -> None:
        key = host_site(cookie.domain.lstrip("."))
        self._sites.setdefault(key, httpx.Cookies()).jar.set_cookie(cookie)


class _SiteCookies(httpx.Cookies):
    """The client's cookies, one standard-library jar per site (``host_site``; a jar may
    hold more than one site, and the standard library's jar still matches each cookie): a
    cookie is set by a host of its site and applies only to hosts of that site, so a request
    reads, and clears the expired cookies of, its own site's jar only."""

    def __init__(self) -> None:
        super().__init__()
        self.sites: dict[str, httpx.Cookies] = {}
        self.jar = _AllSites(self.sites)

    def site(self, url: httpx.URL) -> httpx.Cookies | None:
        if not self.sites:  # no site has set a cookie (the public suffix list stays unread)
            return None
        return self.sites.get(host_site(url.host))

    def extract_cookies(self, response: httpx.Response) -> None:
        headers = response.headers
        if "set-cookie" not in headers and "set-cookie2" not in headers:
            return  # nothing to store: the jar would look and find nothing (6 µs a response)
        key = host_site(response.request.url.host)
        self.sites.setdefault(key, httpx.Cookies()).extract_cookies(response)


class CrawlClient(httpx.AsyncClient):
    """httpx's client, with its cookies kept per site and picked for each request from its
    site's jar instead of the whole jar being copied into the request.

    Once any site has set a cookie, httpx copies the client's jar into every request it builds,
    twice (``_merge_cookies``, then ``Request``), and the standard library's jar then walks
    every cookie again to clear expired ones: 17 µs per request with an empty jar, 0.55 ms
    with 100 cookies, 5 ms with 1,000, and a crawl across hosts gathers them. The ``Cookie``
    header is the same as httpx's own (``tests/crawler/test_fetch.py`` compares them) except
    where the standard library lets one site reach another's cookies: an expired
    ``Set-Cookie`` from any host deletes a matching cookie of another site, and an IP host may
    set a cookie for a partial address (``Domain=.0.0.1``) that is then sent to other
    addresses; and suffixes the standard library accepts as cookie domains that the public
    suffix list does not (``me.uk``, ``kawasaki.jp``, ``local``). Per-site jars confine all of
    these to the site, as browsers do. Per-request ``cookies=`` keep httpx's merge.

    Made for the fetcher, which only sends and receives: ``client.cookies`` lists every site's
    cookies, but its ``clear`` and ``delete`` act on none of them, and a cookie set on it by
    domain is filed under that domain, which for ``localhost`` (stored as ``localhost.local``)
    and punycode names is not the jar the host's requests read."""

    def __init__(self, **kwargs: Any) -> None:
        self._site_cookies = _SiteCookies()
        super().__init__(**kwargs)
        self.cookies = kwargs.get("cookies")

    @property
    def cookies(self) -> httpx.Cookies:
        return self._site_cookies

    @cookies.setter
    def cookies(self, cookies: Any) -> None:
        jar = _SiteCookies()
        for cookie in httpx.Cookies(cookies).jar:
            jar.jar.set_cookie(cookie)
        self._site_cookies = jar

    def _merge_cookies(self, cookies: Any = None) -> Any:
        if cookies is None:
            return None  # the site's cookies are added by build_request
        return super()._merge_cookies(cookies)

    def build_request(self, method: str, url: httpx.URL | str, **kwargs: Any) -> httpx.Request:
        if kwargs.get("cookies") is None and "" in self._site_cookies.sites:
            kwargs["cookies"] = {}  # cookies set without a domain go to every host: httpx's merge
        request = super().build_request(method, url, **kwargs)
        if kwargs.get("cookies") is None:
            jar = self._site_cookies.site(request.url)
            if jar:
                jar.set_cookie_header(request)
        return request


@dataclass(slots=True)
class _Response:
    status: int
    url: str
    headers: httpx.Headers
    body: bytes = b""
    kind: str = "html"


class Fetcher:
    """Fetches and parses pages (see the module docstring). Use as an async context manager.

    ``client``: an ``httpx.AsyncClient`` to use (e.g. with a ``MockTransport``); the fetcher
    then does not close it, and the client's own proxy settings apply.
    """

    def __init__(
        self, config: FetchConfig | None = None, *, client: httpx.AsyncClient | None = None
    ):
        self.config = config = config or FetchConfig()
        self.stats: Counter[str] = Counter()
        self.guard = UrlGuard(config.allowlist, config.allow_private, resolve=config.proxy is None)
        self.politeness = Politeness(
            concurrency=config.concurrency, per_host=config.per_host, delay=config.delay
        )
        self.robots = RobotsCache(self._fetch_robots, config.user_agent)
        self._timeout = httpx.Timeout(
            connect=config.connect_timeout,
            read=config.read_timeout,
            write=config.read_timeout,
            pool=config.total_timeout,
        )
        self._own_client = client is None
        if client is None:
            try:
                transport = httpx.AsyncHTTPTransport(
                    proxy=config.proxy,
                    trust_env=False,
                    limits=httpx.Limits(max_connections=max(1, config.concurrency)),
                )
            except (ValueError, TypeError, httpx.InvalidURL) as exc:
                raise ConfigError(f"invalid proxy {config.proxy!r}: {exc}") from exc
            use_asyncio_backend(transport)  # plain asyncio sockets: less CPU per request
            if config.proxy is None:  # every connection to an address the guard passed
                guard_backend(transport, self.guard)
            client = CrawlClient(
                timeout=self._timeout,
                follow_redirects=False,
                transport=transport,
                trust_env=False,
            )
        self.client = client

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._own_client:
            await self.client.aclose()

    # --- public ---------------------------------------------------------------------------

    async def fetch(
        self, url: str, *, etag: str | None = None, last_modified: str | None = None
    ) -> Page:
        """Fetch and parse ``url``; raises a ``FetchError`` subclass when it cannot."""
        canonical = canonicalize(url)
        if canonical is None:
            self.stats["blocked"] += 1
            raise BlockedURL(f"refused {url!r}: not an http(s) URL", url=url)
        started = time.perf_counter()
        attempt = 0
        while True:
            try:
                page = await self._attempt(canonical, etag, last_modified)
            except FetchError as exc:
                if isinstance(exc, HTTPStatusError) and exc.retry_after is not None:
                    # the host asked for a pause: every request to it waits, retried or not
                    wait = min(exc.retry_after, self.config.max_retry_after)
                    self.politeness.back_off(_host_key(exc.url), wait)
                if attempt >= self.config.retries or not self._transient(exc):
                    self.stats[exc.kind] += 1
                    raise
                attempt += 1
                self.stats["retries"] += 1
                await self._back_off(exc, attempt)
                continue
            page.elapsed_ms = (time.perf_counter() - started) * 1000
            self.stats["not_modified" if page.not_modified else "ok"] += 1
            return page

    # --- one attempt ----------------------------------------------------------------------

    @staticmethod
    def _transient(exc: FetchError) -> bool:
        if isinstance(exc, HTTPStatusError):
            return exc.status in _RETRY_STATUSES
        return isinstance(exc, FetchTimeout | NetworkError)

    async def _back_off(self, exc: FetchError, attempt: int) -> None:
        wait = self.config.backoff * 2 ** (attempt - 1)
        if isinstance(exc, HTTPStatusError) and exc.retry_after is not None:
            wait = min(exc.retry_after, self.config.max_retry_after)
        logger.info("retry %d of %s in %.1fs after %s", attempt, exc.url, wait, exc)
        self.politeness.back_off(_host_key(exc.url), wait)

    async def _attempt(self, url: str, etag: str | None, last_modified: str | None) -> Page:
        try:
            async with asyncio.timeout(self.config.total_timeout):
                response = await self._follow(url, etag, last_modified, robots=True)
        except TimeoutError as exc:
            raise FetchTimeout(
                f"{url}: no complete answer within {self.config.total_timeout:g}s", url=url
            ) from exc
        headers = response.headers
        if response.status == 304:
            return Page(
                url=url,
                final_url=response.url,
                status=304,
                etag=headers.get("etag") or etag,
                last_modified=headers.get("last-modified") or last_modified,
                not_modified=True,
            )
        page = parse_html(
            response.body,
            response.url,
            status=response.status,
            content_type=headers.get("content-type"),
        )
        page.url = url
        page.etag = headers.get("etag")
        page.last_modified = headers.get("last-modified")
        return page

    async def _follow(
        self, url: str, etag: str | None, last_modified: str | None, *, robots: bool
    ) -> _Response:
        current = url
        seen = {url}
        for _ in range(self.config.max_redirects + 1):
            addresses = await self.guard.checked_addresses(current)
            if robots and self.config.respect_robots:
                await self.robots.check(current)
            with connect_to(urlsplit(current).hostname or "", addresses):
                response = await self._request(current, etag, last_modified, for_robots=not robots)
            if response.status not in _REDIRECTS:
                return response
            location = response.headers.get("location", "").strip()
            if not location:
                raise HTTPStatusError(
                    response.status, f"{current}: redirect without a Location", url=current
                )
            target = canonicalize(location, current)
            if target is None:
                raise BlockedURL(
                    f"refused redirect from {current} to {location!r}: not an http(s) URL",
                    url=current,
                )
            if target in seen:
                raise TooManyRedirects(f"{url}: redirect loop back to {target}", url=url)
            seen.add(target)
            current = target
        raise TooManyRedirects(f"{url}: more than {self.config.max_redirects} redirects", url=url)

    async def _request(
        self,
        url: str,
        etag: str | None,
        last_modified: str | None,
        *,
        for_robots: bool,
    ) -> _Response:
        """One GET (a new connection goes to an address ``_follow`` checked: see
        ``crawler.pinning.connect_to``)."""
        headers = {
            "User-Agent": self.config.user_agent,
            "Accept": ACCEPT,
            "Accept-Encoding": ACCEPT_ENCODING,
            "Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8",
        }
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        delay = None
        if self.config.respect_robots and not for_robots:
            crawl_delay = await self.robots.crawl_delay(url)
            if crawl_delay is not None:
                delay = min(crawl_delay, self.config.max_retry_after)
        async with self.politeness.slot(_host_key(url), delay=delay):
            try:
                async with self.client.stream(
                    "GET",
                    url,
                    headers=headers,
                    follow_redirects=False,
                    timeout=self._timeout,
                ) as resp:
                    return await self._read(resp, url, for_robots=for_robots)
            except httpx.TimeoutException as exc:
                raise FetchTimeout(f"{url}: {type(exc).__name__} ({exc})", url=url) from exc
            except (httpx.TransportError, httpx.InvalidURL) as exc:
                raise NetworkError(f"{url}: {type(exc).__name__} ({exc})", url=url) from exc

    async def _read(self, resp: httpx.Response, url: str, *, for_robots: bool) -> _Response:
        status = resp.status_code
        result = _Response(status, url, resp.headers)
        if status in _REDIRECTS or status == 304:
            return result
        if status >= 400:
            if for_robots:  # robots.txt: the status is the answer
                return result
            error = HTTPStatusError(status, f"{url}: HTTP {status} {resp.reason_phrase}", url=url)
            error.retry_after = _retry_after(resp.headers.get("retry-after"))
            raise error
        if not for_robots:
            kind = content_kind(resp.headers.get("content-type"), url)
            result.kind = kind
        declared = resp.headers.get("content-length", "")
        limit = _ROBOTS_MAX_BYTES if for_robots else self.config.max_bytes
        if declared.isdigit() and int(declared) > limit and not for_robots:
            raise TooLarge(f"{url}: Content-Length {declared} exceeds {limit} bytes", url=url)
        chunks, encoding = resp.aiter_raw(), resp.headers.get("content-encoding", "")
        if resp.is_stream_consumed:  # a client that read (and decoded) it, e.g. MockTransport
            chunks, encoding = _single(resp.content), ""
        body = await read_limited(
            chunks,
            content_encoding=encoding,
            max_bytes=limit,
            url=url,
        )
        if not for_robots and result.kind != "feed":
            sniff_markup(body, url)
        result.body = body
        return result

    async def _fetch_robots(self, robots_url: str) -> tuple[int, str]:
        """robots.txt for RobotsCache: guarded, redirects followed, 512 KB at most."""
        try:
            async with asyncio.timeout(self.config.total_timeout):
                response = await self._follow(robots_url, None, None, robots=False)
        except TimeoutError as exc:
            raise FetchTimeout(f"{robots_url}: timed out", url=robots_url) from exc
        if response.status >= 400:
            return response.status, ""
        return response.status, response.body.decode("utf-8", errors="replace")


async def _single(data: bytes) -> AsyncIterator[bytes]:
    yield data


def _host_key(url: str) -> str:
    parts = urlsplit(url)
    return parts.netloc.lower() or url


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return max(0.0, (when - dt.datetime.now(dt.UTC)).total_seconds())
