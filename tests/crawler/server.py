"""A small real HTTP server on 127.0.0.1 (ephemeral port) for crawler integration tests.

Routes map a path (without query) to a ``Reply`` or to a function of the request returning
one. Replies can drip their body slowly (``drip``) to exercise timeouts. Every request is
recorded (path with query, headers) so tests can assert what the crawler sent.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    drip: float = 0.0
    """Seconds between single bytes of the body (a slow server); 0 sends it at once."""
    content_type: str | None = "text/html; charset=utf-8"
    length: bool = True
    """False: no Content-Length, the body ends when the connection closes (streamed)."""


@dataclass
class Seen:
    path: str
    headers: dict[str, str]


Route = Reply | Callable[[Seen], Reply]


class TestWeb:
    """The server; ``url(path)`` gives an absolute URL on it."""

    __test__ = False

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[Seen] = []
        self.hits: Counter[str] = Counter()
        self._lock = threading.Lock()
        web = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                seen = Seen(self.path, {k.lower(): v for k, v in self.headers.items()})
                path = urlsplit(self.path).path
                with web._lock:
                    web.requests.append(seen)
                    web.hits[path] += 1
                route = web.routes.get(path)
                if route is None:
                    reply = Reply(404, b"<html><body>not found</body></html>")
                else:
                    reply = route(seen) if callable(route) else route
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                try:
                    self.send_response(reply.status)
                    if reply.content_type:
                        self.send_header("Content-Type", reply.content_type)
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    if not reply.length:
                        self.send_header("Connection", "close")
                        self.close_connection = True
                    elif "Content-Length" not in reply.headers:
                        self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    if not reply.drip:
                        self.wfile.write(reply.body)
                        return
                    for i in range(min(len(reply.body), 200)):  # bounded slow drip
                        self.wfile.write(reply.body[i : i + 1])
                        self.wfile.flush()
                        time.sleep(reply.drip)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.origin + path

    def add(self, path: str, route: Route) -> None:
        self.routes[path] = route

    def start(self) -> TestWeb:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)


@contextmanager
def serve_html(
    pages: Mapping[str, str], redirects: Mapping[str, str] | None = None
) -> Iterator[TestWeb]:
    """A running ``TestWeb`` serving ``pages`` (path → HTML) and ``redirects`` (path → the
    ``Location`` of a 301); everything else is 404."""
    web = TestWeb()
    for path, html in pages.items():
        web.add(path, Reply(body=html.encode()))
    for path, target in (redirects or {}).items():
        web.add(path, Reply(301, headers={"Location": target}))
    web.start()
    try:
        yield web
    finally:
        web.stop()
