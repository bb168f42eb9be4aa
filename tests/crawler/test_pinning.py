"""The pinned transport: one guarded lookup per connection, TLS still verified for the name."""

from __future__ import annotations

import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from crawler import UrlGuard, pinned_transport

NAME = "rebind.test"


class _Server:
    """An HTTPS server on ``host`` answering every GET with 200 and a page titled its own
    address."""

    def __init__(self, host: str, port: int, context: ssl.SSLContext) -> None:
        self.hits: list[str] = []
        server_self = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server_self.hits.append(self.headers.get("host", ""))
                body = f"<html><head><title>{host}</title></head><body></body></html>".encode()
                self.send_response(200)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,))
        self.thread.daemon = True
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def cert(tmp_path: Path) -> Path:
    key, crt = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(crt), "-subj", f"/CN={NAME}",
         "-addext", f"subjectAltName=DNS:{NAME}"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return tmp_path


@pytest.fixture
def servers(cert: Path) -> Iterator[tuple[_Server, _Server]]:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert / "cert.pem", cert / "key.pem")
    good = _Server("127.0.0.1", 0, context)
    evil = _Server("127.0.0.2", good.port, context)  # even with a valid certificate
    yield good, evil
    good.close()
    evil.close()


@pytest.fixture
def rebinding(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    answers: list[str] = []
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if host not in (NAME, NAME.encode()):
            return real(host, port, *args, **kwargs)
        address = "127.0.0.1" if not answers else "127.0.0.2"
        answers.append(address)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(port or 443)))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return answers


async def test_https_connects_to_the_checked_address_and_verifies_the_name(
    servers: tuple[_Server, _Server], rebinding: list[str], cert: Path
) -> None:
    good, evil = servers
    verify = ssl.create_default_context(cafile=str(cert / "cert.pem"))
    guard = UrlGuard(allowlist=["127.0.0.1/32"])
    transport = pinned_transport(guard, verify=verify)
    async with httpx.AsyncClient(transport=transport) as client:
        await guard.check(f"https://{NAME}:{good.port}/")  # the caller's own check first
        with pytest.raises(httpx.ConnectError, match="not a public address"):
            await client.get(f"https://{NAME}:{good.port}/")
    # the lookup made for the connection answered the internal alias: refused, not followed
    assert rebinding == ["127.0.0.1", "127.0.0.2"]
    assert evil.hits == []


async def test_https_pinned_request_succeeds_for_the_name(
    servers: tuple[_Server, _Server], monkeypatch: pytest.MonkeyPatch, cert: Path
) -> None:
    good, evil = servers
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if host not in (NAME, NAME.encode()):
            return real(host, port, *args, **kwargs)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", int(port or 443)))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    verify = ssl.create_default_context(cafile=str(cert / "cert.pem"))
    transport = pinned_transport(UrlGuard(allowlist=["127.0.0.1/32"]), verify=verify)
    async with httpx.AsyncClient(transport=transport) as client:
        response = await client.get(f"https://{NAME}:{good.port}/")
    assert response.status_code == 200 and "<title>127.0.0.1</title>" in response.text
    assert good.hits == [f"{NAME}:{good.port}"] and evil.hits == []


async def test_the_crawler_fetches_https_from_the_address_its_guard_checked(
    servers: tuple[_Server, _Server],
    rebinding: list[str],
    cert: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The crawler checks a seed's name and connects to the address that passed, over https
    as over http: a name that answers an internal address on the second lookup (whose server
    even holds a valid certificate for the name) is never reached."""
    import certifi

    from crawler import BlockedURL, FetchConfig, Fetcher

    monkeypatch.setattr(certifi, "where", lambda: str(cert / "cert.pem"))
    good, evil = servers
    config = FetchConfig(delay=0, respect_robots=False, allowlist=("127.0.0.1/32",))
    async with Fetcher(config) as fetcher:
        page = await fetcher.fetch(f"https://{NAME}:{good.port}/a")
        assert rebinding == ["127.0.0.1"]  # the guard's lookup only: the connection used it
        with pytest.raises(BlockedURL, match="not a public address"):
            await fetcher.fetch(f"https://{NAME}:{good.port}/b")  # the next check sees it
    assert page.title == "127.0.0.1"
    assert good.hits == [f"{NAME}:{good.port}"] and evil.hits == []
