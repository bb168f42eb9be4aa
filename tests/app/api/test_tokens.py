"""API tokens: an expiry (90 days by default), refresh, and revocation on password change
and reset."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import unquote

from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.core.db import get_engine
from app.models import ApiToken, utcnow
from tests.app.api.helpers import signup


def _tokens(client: TestClient, auth: dict[str, str]) -> list[dict]:
    resp = client.get("/api/v1/auth/tokens", headers=auth)
    assert resp.status_code == 200, resp.text
    return resp.json()


def test_tokens_expire_after_90_days_and_can_be_refreshed(client: TestClient) -> None:
    auth = signup(client, "alice@example.com")
    [token] = _tokens(client, auth)
    from datetime import datetime

    expires = datetime.fromisoformat(token["expires_at"])
    assert timedelta(days=89) < expires - utcnow() <= timedelta(days=90)
    with Session(get_engine()) as s:  # 80 days later, say
        row = s.exec(select(ApiToken)).one()
        row.expires_at = utcnow() + timedelta(days=10)
        s.add(row)
        s.commit()
    refreshed = client.post(f"/api/v1/auth/tokens/{token['id']}/refresh", headers=auth)
    assert refreshed.status_code == 200, refreshed.text
    later = datetime.fromisoformat(refreshed.json()["expires_at"])
    assert later - utcnow() > timedelta(days=89)
    with Session(get_engine()) as s:  # and now it has run out
        row = s.exec(select(ApiToken)).one()
        row.expires_at = utcnow() - timedelta(seconds=1)
        s.add(row)
        s.commit()
    assert client.get("/api/v1/me", headers=auth).status_code == 401


def test_password_change_revokes_every_token(client: TestClient) -> None:
    phone = signup(client, "alice@example.com")
    resp = client.post(
        "/api/v1/auth/token", data={"username": "alice@example.com", "password": "correct horse"}
    )
    laptop = {"Authorization": f"Bearer {resp.json()['access_token']}"}
    body = {"current_password": "correct horse", "new_password": "a new password"}
    assert client.post("/api/v1/me/password", headers=phone, json=body).status_code == 204
    assert client.get("/api/v1/me", headers=phone).status_code == 401
    assert client.get("/api/v1/me", headers=laptop).status_code == 401
    resp = client.post(
        "/api/v1/auth/token", data={"username": "alice@example.com", "password": "a new password"}
    )
    assert resp.status_code == 200


def test_password_reset_revokes_every_token(client: TestClient, outbox: list) -> None:
    auth = signup(client, "alice@example.com")
    assert (
        client.post("/api/v1/auth/password-reset", json={"email": "alice@example.com"}).status_code
        == 202
    )
    token = unquote(re.search(r"token=([^\s]+)", outbox[-1]["text"]).group(1))  # type: ignore[union-attr]
    body = {"token": token, "new_password": "a new password"}
    assert client.post("/api/v1/auth/password-reset/confirm", json=body).status_code == 200
    assert client.get("/api/v1/me", headers=auth).status_code == 401
