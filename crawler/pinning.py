"""An httpx transport that connects only to addresses the URL guard checked.

A client that checks a URL's host name and then lets the HTTP library resolve the name again
leaves a DNS-rebinding window: a hostile DNS server answers a public address to the check and
a private one (TTL 0) a moment later. ``pinned_transport`` closes it for http and https alike:
its network backend resolves the name once, through ``UrlGuard.checked_addresses``, and
opens the TCP connection to one of the addresses that passed. TLS is then started by httpcore
with the URL's host name, so SNI and certificate verification are still against the name.

Connections are pooled per origin (scheme, host, port) as usual, so an https connection is
never shared between two names that happen to live on one address.

Usage::

    async with httpx.AsyncClient(transport=pinned_transport(UrlGuard(allowlist))) as client:
        await client.post(url, ...)

A refused or unresolvable host surfaces as ``httpx.ConnectError`` with the guard's reason.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable

import httpcore
import httpx

from crawler.errors import BlockedURL, NetworkError
from crawler.guard import UrlGuard

__all__ = ["GuardedBackend", "pinned_transport"]


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore network backend: every TCP connection goes to a guard-checked address."""

    def __init__(self, guard: UrlGuard, inner: httpcore.AsyncNetworkBackend | None = None):
        self.guard = guard
        self.inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        shown = f"[{host}]" if ":" in host else host
        try:
            addresses = await self.guard.checked_addresses(f"http://{shown}:{port}/")
        except (BlockedURL, NetworkError) as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        # nothing resolved: an IP literal (checked), or a name the allowlist trusts as such
        targets = addresses or [host]
        error: Exception | None = None
        for address in targets:
            try:
                return await self.inner.connect_tcp(
                    address,
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc
        assert error is not None
        raise error

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are not reachable through the URL guard")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class _PinnedTransport(httpx.AsyncHTTPTransport):
    def __init__(
        self,
        guard: UrlGuard,
        *,
        verify: ssl.SSLContext | bool = True,
        limits: httpx.Limits = httpx.Limits(max_connections=20, max_keepalive_connections=10),
    ) -> None:
        super().__init__(verify=verify, limits=limits, trust_env=False)
        # the same pool httpx builds, with the guarded backend as its only way to the network
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(verify=verify, trust_env=False),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=GuardedBackend(guard),
        )


def pinned_transport(
    guard: UrlGuard, *, verify: ssl.SSLContext | bool = True
) -> httpx.AsyncHTTPTransport:
    """A transport that resolves each host once through ``guard`` and connects to a checked
    address (never to a second, unchecked answer)."""
    return _PinnedTransport(guard, verify=verify)
