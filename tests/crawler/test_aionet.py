"""The asyncio network backend under httpx: TLS, keep-alive, closed connections, timeouts; and
the connection pool's linear assignment pass, which decides as httpcore's own."""

from __future__ import annotations

import asyncio
import random
import ssl
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import httpcore
import httpx
import pytest

from crawler.aionet import _QUADRATIC_POOLS, AsyncioBackend, assign_linear, use_asyncio_backend

NAME = "localhost"


def _transport(**kwargs: object) -> httpx.AsyncHTTPTransport:
    transport = httpx.AsyncHTTPTransport(trust_env=False, **kwargs)  # type: ignore[arg-type]
    assert use_asyncio_backend(transport)
    return transport


class _Server:
    """HTTP/1.1 on loopback: answers ``GET /n`` with n bytes; counts connections; may close
    each connection after its first answer without saying so, or stay silent."""

    def __init__(self, *, close_after_one: bool = False, silent: bool = False) -> None:
        self.connections = 0
        self.close_after_one, self.silent = close_after_one, silent

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                if self.silent:
                    await asyncio.sleep(5)
                    return
                size = int(head.split(b" ", 2)[1].strip(b"/") or b"0")
                body = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: keep-alive\r\n\r\n"
                    % len(body)
                    + body
                )
                await writer.drain()
                if self.close_after_one:
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        finally:
            writer.close()


@pytest.fixture
async def server() -> AsyncIterator[tuple[_Server, int]]:
    state = _Server()
    srv = await asyncio.start_server(state.handle, "127.0.0.1", 0)
    port = srv.sockets[0].getsockname()[1]
    yield state, port
    srv.close()


async def test_keep_alive_and_large_bodies(server: tuple[_Server, int]) -> None:
    state, port = server
    async with httpx.AsyncClient(transport=_transport()) as client:
        for size in (0, 10, 3_000_000, 50):  # 3 MB: more than the receive buffer's limit
            response = await client.get(f"http://127.0.0.1:{port}/{size}")
            assert response.status_code == 200
            assert len(response.content) == size
        big = await client.get(f"http://127.0.0.1:{port}/70000")
        assert big.content[:256] == bytes(range(256))
    assert state.connections == 1  # one connection served every request


async def test_a_connection_the_server_closed_is_not_reused(server: tuple[_Server, int]) -> None:
    state, port = server
    state.close_after_one = True
    async with httpx.AsyncClient(transport=_transport()) as client:
        for _ in range(3):
            response = await client.get(f"http://127.0.0.1:{port}/20")
            assert response.content == b"x" * 20
            await asyncio.sleep(0.05)  # the server's FIN arrives while the connection is idle
    assert state.connections == 3


async def test_read_timeout_and_refused_connection(server: tuple[_Server, int]) -> None:
    state, port = server
    state.silent = True
    async with httpx.AsyncClient(transport=_transport(), timeout=httpx.Timeout(0.2)) as client:
        with pytest.raises(httpx.ReadTimeout):
            await client.get(f"http://127.0.0.1:{port}/1")
    probe = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    free = probe.sockets[0].getsockname()[1]
    probe.close()
    await probe.wait_closed()
    async with httpx.AsyncClient(transport=_transport()) as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(f"http://127.0.0.1:{free}/1")


