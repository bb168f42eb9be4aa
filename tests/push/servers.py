"""Real servers on loopback for push tests: an SMTP sink (aiosmtpd) and an HTTP receiver."""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
import subprocess
import threading
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from aiosmtpd.smtp import SMTP, AuthResult, Envelope, Session

# aiosmtpd logs every connection at INFO from its own thread, also after pytest has closed
# the captured stream ("Logging error ... I/O operation on closed file"): keep it to warnings
logging.getLogger("mail.log").setLevel(logging.WARNING)


class _Handler:
    def __init__(self, sink: SmtpSink) -> None:
        self.sink = sink

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        if address in self.sink.refuse:
            return "550 5.1.1 no such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        if self.sink.keep:
            msg = message_from_bytes(raw, policy=policy.default)
            assert isinstance(msg, EmailMessage)
            with self.sink.lock:
                self.sink.messages.append(msg)
                self.sink.envelopes.append((envelope.mail_from or "", list(envelope.rcpt_tos)))
        else:
            with self.sink.lock:
                self.sink.count += 1
        return "250 OK"


class SmtpSink:
    """An SMTP server in a background thread; ``stop()``/``start(port)`` simulate an outage."""

    def __init__(self, *, keep: bool = True) -> None:
        self.keep = keep
        self.messages: list[EmailMessage] = []
        self.envelopes: list[tuple[str, list[str]]] = []
        self.refuse: set[str] = set()
        self.count = 0
        self.lock = threading.Lock()
        self.port = 0
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server: asyncio.Server | None = None

    def start(
        self,
        port: int = 0,
        *,
        tls: ssl.SSLContext | None = None,
        implicit_tls: bool = False,
        login: tuple[str, str] | None = None,
    ) -> SmtpSink:
        """Listen on 127.0.0.1; ``tls`` enables STARTTLS (or implicit TLS), ``login`` AUTH."""

        def authenticate(
            server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any
        ) -> AuthResult:
            ok = login is not None and (data.login.decode(), data.password.decode()) == login
            return AuthResult(success=ok)

        def factory() -> SMTP:
            kwargs: dict[str, Any] = {"decode_data": False, "enable_SMTPUTF8": True}
            if tls is not None and not implicit_tls:
                kwargs.update(tls_context=tls, require_starttls=True)
            if login is not None:
                kwargs.update(authenticator=authenticate, auth_required=True)
            return SMTP(_Handler(self), **kwargs)

        async def make() -> asyncio.Server:
            return await self.loop.create_server(
                factory, "127.0.0.1", port, ssl=tls if implicit_tls else None
            )

        self.server = asyncio.run_coroutine_threadsafe(make(), self.loop).result(10)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    def stop(self) -> None:
        """Refuse connections (the mail server is down)."""
        if self.server is not None:
            server = self.server

            async def close() -> None:
                server.close()
                await server.wait_closed()

            asyncio.run_coroutine_threadsafe(close(), self.loop).result(10)
            self.server = None

    def close(self) -> None:
        self.stop()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    status: int = 0

    def json(self) -> Any:
        return json.loads(self.body)


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # the outbox sends up to 16 at once; the default backlog is 5


@dataclass
class HttpReceiver:
    """A ThreadingHTTPServer on 127.0.0.1:0 answering POSTs with queued status codes.

    ``statuses`` is consumed one per request; when empty, ``default`` is answered. ``body``
    is the response body (JSON-encoded) for every request.
    """

    statuses: list[int] = field(default_factory=list)
    default: int = 200
    body: Any = None
    requests: list[Received] = field(default_factory=list)
    host: str = "127.0.0.1"
    port: int = 0

    def __post_init__(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.do_POST()

            def do_HEAD(self) -> None:
                self.do_POST()

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                data = self.rfile.read(length)
                headers = {k.lower(): v for k, v in self.headers.items()}
                with receiver.lock:
                    status = receiver.statuses.pop(0) if receiver.statuses else receiver.default
                    receiver.requests.append(Received(self.path, headers, data, status))
                payload = json.dumps(receiver.body if receiver.body is not None else {}).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.lock = threading.Lock()
        self.server = _Server((self.host, self.port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)


def self_signed_context(directory: Path) -> ssl.SSLContext:
    """A server TLS context with a fresh self-signed certificate for 127.0.0.1 (openssl CLI)."""
    key, cert = directory / "key.pem", directory / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context
