"""An httpcore network backend on plain asyncio protocols, for the fetcher's httpx client.

httpx (through httpcore) reaches the network through ``anyio`` by default. For a crawler that
keeps 16 connections busy that layer costs more CPU than the HTTP parsing itself: every read
and write opens a cancel scope, and every time the connection pool hands out a request it asks
each idle connection whether its socket became readable (a server-side close), which anyio
answers by building a dictionary of attribute getters and polling the raw socket. Here a
connection is an ``asyncio.Protocol`` with a receive buffer: a read returns buffered bytes
without waiting (or waits with ``asyncio.timeout``), and "readable" is "bytes or end of stream
already received" — the same answer, from memory.

The HTTP semantics (connection pool, keep-alive, proxies, TLS verification, timeouts and their
exceptions) are httpcore's and httpx's, unchanged; only the byte transport differs, and the
pool's pass that hands requests to connections runs in linear time with the same decisions
(``assign_linear``).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import types
from collections.abc import Iterable
from typing import Any, cast

import httpcore

__all__ = ["AsyncioBackend", "network_pool", "use_asyncio_backend"]

_HIGH_WATER = 1 << 20
"""Stop reading from the socket when this many bytes wait in the buffer (flow control)."""


class _Connection(asyncio.Protocol):
    """Receive buffer, end-of-stream flag and flow control of one TCP (or TLS) connection."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.eof = False
        self.error: BaseException | None = None
        self.reading_paused = False
        self.writing_paused = False
        self._data: asyncio.Future[None] | None = None
        self._drained: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's are not subclasses

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > _HIGH_WATER and self.transport and not self.reading_paused:
            self.transport.pause_reading()
            self.reading_paused = True
        self._wake_reader()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake_reader()
        return False  # let the transport close itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        self._wake_reader()
        self.resume_writing()

    def pause_writing(self) -> None:
        self.writing_paused = True

    def resume_writing(self) -> None:
        self.writing_paused = False
        if self._drained is not None and not self._drained.done():
            self._drained.set_result(None)

    def _wake_reader(self) -> None:
        if self._data is not None and not self._data.done():
            self._data.set_result(None)

    async def wait_data(self) -> None:
        self._data = asyncio.get_running_loop().create_future()
        try:
            await self._data
        finally:
            self._data = None

    async def wait_drained(self) -> None:
        self._drained = asyncio.get_running_loop().create_future()
        try:
            await self._drained
        finally:
            self._drained = None


