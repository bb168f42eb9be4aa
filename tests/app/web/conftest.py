"""Web page fixtures: the real app on a migrated test database, logged-in clients, a loopback
site for concern seeds (the form helpers are in ``forms.py``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from tests.app.web.forms import log_in, new_client
from tests.factories import make_account


class _Site(BaseHTTPRequestHandler):
    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()

    def do_GET(self) -> None:
        body = "<html><head><title>体育新闻</title></head><body>足球 中超</body></html>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def site_url() -> Iterator[str]:
    """A tiny web site on 127.0.0.1 (an ephemeral port) for concern seed URLs."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


@pytest.fixture
def web_env(settings_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.core.config import get_settings

    monkeypatch.setenv("TIMELYPUSH_URL_ALLOWLIST", "127.0.0.1")
    monkeypatch.setenv("TIMELYPUSH_SCHEDULER_ENABLED", "false")
    monkeypatch.setenv("TIMELYPUSH_SMS_PROVIDER", "none")
    # email "configured" (password reset by email is offered) but refused at once: port 9
    monkeypatch.setenv("TIMELYPUSH_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("TIMELYPUSH_SMTP_PORT", "9")
    monkeypatch.setenv("TIMELYPUSH_SMTP_SECURITY", "none")
    get_settings.cache_clear()


@pytest.fixture
def app(web_env: None) -> Any:
    from app.main import create_app

    return create_app()


@pytest.fixture
def client(app: Any) -> TestClient:
    """An anonymous browser (no lifespan: the scheduler stays off)."""
    return new_client(app)


@pytest.fixture
def db(web_env: None) -> Iterator[Session]:
    from app.core.db import get_engine

    with Session(get_engine(), expire_on_commit=False) as s:
        yield s


@pytest.fixture
def alice(db: Session) -> Any:
    return make_account(db, "alice@example.com")


@pytest.fixture
def bob(db: Session) -> Any:
    return make_account(db, "bob@example.com")


@pytest.fixture
def alice_client(app: Any, alice: Any) -> TestClient:
    c = new_client(app)
    log_in(c, alice.email)
    return c


@pytest.fixture
def bob_client(app: Any, bob: Any) -> TestClient:
    c = new_client(app)
    log_in(c, bob.email)
    return c
