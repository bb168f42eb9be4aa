"""Every action that sends or crawls on someone's behalf has a rate limit: 429 with
Retry-After and a message (small limits set through TIMELYPUSH_RATE_LIMITS)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.core.config import get_settings
from app.core.db import get_engine
from app.models import Concern, Delivery, User
from tests.app.api.helpers import signup
from tests.factories import add_match

LIMITS = (
    "register_ip=2/1h,reset_email=1/1h,reset_ip=3/1h,verify_resend=1/1h,"
    "channel_test=1/1h,resend=1/1h,check_now=1/1h"
)


@pytest.fixture
def limited(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setenv("TIMELYPUSH_RATE_LIMITS", LIMITS)
    get_settings.cache_clear()
    yield client
    get_settings.cache_clear()


def _limited(resp: Any) -> None:
    assert resp.status_code == 429, resp.text
    error = resp.json()["error"]
    assert error["code"] == "throttled" and error["message"]
    assert int(resp.headers["retry-after"]) > 0
    assert error["details"]["retry_after"] == int(resp.headers["retry-after"])


def test_registration_per_ip(limited: TestClient) -> None:
    signup(limited, "a@example.com")
    signup(limited, "b@example.com")
    body = {"email": "c@example.com", "password": "correct horse"}
    _limited(limited.post("/api/v1/auth/register", json=body))


def test_password_reset_per_address_and_per_ip(limited: TestClient, outbox: list) -> None:
    signup(limited, "alice@example.com")
    reset = "/api/v1/auth/password-reset"
    assert limited.post(reset, json={"email": "alice@example.com"}).status_code == 202
    _limited(limited.post(reset, json={"email": "ALICE@example.com"}))  # the same address
    assert (
        len([m for m in outbox if "reset" in m["subject"].lower() or "重置" in m["subject"]]) == 1
    )
    assert limited.post(reset, json={"email": "nobody@example.com"}).status_code == 202
    _limited(limited.post(reset, json={"email": "someone@example.com"}))  # 3 from this IP


def test_verification_resend(limited: TestClient) -> None:
    auth = signup(limited, "alice@example.com")
    assert limited.post("/api/v1/auth/verify/resend", headers=auth).status_code == 202
    _limited(limited.post("/api/v1/auth/verify/resend", headers=auth))


def test_channel_test(limited: TestClient) -> None:
    auth = signup(limited, "alice@example.com")
    assert limited.post("/api/v1/me/test/email", headers=auth).status_code == 200
    _limited(limited.post("/api/v1/me/test/email", headers=auth))


def test_check_now_and_delivery_resend(limited: TestClient) -> None:
    auth = signup(limited, "alice@example.com")
    resp = limited.post(
        "/api/v1/concerns",
        headers=auth,
        json={"seed_url": "https://news.example.com/", "keywords": "AI"},
    )
    concern_id = resp.json()["id"]
    check = f"/api/v1/concerns/{concern_id}/check-now"
    assert limited.post(check, headers=auth).status_code == 202
    _limited(limited.post(check, headers=auth))
    with Session(get_engine(), expire_on_commit=False) as s:
        concern = s.get(Concern, concern_id)
        assert concern is not None
        match = add_match(s, concern, 1, title="AI news")
        user = s.get(User, concern.owner_id)
        assert user is not None and user.id is not None and match.id is not None
        row = Delivery(
            idempotency_key="i:test",
            user_id=user.id,
            match_id=match.id,
            match_ids=[match.id],
            channel="email",
            target=user.email,
            status="sent",
        )
        s.add(row)
        s.commit()
        match_id, delivery_id = match.id, row.id
    resend = f"/api/v1/matches/{match_id}/deliveries/{delivery_id}/resend"
    assert limited.post(resend, headers=auth).status_code == 202
    _limited(limited.post(resend, headers=auth))