class AsyncioStream(httpcore.AsyncNetworkStream):
    """One connection as httpcore sees it (``read``, ``write``, ``start_tls``, ...)."""

    def __init__(self, transport: asyncio.Transport, connection: _Connection) -> None:
        self._transport = transport
        self._connection = connection

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # noqa: ASYNC109 (httpcore's interface)
        conn = self._connection
        if not conn.buffer and not conn.eof:
            try:
                async with asyncio.timeout(timeout):
                    while not conn.buffer and not conn.eof:
                        await conn.wait_data()
            except TimeoutError as exc:
                raise httpcore.ReadTimeout(f"no data within {timeout}s") from exc
        if not conn.buffer:
            if conn.error is not None:
                raise httpcore.ReadError(str(conn.error)) from conn.error
            return b""
        data = bytes(conn.buffer[:max_bytes])
        del conn.buffer[:max_bytes]
        if conn.reading_paused and len(conn.buffer) < _HIGH_WATER // 2:
            conn.reading_paused = False
            self._transport.resume_reading()
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # noqa: ASYNC109
        if not buffer:
            return
        conn = self._connection
        if self._transport.is_closing() or (conn.eof and conn.error is not None):
            raise httpcore.WriteError("the connection is closed")
        try:
            self._transport.write(buffer)
        except (OSError, RuntimeError) as exc:
            raise httpcore.WriteError(str(exc)) from exc
        if conn.writing_paused:
            try:
                async with asyncio.timeout(timeout):
                    while conn.writing_paused and not self._transport.is_closing():
                        await conn.wait_drained()
            except TimeoutError as exc:
                raise httpcore.WriteTimeout(f"could not send within {timeout}s") from exc
        if conn.error is not None:
            raise httpcore.WriteError(str(conn.error)) from conn.error

    async def aclose(self) -> None:
        self._transport.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport = await loop.start_tls(
                    self._transport,
                    self._connection,
                    ssl_context,
                    server_hostname=server_hostname,
                )
        except TimeoutError as exc:
            self._transport.abort()
            raise httpcore.ConnectTimeout(f"TLS handshake not done within {timeout}s") from exc
        except (OSError, ssl.SSLError, ConnectionError) as exc:
            self._transport.abort()
            raise httpcore.ConnectError(str(exc)) from exc
        if transport is None:  # pragma: no cover (the loop gave up on the handshake)
            raise httpcore.ConnectError("TLS handshake failed")
        self._connection.transport = transport
        return AsyncioStream(transport, self._connection)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":  # bytes or the end of the stream arrived: not idle any more
            return bool(self._connection.buffer) or self._connection.eof
        if info == "ssl_object":
            return self._transport.get_extra_info("ssl_object")
        if info == "client_addr":
            return self._transport.get_extra_info("sockname")
        if info == "server_addr":
            return self._transport.get_extra_info("peername")
        if info == "socket":
            return self._transport.get_extra_info("socket")
        return None


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    """httpcore network backend: TCP connections as ``asyncio`` protocols (see module doc)."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport, connection = await loop.create_connection(
                    _Connection,
                    host,
                    port,
                    local_addr=(local_address, 0) if local_address else None,
                )
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(
                f"{host}:{port}: no connection within {timeout}s"
            ) from exc
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        sock: socket.socket | None = transport.get_extra_info("socket")
        for option in socket_options or ():
            if sock is not None:
                sock.setsockopt(*option)
        return AsyncioStream(transport, connection)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are not used by the crawler")

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


def network_pool(transport: Any) -> httpcore.AsyncConnectionPool | None:
    """The connection pool of an ``httpx.AsyncHTTPTransport`` built on httpcore, whose network
    backend can be replaced; None for any other transport."""
    pool = getattr(transport, "_pool", None)
    if not isinstance(pool, httpcore.AsyncConnectionPool) or not hasattr(pool, "_network_backend"):
        return None
    return pool


def use_asyncio_backend(transport: Any) -> bool:
    """Make an ``httpx.AsyncHTTPTransport`` (direct, HTTP or SOCKS proxy) open its connections
    with ``AsyncioBackend``, and give its pool a linear assignment pass (``assign_linear``);
    False when the transport is not one httpx built on httpcore."""
    pool = network_pool(transport)
    if pool is None:
        return False
    pool._network_backend = AsyncioBackend()
    if httpcore.__version__ in _QUADRATIC_POOLS:
        pool._assign_requests_to_connections = types.MethodType(assign_linear, pool)  # type: ignore[method-assign]
    return True


_QUADRATIC_POOLS = frozenset({"1.0.9"})
"""httpcore releases whose ``AsyncConnectionPool._assign_requests_to_connections`` is the one
``assign_linear`` gives the same results as (checked by tests/crawler/test_aionet.py)."""


def assign_linear(pool: Any) -> list[Any]:
    """httpcore's ``AsyncConnectionPool._assign_requests_to_connections``, with the same results
    in linear time. The pool runs it whenever a request arrives or leaves. httpcore 1.0.9 asks
    every connection whether it is idle once per idle connection (``len([c.is_idle() for c in
    connections])``, which is just the number of connections), and lists every available and
    every idle connection for each queued request where it uses the first: with 16 connections
    through a proxy, 600 state queries per request, a tenth of the fetch process's CPU.

    Returns the connections to close, as httpcore's does."""
    connections = pool._connections
    closing: list[Any] = []
    # closed, expired and surplus idle connections leave the pool, as in httpcore
    for connection in list(connections):
        if connection.is_closed():
            connections.remove(connection)
        elif connection.has_expired() or (
            connection.is_idle() and len(connections) > pool._max_keepalive_connections
        ):
            connections.remove(connection)
            closing.append(connection)
    # queued requests: an available connection for the origin, else a new one, else a new one
    # in place of the first idle connection
    for request in [r for r in pool._requests if r.is_queued()]:
        origin = request.request.url.origin
        connection = next(
            (c for c in connections if c.can_handle_request(origin) and c.is_available()), None
        )
        if connection is None:
            if len(connections) >= pool._max_connections:
                idle = next((c for c in connections if c.is_idle()), None)
                if idle is None:
                    continue  # the request stays queued
                connections.remove(idle)
                closing.append(idle)
            connection = pool.create_connection(origin)
            connections.append(connection)
        request.assign_to_connection(connection)
    return closing
