"""Outbox test fixtures: loopback SMTP sink, HTTP receiver, settings pointing at them."""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Iterator
from datetime import datetime

import pytest
from sqlmodel import Session, select

from app.core.config import get_settings
from app.models import Delivery
from app.services import delivery
from tests.push.servers import HttpReceiver, SmtpSink


@pytest.fixture
def sink() -> Iterator[SmtpSink]:
    server = SmtpSink().start()
    yield server
    server.close()


@pytest.fixture
def hook() -> Iterator[HttpReceiver]:
    server = HttpReceiver()
    yield server
    server.close()


@pytest.fixture
def push_env(monkeypatch: pytest.MonkeyPatch, settings_env: None, sink: SmtpSink) -> SmtpSink:
    monkeypatch.setenv("TIMELYPUSH_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("TIMELYPUSH_SMTP_PORT", str(sink.port))
    monkeypatch.setenv("TIMELYPUSH_SMTP_SECURITY", "none")
    monkeypatch.setenv("TIMELYPUSH_SMTP_FROM", "及时推 <push@example.org>")
    monkeypatch.setenv("TIMELYPUSH_URL_ALLOWLIST", "127.0.0.1")
    monkeypatch.setenv("TIMELYPUSH_BASE_URL", "http://testserver")
    # each push at once; the grouping tests set their own window
    monkeypatch.setenv("TIMELYPUSH_PUSH_GROUP_SECONDS", "0")
    get_settings.cache_clear()
    return sink


def drain(now: datetime | None = None) -> int:
    """Process the outbox until nothing is due (bounded)."""
    total = 0
    for _ in range(50):
        n = delivery.process_outbox(limit=100, now=now)
        total += n
        if n == 0:
            return total
    raise AssertionError("outbox did not drain")


def rows(session: Session) -> list[Delivery]:
    session.expire_all()
    return list(session.exec(select(Delivery).order_by(Delivery.id)).all())


def verify_signature(secret: str, headers: dict[str, str], body: bytes) -> bool:
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return headers["webhook-signature"] == f"v1,{expected}"
