"""`lab serve`: the lab web on loopback, each page under its own host name.

An HTTP/1.1 server on asyncio streams that is also a plain HTTP forward proxy: a request line in
absolute form (``GET http://sports.lab-163.test/x.html HTTP/1.1``, what a client sends to a
proxy) is routed by the URL's host, a request in origin form (``GET /x.html``) by its ``Host``
header. A page whose URL has a query string (``/article.php?id=7``, the English web) is
stored with the query in its file name and looked up by path plus query first; other requests
ignore their query. Only ``OUT/sites`` is loaded (so truth.jsonl, graph.jsonl and
manifest.json can never be served); every response is pre-built bytes in memory. Unknown
paths are 404, unknown hosts 502 (the proxy cannot reach them), ``CONNECT`` is 405. GBK
hosts are sent as stored, with a ``Content-Type`` that names no charset (the page's
``<meta>`` does). Optional latency and error injection (503) make the web behave like a
slow, flaky Internet.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

logger = logging.getLogger(__name__)

_REASONS = {
    200: "OK",
    304: "Not Modified",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


def _content_type(path: str, encoding: str) -> str:
    if path.endswith(".txt"):
        return "text/plain; charset=utf-8"
    return "text/html; charset=utf-8" if encoding == "utf-8" else "text/html"


@dataclass(slots=True)
class Resource:
    """One served file of a lab web: body, content type and ETag."""

    body: bytes
    content_type: str
    etag: str


def load_web(directory: Path) -> dict[str, dict[str, Resource]]:
    """host → path → resource, for every file under ``directory/sites``."""
    sites = directory / "sites"
    if not sites.is_dir():
        raise FileNotFoundError(f"{sites} does not exist: run `timelypush lab build` first")
    manifest_path = directory / "manifest.json"
    encodings: dict[str, str] = {}
    if manifest_path.is_file():
        encodings = json.loads(manifest_path.read_text(encoding="utf-8")).get("hosts", {})
    web: dict[str, dict[str, Resource]] = {}
    for host_dir in sorted(p for p in sites.iterdir() if p.is_dir()):
        host = host_dir.name.lower()
        pages: dict[str, Resource] = {}
        for file in host_dir.rglob("*"):
            if not file.is_file():
                continue
            rel = "/" + file.relative_to(host_dir).as_posix()
            body = file.read_bytes()
            etag = '"' + hashlib.blake2b(body, digest_size=8).hexdigest() + '"'
            resource = Resource(body, _content_type(rel, encodings.get(host, "utf-8")), etag)
            pages[rel] = resource
            # a directory's page answers for the directory, its query kept (a blog's post
            # ``/?p=123`` is stored as ``index.html?p=123``)
            stored, mark, query = rel.partition("?")
            if stored.endswith("/index.html"):
                pages[stored[: -len("index.html")] + mark + query] = resource
        web[host] = pages
    return web


def web_language(directory: Path) -> str:
    """The built web's language from its manifest (``zh`` when the manifest does not say)."""
    manifest_path = directory / "manifest.json"
    if not manifest_path.is_file():
        return "zh"
    return str(json.loads(manifest_path.read_text(encoding="utf-8")).get("lang", "zh"))


