"""The REST API end to end: auth and tokens, profile, concerns, messages, runs, error bodies."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.core.db import get_engine
from app.models import Concern, Delivery, Match, User
from tests.app.api.helpers import signup
from tests.factories import add_match, add_run


def _error(resp: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "details"}
    if code:
        assert body["error"]["code"] == code, body
    return body["error"]


def test_register_login_me_and_tokens(client: TestClient, outbox: list) -> None:
    resp = client.post(
        "/api/v1/auth/register",
        json={"email": "Alice@Example.com", "password": "correct horse", "language": "en"},
    )
    assert resp.status_code == 201
    user = resp.json()
    assert user["email"] == "alice@example.com" and "password_hash" not in user
    assert outbox and outbox[0]["to"] == "alice@example.com"
    _error(
        client.post(
            "/api/v1/auth/register", json={"email": "alice@example.com", "password": "xxxxxxxx"}
        ),
        409,
        "email_taken",
    )
    _error(client.post("/api/v1/auth/register", json={"email": "a@b.c"}), 422, "validation_error")
    _error(
        client.post("/api/v1/auth/token", data={"username": "alice@example.com", "password": "no"}),
        401,
        "bad_credentials",
    )
    resp = client.post(
        "/api/v1/auth/token",
        data={
            "username": "alice@example.com",
            "password": "correct horse",
            "device_name": "iPhone",
        },
    )
    assert resp.json()["token_type"] == "bearer"
    auth = {"Authorization": f"Bearer {resp.json()['access_token']}"}
    assert client.get("/api/v1/me", headers=auth).json()["language"] == "en"
    tokens = client.get("/api/v1/auth/tokens", headers=auth).json()
    assert [t["name"] for t in tokens] == ["iPhone"]
    assert client.get(f"/api/v1/auth/tokens/{tokens[0]['id']}", headers=auth).status_code == 200
    resp = client.delete(f"/api/v1/auth/tokens/{tokens[0]['id']}", headers=auth)
    assert resp.status_code == 204
    err = _error(client.get("/api/v1/me", headers=auth), 401, "invalid_token")
    assert "token" in err["message"]


def test_unauthenticated_requests_get_401_with_bearer_challenge(client: TestClient) -> None:
    for path in ("/api/v1/me", "/api/v1/concerns", "/api/v1/matches", "/api/v1/auth/tokens"):
        resp = client.get(path)
        _error(resp, 401)
        assert resp.headers["www-authenticate"] == "Bearer"
    _error(client.get("/api/v1/nowhere"), 404, "not_found")


def test_login_throttle_returns_429_with_retry_after(
    client: TestClient, slow_backoff: None
) -> None:
    signup(client, "alice@example.com")
    for _ in range(6):  # 5 free, 1 after the back-off's first delay
        client.post("/api/v1/auth/token", data={"username": "alice@example.com", "password": "x"})
    resp = client.post(
        "/api/v1/auth/token", data={"username": "alice@example.com", "password": "correct horse"}
    )
    _error(resp, 429, "throttled")
    assert int(resp.headers["retry-after"]) > 0


def test_verify_and_password_reset_flow(client: TestClient, outbox: list) -> None:
    auth = signup(client, "alice@example.com")
    token = unquote(re.search(r"token=([^\s]+)", outbox[-1]["text"]).group(1))  # type: ignore[union-attr]
    resp = client.post("/api/v1/auth/verify", json={"token": token})
    assert resp.status_code == 200 and resp.json()["email_verified_at"]
    _error(client.post("/api/v1/auth/verify", json={"token": "forged"}), 422, "invalid_token")
    resp = client.post("/api/v1/auth/password-reset", json={"email": "alice@example.com"})
    assert resp.status_code == 202
    assert (
        client.post("/api/v1/auth/password-reset", json={"email": "x@y.example"}).status_code == 202
    )
    token = unquote(re.search(r"token=([^\s]+)", outbox[-1]["text"]).group(1))  # type: ignore[union-attr]
    body = {"token": token, "new_password": "a new password"}
    assert client.post("/api/v1/auth/password-reset/confirm", json=body).status_code == 200
    _error(client.post("/api/v1/auth/password-reset/confirm", json=body), 422, "invalid_token")
    assert client.get("/api/v1/me", headers=auth).status_code == 401  # every token ends


def test_profile_and_webhook_secret(client: TestClient) -> None:
    auth = signup(client, "alice@example.com")
    resp = client.patch(
        "/api/v1/me",
        headers=auth,
        json={"timezone": "America/New_York", "push_mode": "both", "digest_time": "9:00"},
    )
    assert resp.status_code == 200 and resp.json()["digest_time"] == "09:00"
    err = _error(client.patch("/api/v1/me", headers=auth, json={"timezone": "Nowhere/X"}), 422)
    assert err["details"]["field"] == "timezone"
    err = _error(
        client.patch("/api/v1/me", headers=auth, json={"webhook_url": "http://192.168.1.1/"}),
        422,
        "blocked_url",
    )
    first = client.post("/api/v1/me/webhook-secret", headers=auth).json()["secret"]
    second = client.post("/api/v1/me/webhook-secret", headers=auth).json()["secret"]
    assert first != second
    assert "webhook_secret" not in client.get("/api/v1/me", headers=auth).json()
    resp = client.post(
        "/api/v1/me/password",
        headers=auth,
        json={"current_password": "correct horse", "new_password": "better horse"},
    )
    assert resp.status_code == 204


def test_concern_crud(client: TestClient) -> None:
    auth = signup(client, "alice@example.com")
    resp = client.post(
        "/api/v1/concerns",
        headers=auth,
        json={"seed_url": "news.example.com/tech", "keywords": "芯片，AI、芯片"},
    )
    assert resp.status_code == 201, resp.text
    concern = resp.json()
    assert concern["seed_url"] == "https://news.example.com/tech"
    assert concern["keywords"] == ["芯片", "AI"]
    assert concern["next_visit_at"] and concern["revisit_level"] is not None
    cid = concern["id"]
    err = _error(
        client.post(
            "/api/v1/concerns", headers=auth, json={"seed_url": "x.example.com", "keywords": ""}
        ),
        422,
        "no_keywords",
    )
    assert err["details"]["field"] == "keywords"
    _error(
        client.post(
            "/api/v1/concerns",
            headers=auth,
            json={"seed_url": "x.example.com", "keywords": "a", "strategy": "magic"},
        ),
        422,
        "validation_error",
    )
    resp = client.patch(
        f"/api/v1/concerns/{cid}", headers=auth, json={"enabled": False, "priority": 4}
    )
    assert resp.json()["enabled"] is False and resp.json()["priority"] == 4
    # a paused concern is not visited: check-now says so instead of pretending
    _error(client.post(f"/api/v1/concerns/{cid}/check-now", headers=auth), 409, "concern_paused")
    client.patch(f"/api/v1/concerns/{cid}", headers=auth, json={"enabled": True})
    checked = client.post(f"/api/v1/concerns/{cid}/check-now", headers=auth)
    assert checked.status_code == 202 and checked.json()["crawling_since"] is None
    assert [c["id"] for c in client.get("/api/v1/concerns", headers=auth).json()] == [cid]
    assert client.delete(f"/api/v1/concerns/{cid}", headers=auth).status_code == 204
    _error(client.get(f"/api/v1/concerns/{cid}", headers=auth), 404, "concern_not_found")


def _seed_feed(client: TestClient, email: str, n: int) -> tuple[dict[str, str], int, list[int]]:
    auth = signup(client, email)
    cid = client.post(
        "/api/v1/concerns", headers=auth, json={"seed_url": "news.example.com", "keywords": "AI"}
    ).json()["id"]
    with Session(get_engine(), expire_on_commit=False) as session:
        concern = session.get(Concern, cid)
        assert concern is not None
        ids = [add_match(session, concern, i, title=f"AI news {i}").id for i in range(n)]
        add_run(session, concern.site_id, 10, 2)  # type: ignore[arg-type]
    return auth, cid, ids  # type: ignore[return-value]


def test_matches_paging_read_state_and_bulk(client: TestClient) -> None:
    auth, cid, ids = _seed_feed(client, "alice@example.com", 7)
    seen: list[int] = []
    cursor = None
    for _ in range(5):
        params: dict[str, Any] = {"limit": 3, "concern_id": cid}
        if cursor:
            params["cursor"] = cursor
        page = client.get("/api/v1/matches", headers=auth, params=params).json()
        seen += [m["id"] for m in page["items"]]
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert seen == sorted(ids, reverse=True)
    one = client.get(f"/api/v1/matches/{ids[0]}", headers=auth).json()
    assert one["read"] is False and one["explanation"] is not None
    assert client.patch(f"/api/v1/matches/{ids[0]}", headers=auth, json={"read": True}).json()[
        "read"
    ]
    page = client.get("/api/v1/matches", headers=auth, params={"unread": "true"}).json()
    assert ids[0] not in [m["id"] for m in page["items"]]
    page = client.get("/api/v1/matches", headers=auth, params={"q": "news 3"}).json()
    assert [m["id"] for m in page["items"]] == [ids[3]]
    resp = client.post(
        "/api/v1/matches/bulk", headers=auth, json={"ids": ids[:3], "action": "delete"}
    )
    assert resp.json() == {"changed": 3}
    assert client.delete(f"/api/v1/matches/{ids[4]}", headers=auth).status_code == 204
    assert len(client.get("/api/v1/matches", headers=auth).json()["items"]) == 3
    _error(
        client.get("/api/v1/matches", headers=auth, params={"cursor": "bad"}), 422, "invalid_cursor"
    )
    runs = client.get(f"/api/v1/concerns/{cid}/runs", headers=auth).json()
    assert [r["pages_fetched"] for r in runs] == [10]
    harvest = client.get(f"/api/v1/concerns/{cid}/harvest", headers=auth).json()
    assert harvest[0]["harvest_rate"] == 0.2


def _add_delivery(match_id: int, channel: str = "webhook", status: str = "sent") -> int:
    with Session(get_engine(), expire_on_commit=False) as session:
        match = session.get(Match, match_id)
        assert match is not None
        row = Delivery(
            idempotency_key=f"i:{match.user_id}:{channel}:{match_id}",
            user_id=match.user_id,
            match_id=match_id,
            match_ids=[match_id],
            channel=channel,
            target="https://hooks.example.com/in",
            status=status,
            attempts=1,
        )
        session.add(row)
        session.commit()
        assert row.id is not None
        return row.id


def test_delivery_history_and_resend(client: TestClient) -> None:
    auth, _, ids = _seed_feed(client, "alice@example.com", 2)
    did = _add_delivery(ids[0], status="dead")
    history = client.get(f"/api/v1/matches/{ids[0]}/deliveries", headers=auth).json()
    assert [(d["id"], d["channel"], d["status"]) for d in history] == [(did, "webhook", "dead")]
    assert client.get(f"/api/v1/matches/{ids[1]}/deliveries", headers=auth).json() == []
    resp = client.post(f"/api/v1/matches/{ids[0]}/deliveries/{did}/resend", headers=auth)
    assert resp.status_code == 202
    copy = resp.json()
    assert (copy["status"], copy["attempts"], copy["channel"]) == ("pending", 0, "webhook")
    statuses = [
        d["status"] for d in client.get(f"/api/v1/matches/{ids[0]}/deliveries", headers=auth).json()
    ]
    assert statuses == ["dead", "pending"]
    # a delivery of another message of the same user is not this message's
    _error(client.post(f"/api/v1/matches/{ids[1]}/deliveries/{did}/resend", headers=auth), 404)


def test_channel_test_reports_the_outcome(client: TestClient) -> None:
    auth = signup(client, "alice@example.com")
    # no phone in the profile: a clear failure, not an exception
    body = client.post("/api/v1/me/test/sms", headers=auth).json()
    assert body["ok"] is False and "no sms address" in body["error"]
    _error(client.post("/api/v1/me/test/pigeon", headers=auth), 422)


def test_every_endpoint_isolates_users(client: TestClient) -> None:
    auth_a, cid, ids = _seed_feed(client, "alice@example.com", 2)
    token_id = client.get("/api/v1/auth/tokens", headers=auth_a).json()[0]["id"]
    auth_b = signup(client, "bob@example.com")
    mid = ids[0]
    did = _add_delivery(mid)
    for method, path, body in [
        ("GET", f"/api/v1/concerns/{cid}", None),
        ("PATCH", f"/api/v1/concerns/{cid}", {"priority": 1}),
        ("DELETE", f"/api/v1/concerns/{cid}", None),
        ("POST", f"/api/v1/concerns/{cid}/check-now", None),
        ("GET", f"/api/v1/concerns/{cid}/runs", None),
        ("GET", f"/api/v1/concerns/{cid}/harvest", None),
        ("GET", f"/api/v1/matches/{mid}", None),
        ("PATCH", f"/api/v1/matches/{mid}", {"read": True}),
        ("GET", f"/api/v1/matches/{mid}/deliveries", None),
        ("POST", f"/api/v1/matches/{mid}/deliveries/{did}/resend", None),
        ("DELETE", f"/api/v1/matches/{mid}", None),
        ("GET", f"/api/v1/auth/tokens/{token_id}", None),
        ("POST", f"/api/v1/auth/tokens/{token_id}/refresh", None),
        ("DELETE", f"/api/v1/auth/tokens/{token_id}", None),
    ]:
        resp = client.request(method, path, headers=auth_b, json=body)
        _error(resp, 404)
    assert client.get("/api/v1/concerns", headers=auth_b).json() == []
    assert client.get("/api/v1/matches", headers=auth_b).json()["items"] == []
    assert (
        client.get("/api/v1/matches", headers=auth_b, params={"concern_id": cid}).json()["items"]
        == []
    )
    assert client.get("/api/v1/auth/tokens", headers=auth_b).json()[0]["id"] != token_id
    for action in ("read", "unread", "delete"):
        resp = client.post(
            "/api/v1/matches/bulk", headers=auth_b, json={"ids": ids, "action": action}
        )
        assert resp.json() == {"changed": 0}, action
    # and A still has everything
    assert client.get(f"/api/v1/matches/{mid}", headers=auth_a).json()["read"] is False
    assert client.get(f"/api/v1/concerns/{cid}", headers=auth_a).status_code == 200
    with Session(get_engine()) as session:
        assert session.get(User, 1) is not None


def test_openapi_documents_the_error_body(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    op = schema["paths"]["/api/v1/concerns/{concern_id}"]["get"]
    assert op["responses"]["404"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/ErrorBody"
    )
    assert "/api/v1/auth/token" in schema["paths"]
    assert client.get("/docs").status_code == 200


def test_sms_password_reset(client: TestClient, outbox: list) -> None:
    auth = signup(client, "alice@example.com")
    client.patch("/api/v1/me", headers=auth, json={"phone": "+8613800138000"})
    assert client.post("/api/v1/me/phone/code", headers=auth).status_code == 202
    code = re.search(r"\d{6}", outbox[-1]["text"]).group(0)  # type: ignore[union-attr]
    resp = client.post("/api/v1/me/phone/confirm", headers=auth, json={"code": "000000"})
    if code != "000000":
        _error(resp, 422, "invalid_code")
    resp = client.post("/api/v1/me/phone/confirm", headers=auth, json={"code": code})
    assert resp.status_code == 200 and resp.json()["phone_verified_at"]
    resp = client.post("/api/v1/auth/password-reset/sms", json={"email": "alice@example.com"})
    assert resp.status_code == 202
    code = re.search(r"\d{6}", outbox[-1]["text"]).group(0)  # type: ignore[union-attr]
    body = {"email": "alice@example.com", "code": code, "new_password": "texted password"}
    assert client.post("/api/v1/auth/password-reset/sms/confirm", json=body).status_code == 200
    _error(client.post("/api/v1/auth/password-reset/sms/confirm", json=body), 422, "invalid_code")
    resp = client.post(
        "/api/v1/auth/token", data={"username": "alice@example.com", "password": "texted password"}
    )
    assert resp.status_code == 200


def test_framework_and_unexpected_errors_use_the_error_body(client: TestClient) -> None:
    from app.api.deps import get_session

    _error(client.put("/api/v1/me"), 405, "method_not_allowed")

    def broken() -> None:
        raise RuntimeError("database exploded")

    client.app.dependency_overrides[get_session] = broken  # type: ignore[attr-defined]
    with TestClient(client.app, raise_server_exceptions=False) as raw:
        err = _error(raw.get("/api/v1/me", headers={"Authorization": "Bearer x"}), 500)
    assert err["code"] == "internal_error" and "exploded" not in err["message"]


def test_a_new_email_address_takes_the_password_and_the_old_one_is_told(
    client: TestClient, outbox: list
) -> None:
    """A token alone cannot move the account to another address (and reset its password
    there): the current password confirms the change, and the old address hears of it."""
    auth = signup(client, "alice@example.com")
    outbox.clear()
    err = _error(
        client.patch("/api/v1/me", headers=auth, json={"email": "mallory@example.com"}),
        422,
        "password_required",
    )
    assert err["details"]["field"] == "current_password"
    wrong = client.patch(
        "/api/v1/me",
        headers=auth,
        json={"email": "mallory@example.com", "current_password": "guess"},
    )
    assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "bad_credentials"
    assert client.get("/api/v1/me", headers=auth).json()["email"] == "alice@example.com"
    assert outbox == []
    moved = client.patch(
        "/api/v1/me",
        headers=auth,
        json={"email": "alice@work.example.com", "current_password": "correct horse"},
    )
    assert moved.status_code == 200 and moved.json()["email"] == "alice@work.example.com"
    [notice] = outbox
    assert notice["to"] == "alice@example.com"
    assert "alice@work.example.com" in notice["text"]
    # the password is never echoed or stored as a profile field
    assert "current_password" not in moved.json()


def test_matched_keywords_are_the_users_own_and_learned_words_come_apart(
    client: TestClient,
) -> None:
    """The model stores the words that counted together; the API says which are the user's."""
    auth, _cid, ids = _seed_feed(client, "alice@example.com", 1)
    with Session(get_engine(), expire_on_commit=False) as session:
        match = session.get(Match, ids[0])
        assert match is not None
        match.matched_keywords = ["AI", "芯片", "算力"]
        match.explanation = {"method": "model", "probability": 0.9, "learned": ["芯片", "算力"]}
        session.add(match)
        session.commit()
    for item in (
        client.get(f"/api/v1/matches/{ids[0]}", headers=auth).json(),
        client.get("/api/v1/matches", headers=auth).json()["items"][0],
    ):
        assert item["matched_keywords"] == ["AI"]
        assert item["learned_terms"] == ["芯片", "算力"]
