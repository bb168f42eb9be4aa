"""Fixtures shared by the app's tests: an allowlisted test domain, captured account emails and
SMS, slow login back-off."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture
def allow_test_hosts(monkeypatch: pytest.MonkeyPatch, settings_env: None) -> Iterator[None]:
    """Let the URL guard accept *.example.com and loopback without DNS."""
    from app.core.config import get_settings

    monkeypatch.setenv("TIMELYPUSH_URL_ALLOWLIST", ".example.com,example.com,127.0.0.1")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture
def outbox(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Account emails and SMS captured instead of sent (email and an SMS provider count as
    configured, so reset by link and by code are offered)."""
    from app.core.config import get_settings
    from app.services import account_messages

    for name, value in {
        "SMTP_HOST": "127.0.0.1",
        "SMTP_PORT": "9",
        "SMS_PROVIDER": "twilio",
        "TWILIO_ACCOUNT_SID": "AC0",
        "TWILIO_AUTH_TOKEN": "not-a-token",
        "TWILIO_FROM": "+15550000",
    }.items():
        monkeypatch.setenv(f"TIMELYPUSH_{name}", value)
    get_settings.cache_clear()

    sent: list[dict[str, Any]] = []

    def fake_email(settings, to, subject, text, html=None):  # type: ignore[no-untyped-def]
        sent.append({"kind": "email", "to": to, "subject": subject, "text": text})

    def fake_sms(settings, phone, text):  # type: ignore[no-untyped-def]
        sent.append({"kind": "sms", "to": phone, "text": text})

    monkeypatch.setattr(account_messages, "send_email", fake_email)
    monkeypatch.setattr(account_messages, "send_sms", fake_sms)
    return sent


@pytest.fixture
def slow_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Back-off delays of a minute, so that no test depends on how fast the machine is."""
    from dataclasses import replace
    from datetime import timedelta

    from app.services import throttle

    for name in ("login", "login_ip", "login_account"):
        slow = replace(throttle.DEFAULTS[name], base_delay=timedelta(minutes=1))
        monkeypatch.setitem(throttle.DEFAULTS, name, slow)
    monkeypatch.setattr(throttle, "_parsed", {})
