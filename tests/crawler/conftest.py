"""Crawler test fixtures: a real loopback web server and fetch settings that may reach it."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from crawler.fetch import FetchConfig
from tests.crawler.server import TestWeb


@pytest.fixture
def web() -> Iterator[TestWeb]:
    """A fresh loopback HTTP server with no routes (tests add theirs)."""
    server = TestWeb().start()
    yield server
    server.stop()


@pytest.fixture
def config() -> FetchConfig:
    """Fast, local settings: no delay, loopback allowlisted, robots on, no real waiting."""
    return FetchConfig(
        user_agent="TimelyPushTest/1.0 (+https://example.org/bot)",
        delay=0,
        allowlist=("127.0.0.1",),
        connect_timeout=2,
        read_timeout=2,
        total_timeout=5,
        retries=0,
        backoff=0,
    )


@pytest.fixture
def fake_dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Resolve made-up names without any network: name → address."""
    table = {
        "intranet.example": "10.0.0.5",
        "metadata.example": "169.254.169.254",
        "loop.example": "127.0.0.1",
        "v6loop.example": "::1",
        "public.example": "93.184.216.34",
    }

    real = socket.getaddrinfo

    def getaddrinfo(host: str, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if host not in table:
            if host.endswith(".example"):
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
            return real(host, port, *args, **kwargs)  # IP literals (the loopback server)
        address = table[host]
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        sockaddr = (
            (address, port or 80, 0, 0) if family == socket.AF_INET6 else (address, port or 80)
        )
        return [(family, socket.SOCK_STREAM, 6, "", sockaddr)]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return table