@dataclass
class LabServer:
    """The running server; ``port`` is known after :meth:`start`."""

    web: dict[str, dict[str, Resource]]
    host: str = "127.0.0.1"
    port: int = 0
    latency_ms: float = 0.0
    error_rate: float = 0.0
    seed: int = 0
    stats: Counter[int] = field(default_factory=Counter)
    _server: asyncio.Server | None = None
    _rng: random.Random = field(default_factory=random.Random)
    _cache: dict[tuple[str, str], bytes] = field(default_factory=dict)

    async def start(self) -> LabServer:
        self._rng = random.Random(self.seed)  # noqa: S311 - error injection
        self._server = await asyncio.start_server(self._handle, self.host, self.port, backlog=1024)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def __aenter__(self) -> LabServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def serve_forever(self) -> None:
        assert self._server is not None
        async with self._server:
            await self._server.serve_forever()

    def _simple(self, status: int, text: str, keep: bool, head: bool = False) -> bytes:
        body = text.encode()
        return self._frame(status, b"text/plain; charset=utf-8", body, keep, head=head)

    @staticmethod
    def _frame(
        status: int, ctype: bytes, body: bytes, keep: bool, *, etag: str = "", head: bool = False
    ) -> bytes:
        lines = [
            f"HTTP/1.1 {status} {_REASONS.get(status, 'OK')}".encode(),
            b"Server: timelypush-lab",
            b"Content-Type: " + ctype,
            b"Content-Length: " + str(len(body)).encode(),
            b"Connection: keep-alive" if keep else b"Connection: close",
        ]
        if etag:
            lines.append(b"ETag: " + etag.encode())
        return b"\r\n".join(lines) + b"\r\n\r\n" + (b"" if head else body)

    def respond(self, method: str, target: str, headers: dict[str, str], keep: bool) -> bytes:
        """The full response bytes for one request (status counted in ``stats``)."""
        if method == "CONNECT":
            self.stats[405] += 1
            return self._simple(405, "CONNECT is not supported: use plain http://\n", keep)
        if method not in ("GET", "HEAD"):
            self.stats[405] += 1
            return self._simple(405, "method not allowed\n", keep)
        head = method == "HEAD"
        if target.startswith(("http://", "https://")):
            parts = urlsplit(target)
            host, path, query = (parts.hostname or ""), parts.path or "/", parts.query
        else:
            host = (
                headers.get("host", "").rsplit(":", 1)[0]
                if "]" not in headers.get("host", "")
                else headers.get("host", "")
            )
            path, _, query = target.split("#", 1)[0].partition("?")
            path = path or "/"
        host = host.lower().rstrip(".")
        pages = self.web.get(host)
        if pages is None:
            self.stats[502] += 1
            return self._simple(502, f"unknown host {host}\n", keep, head)
        if self.error_rate and self._rng.random() < self.error_rate:
            self.stats[503] += 1
            return self._simple(503, "injected error\n", keep, head)
        path = unquote(path)
        name = f"{path}?{query}"
        resource = pages.get(name) if query else None
        if resource is None:
            name, resource = path, pages.get(path)
        if resource is None or "/../" in path:
            self.stats[404] += 1
            return self._simple(404, "not found\n", keep, head)
        if headers.get("if-none-match") == resource.etag:
            self.stats[304] += 1
            return self._frame(
                304, resource.content_type.encode(), b"", keep, etag=resource.etag, head=True
            )
        self.stats[200] += 1
        # by the file served: ``/article.php?id=7`` and ``?id=8`` are different pages
        key = (host, name) if keep and not head else None
        if key is not None and key in self._cache:
            return self._cache[key]
        data = self._frame(
            200, resource.content_type.encode(), resource.body, keep, etag=resource.etag, head=head
        )
        if key is not None:
            self._cache[key] = data
        return data

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    raw = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                lines = raw.decode("latin-1").split("\r\n")
                request = lines[0].split(" ")
                if len(request) != 3:
                    writer.write(self._simple(400, "bad request line\n", False))
                    await writer.drain()
                    return
                method, target, version = request
                headers = {}
                for line in lines[1:]:
                    name, sep, value = line.partition(":")
                    if sep:
                        headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0") or 0)
                if length:
                    await reader.readexactly(length)
                connection = (
                    headers.get("connection", "") + headers.get("proxy-connection", "")
                ).lower()
                keep = "close" not in connection and (
                    version == "HTTP/1.1" or "keep-alive" in connection
                )
                if self.latency_ms:
                    await asyncio.sleep(self.latency_ms / 1000)
                writer.write(self.respond(method, target, headers, keep))
                await writer.drain()
                if not keep:
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()


async def run(
    directory: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8870,
    latency_ms: float = 0,
    error_rate: float = 0,
    ready: asyncio.Event | None = None,
) -> None:
    """Serve ``directory`` until cancelled; prints one ``listening on`` line when ready."""
    web = load_web(directory)
    server = await LabServer(web, host, port, latency_ms, error_rate).start()
    count = sum(len(p) for p in web.values())
    print(
        f"lab ({web_language(directory)}): {len(web)} hosts, {count} paths; listening on "
        f"{server.url} "
        f"(use --proxy {server.url})",
        flush=True,
    )
    if ready is not None:
        ready.set()
    try:
        await server.serve_forever()
    finally:
        logger.info("lab server stats: %s", dict(server.stats))
