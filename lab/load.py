"""`lab load`: how many requests per second the lab proxy answers (so it is not the bottleneck).

Two clients: ``raw`` (asyncio streams, keep-alive, minimal parsing: the server's ceiling) and
``httpx`` (an ``httpx.AsyncClient`` through the proxy: what a crawler built on httpx sees).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx


@dataclass(frozen=True, slots=True)
class LoadResult:
    """What one load run against the lab server measured."""

    client: str
    requests: int
    concurrency: int
    seconds: float
    bytes: int
    errors: int

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "client": self.client,
            "requests": self.requests,
            "concurrency": self.concurrency,
            "seconds": round(self.seconds, 3),
            "req_per_s": round(self.rps, 1),
            "mb_per_s": round(self.bytes / self.seconds / 1e6, 1) if self.seconds else 0,
            "errors": self.errors,
        }


def page_urls(directory: Path) -> list[str]:
    """Every page URL of a built web (read from its truth file, which the client may know)."""
    lines = (directory / "truth.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["url"] for line in lines]


async def _raw_worker(proxy: str, urls: itertools.cycle[str], count: int) -> tuple[int, int]:
    parts = urlsplit(proxy)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    received = errors = 0
    try:
        for _ in range(count):
            url = next(urls)
            host = urlsplit(url).hostname
            writer.write(f"GET {url} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            body = await reader.readexactly(length)
            received += len(body)
            if not head.startswith(b"HTTP/1.1 200"):
                errors += 1
    finally:
        writer.close()
    return received, errors


async def _httpx_worker(
    client: httpx.AsyncClient, urls: itertools.cycle[str], count: int
) -> tuple[int, int]:
    received = errors = 0
    for _ in range(count):
        response = await client.get(next(urls))
        received += len(response.content)
        errors += response.status_code != 200
    return received, errors


async def measure(
    proxy: str,
    urls: list[str],
    *,
    requests: int = 20000,
    concurrency: int = 16,
    client: str = "raw",
) -> LoadResult:
    """Send ``requests`` GETs for ``urls`` (cycled) over ``concurrency`` keep-alive connections."""
    cycle = itertools.cycle(urls)
    per = max(1, requests // concurrency)
    start = time.perf_counter()
    if client == "raw":
        results = await asyncio.gather(
            *(_raw_worker(proxy, cycle, per) for _ in range(concurrency))
        )
    else:
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        async with httpx.AsyncClient(proxy=proxy, limits=limits, trust_env=False) as session:
            results = await asyncio.gather(
                *(_httpx_worker(session, cycle, per) for _ in range(concurrency))
            )
    seconds = time.perf_counter() - start
    return LoadResult(
        client,
        per * concurrency,
        concurrency,
        seconds,
        sum(r[0] for r in results),
        sum(r[1] for r in results),
    )
