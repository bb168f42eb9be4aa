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

A caller that has just checked a URL itself (the crawler's ``Fetcher`` does, to fail early with
the guard's own error) hands the addresses it checked to the connection with
``connect_to(host, addresses)``: a connection opened inside that block for that host goes to
one of them, with no second lookup.

``guarded_sockets(guard)`` does the same for a library that connects through urllib3 (Apprise's
plugins, over ``requests``) while it runs in the calling thread: every connection urllib3
opens there goes to an address the guard checked at that moment, whatever host the library
chose to contact.
"""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import httpcore
import httpx

from crawler.aionet import network_pool
from crawler.errors import BlockedURL, NetworkError
from crawler.guard import UrlGuard

__all__ = [
    "GuardRefused",
    "GuardedBackend",
    "connect_to",
    "guard_backend",
    "guarded_sockets",
    "pinned_transport",
]

_checked: ContextVar[tuple[str, list[str]] | None] = ContextVar("checked_addresses", default=None)
"""The host a ``connect_to`` block was opened for and the addresses its caller checked."""


@contextmanager
def connect_to(host: str, addresses: list[str]) -> Iterator[None]:
    """Inside this block, a new connection to ``host`` goes to one of ``addresses`` (already
    checked by the caller's guard) instead of resolving the name again. A context variable:
    httpcore opens a request's connection in the task that sends the request."""
    token = _checked.set((_host_key(host), addresses) if addresses else None)
    try:
        yield
    finally:
        _checked.reset(token)


def _host_key(host: str) -> str:
    return host.strip("[]").rstrip(".").lower()


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
        checked = _checked.get()
        if checked is not None and checked[0] == _host_key(host):
            addresses = checked[1]
        else:
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


def guard_backend(transport: httpx.AsyncHTTPTransport, guard: UrlGuard) -> bool:
    """Make ``transport`` (built by httpx on httpcore, direct: no proxy) open every connection
    through ``GuardedBackend``, around the network backend it has; False when it is not such
    a transport."""
    pool = network_pool(transport)
    if pool is None:
        return False
    pool._network_backend = GuardedBackend(guard, inner=pool._network_backend)
    return True


def pinned_transport(
    guard: UrlGuard, *, verify: ssl.SSLContext | bool = True
) -> httpx.AsyncHTTPTransport:
    """A transport that resolves each host once through ``guard`` and connects to a checked
    address (never to a second, unchecked answer): httpx's own, with the guarded backend as
    its pool's only way to the network (``guard_backend``)."""
    transport = httpx.AsyncHTTPTransport(
        verify=verify,
        limits=httpx.Limits(max_connections=20, max_keepalive_connections=10),
        trust_env=False,
    )
    if not guard_backend(transport, guard):  # an httpx whose transport is built otherwise
        raise RuntimeError("httpx's transport has no connection pool to guard")
    return transport


class GuardRefused(OSError):
    """A connection the guard refused (an ``OSError``, as a failed connect is, so that the
    library making it fails the request as it fails any unreachable host)."""


_active: ContextVar[tuple[UrlGuard, list[str]] | None] = ContextVar("guarded_sockets", default=None)
"""The guard of the ``guarded_sockets`` block this code runs in, and where its refusals go: a
context variable, so that work the library hands to a thread pool with the caller's context
(Apprise does, for a send with a deadline) is guarded too."""
_hook_lock = threading.Lock()
_original_create_connection: Callable[..., socket.socket] | None = None


def _create_connection(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
    original = _original_create_connection
    assert original is not None  # set before this replaces it
    active = _active.get()
    if active is None:
        return original(address, *args, **kwargs)
    guard, refused = active
    host, port = address
    try:
        addresses = guard.checked_addresses_blocking(host, int(port))
    except (BlockedURL, NetworkError) as exc:
        refused.append(str(exc))
        raise GuardRefused(str(exc)) from exc
    error: OSError | None = None
    for target in addresses or [host]:
        try:
            return original((target, port), *args, **kwargs)
        except OSError as exc:
            error = exc
    assert error is not None
    raise error


@contextmanager
def guarded_sockets(guard: UrlGuard) -> Iterator[list[str]]:
    """While the block runs, every connection urllib3 opens in its context (this thread, and
    work handed to others with a copy of the context) goes to an address ``guard`` checked
    when it connected; other code connects as before. Yields the list of the guard's reasons
    for the connections it refused."""
    global _original_create_connection
    from urllib3.util import connection

    with _hook_lock:
        if _original_create_connection is None:
            _original_create_connection = connection.create_connection
            connection.create_connection = _create_connection
    refused: list[str] = []
    token = _active.set((guard, refused))
    try:
        yield refused
    finally:
        _active.reset(token)