@pytest.fixture
def tls(tmp_path: Path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    key, crt = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(crt), "-subj", f"/CN={NAME}",
         "-addext", f"subjectAltName=DNS:{NAME}"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(crt, key)
    return server, ssl.create_default_context(cafile=str(crt))


async def test_https_is_verified_against_the_name(
    tls: tuple[ssl.SSLContext, ssl.SSLContext],
) -> None:
    server_context, trusted = tls
    state = _Server()
    srv = await asyncio.start_server(state.handle, "127.0.0.1", 0, ssl=server_context)
    port = srv.sockets[0].getsockname()[1]
    try:
        async with httpx.AsyncClient(transport=_transport(verify=trusted)) as client:
            for _ in range(2):
                response = await client.get(f"https://{NAME}:{port}/1000")
                assert len(response.content) == 1000
        assert state.connections == 1
        # the system's trust store does not know this certificate: refused
        async with httpx.AsyncClient(transport=_transport()) as client:
            with pytest.raises(httpx.ConnectError):
                await client.get(f"https://{NAME}:{port}/10")
    finally:
        srv.close()


async def test_only_httpcore_pools_are_switched() -> None:
    assert not use_asyncio_backend(httpx.MockTransport(lambda request: httpx.Response(200)))
    proxied = httpx.AsyncHTTPTransport(proxy="http://127.0.0.1:9", trust_env=False)
    assert use_asyncio_backend(proxied)
    assert isinstance(proxied._pool._network_backend, AsyncioBackend)
    await proxied.aclose()


def test_under_uvloop() -> None:
    # the crawl workers run on uvloop, whose transports are not asyncio's classes
    import uvloop

    async def run() -> int:
        state = _Server()
        srv = await asyncio.start_server(state.handle, "127.0.0.1", 0)
        port = srv.sockets[0].getsockname()[1]
        async with httpx.AsyncClient(transport=_transport()) as client:
            for size in (5, 2_500_000, 7):
                assert len((await client.get(f"http://127.0.0.1:{port}/{size}")).content) == size
        srv.close()
        return state.connections

    assert uvloop.run(run()) == 1


class _Conn:
    """A pooled connection's state as the pool's assignment pass reads it."""

    def __init__(self, rng: random.Random, ident: int, origins: list[str]) -> None:
        self.ident = ident
        self.origin = rng.choice(origins)
        self.closed = rng.random() < 0.1
        self.expired = rng.random() < 0.1
        self.idle = rng.random() < 0.6
        self.available = self.idle and rng.random() < 0.8

    def is_closed(self) -> bool:
        return self.closed

    def has_expired(self) -> bool:
        return self.expired

    def is_idle(self) -> bool:
        return self.idle

    def is_available(self) -> bool:
        return self.available

    def can_handle_request(self, origin: str) -> bool:
        return origin == self.origin


class _Request:
    def __init__(self, rng: random.Random, origins: list[str]) -> None:
        self.queued = rng.random() < 0.5
        self.request = SimpleNamespace(url=SimpleNamespace(origin=rng.choice(origins)))
        self.connection: int | None = None

    def is_queued(self) -> bool:
        return self.queued

    def assign_to_connection(self, connection: _Conn) -> None:
        self.connection = connection.ident
        self.queued = False


class _Pool:
    """The attributes of httpcore's ``AsyncConnectionPool`` that the pass reads and writes."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        origins = [f"http://h{i}.test" for i in range(rng.randint(1, 4))]
        self._max_connections = rng.randint(1, 16)
        self._max_keepalive_connections = rng.randint(0, 20)
        self._connections = [_Conn(rng, i, origins) for i in range(rng.randint(0, 20))]
        self._requests = [_Request(rng, origins) for _ in range(rng.randint(0, 20))]
        self._created = 100

    def create_connection(self, origin: str) -> _Conn:
        self._created += 1
        made = _Conn(random.Random(self._created), self._created, [origin])
        made.idle = made.available = False
        return made

    def outcome(self, closing: list[_Conn]) -> tuple[object, ...]:
        return (
            [c.ident for c in closing],
            [c.ident for c in self._connections],
            [(r.queued, r.connection) for r in self._requests],
        )


def test_the_linear_assignment_pass_decides_as_httpcores_own() -> None:
    """Same connections closed, kept and created, same request on each, in the same order,
    over 5,000 random pool states (httpcore's method run on the same state)."""
    original = httpcore.AsyncConnectionPool._assign_requests_to_connections
    for seed in range(5000):
        theirs, ours = _Pool(seed), _Pool(seed)
        assert ours.outcome(assign_linear(ours)) == theirs.outcome(original(theirs)), seed


async def test_the_fetchers_pool_runs_the_linear_pass_on_the_httpcore_it_was_checked_with() -> None:
    transport = httpx.AsyncHTTPTransport(proxy="http://127.0.0.1:9", trust_env=False)
    assert use_asyncio_backend(transport)
    installed = getattr(transport._pool._assign_requests_to_connections, "__func__", None)
    assert (installed is assign_linear) == (httpcore.__version__ in _QUADRATIC_POOLS)
    await transport.aclose()
