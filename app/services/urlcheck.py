"""User-supplied URLs: normalise, pass the SSRF guard, probe reachability.

Used for concern seed URLs (guard + probe) and webhook URLs (guard only). The guard is the
crawler's ``UrlGuard`` (refuses private, loopback, link-local and reserved addresses after DNS
resolution, except what ``settings.allowlist`` lets through); the probe follows redirects by
hand so that every hop passes the guard too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar
from urllib.parse import urljoin, urlsplit

import httpx

from app.core.config import Settings
from app.core.i18n import N_
from app.services.errors import Invalid

logger = logging.getLogger(__name__)

T = TypeVar("T")

PROBE_TIMEOUT = 8.0
MAX_REDIRECTS = 5


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from synchronous code, inside or outside an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def normalize_url(raw: str, *, field: str = "url") -> str:
    """``raw`` with a scheme (https:// when missing), validated as an http(s) URL."""
    url = (raw or "").strip()
    if not url:
        raise Invalid("Please enter a URL.", code="invalid_url", details={"field": field})
    if "://" not in url:
        url = "https://" + url.lstrip("/")
    try:
        url.encode("utf-8")
        parts = urlsplit(url)
    except ValueError as exc:  # "http://[::1/", a lone surrogate …
        raise Invalid(
            "“%(url)s” is not a valid web address.",
            code="invalid_url",
            details={"field": field},
            params={"url": raw},
        ) from exc
    if parts.scheme.lower() not in ("http", "https"):
        raise Invalid(
            "Only web addresses (http:// or https://) can be used, not %(scheme)s://.",
            code="invalid_url",
            details={"field": field},
            params={"scheme": parts.scheme},
        )
    try:
        host = parts.hostname
        _ = parts.port
    except ValueError as exc:
        raise Invalid(
            "“%(url)s” is not a valid web address.",
            code="invalid_url",
            details={"field": field, "reason": str(exc)},
            params={"url": raw},
        ) from exc
    if not host or any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        raise Invalid(
            "“%(url)s” is not a valid web address.",
            code="invalid_url",
            details={"field": field},
            params={"url": raw},
        )
    if len(url) > 2048:
        raise Invalid(
            "The address is longer than 2048 characters.",
            code="invalid_url",
            details={"field": field},
        )
    return url


def guarded_client(settings: Settings, *, crawl: bool = False, **kwargs: Any) -> httpx.AsyncClient:
    """An httpx client for user-supplied URLs: every connection goes to an address the URL
    guard checked (no second DNS lookup, so no rebinding), over http and https alike.

    With ``crawl`` (a site's address, checked before it is crawled) it goes the crawler's
    way: through ``TIMELYPUSH_PROXY`` when one is set, which then resolves names and must
    itself refuse private destinations. Pushes (webhooks) never take the crawler's proxy.
    """
    if crawl and settings.proxy:
        return httpx.AsyncClient(proxy=settings.proxy, **kwargs)
    from crawler import UrlGuard, pinned_transport

    transport = pinned_transport(UrlGuard(allowlist=settings.allowlist))
    return httpx.AsyncClient(transport=transport, **kwargs)


async def guard(settings: Settings, url: str, *, field: str = "url", crawl: bool = False) -> None:
    """Refuse URLs that resolve to private or otherwise non-public addresses (with ``crawl``,
    a site's address: behind the crawler's proxy its name is the proxy's to resolve)."""
    from crawler import BlockedURL, FetchError, UrlGuard

    resolve = not (crawl and settings.proxy)
    try:
        await UrlGuard(allowlist=settings.allowlist, resolve=resolve).check(url)
    except BlockedURL as exc:
        # the guard's reason names the address the host resolved to: an internal name's
        # address is not the user's to learn
        logger.info("refused a %s: %s is not a public address", field, urlsplit(url).hostname)
        raise Invalid(
            "This address is on a private or local network. Only public websites can be used.",
            code="blocked_url",
            details={"field": field},
        ) from exc
    except FetchError as exc:  # the host name does not resolve
        raise Invalid(
            "The site %(host)s cannot be found. Check the address.",
            code="unreachable",
            details={"field": field, "reason": str(exc)},
            params={"host": urlsplit(url).hostname or url},
        ) from exc


async def probe(settings: Settings, url: str, *, seconds: float = PROBE_TIMEOUT) -> str:
    """Check ``url`` answers (HEAD, then GET when HEAD is refused); return the final URL.

    Raises Invalid with a message that says what went wrong (DNS, refused, timeout, status).
    """
    headers = {"User-Agent": settings.user_agent}
    async with guarded_client(
        settings, crawl=True, timeout=seconds, follow_redirects=False, headers=headers
    ) as client:
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            await guard(settings, current, field="seed_url", crawl=True)
            response = await _request(client, current)
            if response.is_redirect and "location" in response.headers:
                current = urljoin(current, response.headers["location"])
                continue
            if response.status_code >= 400:
                raise Invalid(
                    "The site answered %(url)s with error %(status)s: "
                    "the page does not exist or cannot be read.",
                    code="unreachable",
                    details={"field": "seed_url", "status": response.status_code},
                    params={"url": current, "status": response.status_code},
                )
            return current
    raise Invalid(
        "%(url)s redirects more than %(n)s times; enter the page it finally shows.",
        code="unreachable",
        details={"field": "seed_url"},
        params={"url": url, "n": MAX_REDIRECTS},
    )


async def _request(client: httpx.AsyncClient, url: str) -> httpx.Response:
    host = urlsplit(url).hostname or url
    try:
        response = await client.head(url)
        if response.status_code in (400, 403, 404, 405, 406, 429, 500, 501):
            # many servers refuse or mishandle HEAD: ask again with GET, body unread
            async with client.stream("GET", url) as streamed:
                return streamed
        return response
    except httpx.ConnectTimeout as exc:
        raise _unreachable(N_("Connecting to %(host)s timed out."), host) from exc
    except httpx.TimeoutException as exc:
        raise _unreachable(N_("%(host)s did not answer in time."), host) from exc
    except httpx.ConnectError as exc:
        raise _unreachable(N_("Could not connect to %(host)s."), host, _reason(exc)) from exc
    except httpx.HTTPError as exc:
        raise _unreachable(N_("Could not read %(host)s."), host, _reason(exc)) from exc


def _reason(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return text[:200]


def _unreachable(msgid: str, host: str, reason: str = "") -> Invalid:
    details = {"field": "seed_url", **({"reason": reason} if reason else {})}
    return Invalid(msgid, code="unreachable", details=details, params={"host": host})


def check_seed_url(settings: Settings, raw: str, *, probe_it: bool = True) -> str:
    """The normalised seed URL after the guard and (optionally) the probe.

    When the user typed no scheme and https:// does not answer, http:// is tried.
    """
    url = normalize_url(raw, field="seed_url")
    had_scheme = "://" in raw
    if not probe_it:
        run_sync(guard(settings, url, field="seed_url", crawl=True))
        return url
    try:
        run_sync(probe(settings, url))
        return url
    except Invalid as exc:
        if had_scheme or exc.code != "unreachable":
            raise
        fallback = "http://" + url.removeprefix("https://")
        try:
            run_sync(probe(settings, fallback))
        except Invalid:
            raise exc from None
        return fallback
