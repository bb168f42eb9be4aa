"""The message feed (``GET /api/v1/matches``), the API's hot path: its body is exactly what
the documented model would serialise, and it trusts a recently checked token for a moment
(``app.core.authcache``) but a token that stops being valid stops opening it at once."""

from __future__ import annotations

import contextlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.api.schemas import MatchPage
from app.models import Concern, utcnow
from app.services import matches
from tests.app.api.helpers import signup
from tests.factories import add_match


def _feed(client: TestClient, auth: dict[str, str]) -> int:
    return client.get("/api/v1/matches", headers=auth, params={"limit": 5}).status_code


def _second_token(client: TestClient, email: str) -> dict[str, str]:
    resp = client.post(
        "/api/v1/auth/token",
        data={"username": email, "password": "correct horse", "device_name": "tablet"},
    )
    return {"Authorization": f"Bearer {resp.json()['access_token']}"}


def test_a_revoked_token_is_refused_by_the_feed_at_once(client: TestClient) -> None:
    phone = signup(client, "alice@example.com")
    tablet = _second_token(client, "alice@example.com")
    assert _feed(client, phone) == 200 and _feed(client, tablet) == 200  # both remembered
    tokens = client.get("/api/v1/auth/tokens", headers=phone).json()
    tablet_id = next(t["id"] for t in tokens if t["name"] == "tablet")
    assert client.delete(f"/api/v1/auth/tokens/{tablet_id}", headers=phone).status_code == 204
    resp = client.get("/api/v1/matches", headers=tablet)
    assert resp.status_code == 401
    assert resp.json()["error"]["code"] == "invalid_token"
    assert _feed(client, phone) == 200  # the other device keeps working


def test_tokens_revoked_or_expired_in_the_database_are_refused_at_once(
    client: TestClient, engine: Engine
) -> None:
    auth = signup(client, "bob@example.com")
    other = signup(client, "carol@example.com")
    assert _feed(client, auth) == 200 and _feed(client, other) == 200
    # another code path (e.g. every token revoked on a password change) writes the table
    with engine.begin() as conn:
        conn.execute(text("UPDATE api_tokens SET revoked_at = :now"), {"now": utcnow()})
    assert _feed(client, auth) == 401 and _feed(client, other) == 401

    auth = _second_token(client, "bob@example.com")
    assert _feed(client, auth) == 200
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE api_tokens SET expires_at = :past WHERE revoked_at IS NULL"),
            {"past": utcnow() - timedelta(seconds=1)},
        )
    assert _feed(client, auth) == 401


def test_a_deactivated_user_is_refused_by_the_feed_at_once(
    client: TestClient, engine: Engine
) -> None:
    auth = signup(client, "dave@example.com")
    assert _feed(client, auth) == 200
    with engine.begin() as conn:
        conn.execute(text("UPDATE users SET is_active = false"))
    assert _feed(client, auth) == 401


def test_invalidate_is_the_hook_for_writes_the_process_cannot_see(
    client: TestClient, engine: Engine
) -> None:
    from app.core import authcache

    auth = signup(client, "erin@example.com")
    assert _feed(client, auth) == 200
    # a write through the bare driver connection, as another program would make it
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        cursor.execute("UPDATE api_tokens SET revoked_at = created_at")
        raw.commit()
    finally:
        raw.close()
    authcache.invalidate()
    assert _feed(client, auth) == 401


def test_the_feed_body_is_the_documented_model_byte_for_byte(
    client: TestClient, engine: Engine
) -> None:
    auth = signup(client, "frank@example.com")
    cid = client.post(
        "/api/v1/concerns", headers=auth, json={"seed_url": "news.example.com", "keywords": "AI"}
    ).json()["id"]
    with Session(engine, expire_on_commit=False) as session:
        concern = session.get(Concern, cid)
        assert concern is not None
        for i, (title, keywords) in enumerate(
            [
                ("国产 AI 芯片 “出货” 增长", ["AI", "芯片"]),
                ('quote " and \\ slash', []),
                ("", ["x"]),
            ]
        ):
            add_match(session, concern, i, title=title, snippet="…\n\t<b>", keywords=keywords)
        add_match(session, concern, 3, created_at=utcnow().replace(microsecond=0))  # newest
        oldest = add_match(session, concern, 4, created_at=datetime(2026, 1, 2, tzinfo=UTC))
        session.execute(
            text("UPDATE matches SET score = 0.1, read_at = created_at WHERE id % 2 = 0")
        )
        session.execute(
            text("UPDATE matches SET explanation = :e WHERE id % 2 = 1"),
            {"e": '{"score": 1e-7, "nested": [1.5, null, true, "芯片"], "t": {}}'},
        )
        session.execute(  # beyond 64 bits: not for orjson, still served
            text("UPDATE matches SET explanation = :e WHERE id = :id"),
            {"e": '{"big": 12345678901234567890123}', "id": oldest.id},
        )
        session.commit()
        user_id = concern.owner_id
    cursor = None
    for limit in (2, 2, 2, 2):
        params: dict[str, str | int] = {"limit": limit}
        if cursor:
            params["cursor"] = cursor
        resp = client.get("/api/v1/matches", headers=auth, params=params)
        assert resp.headers["content-type"] == "application/json"
        with Session(engine) as session:
            views, expected_cursor = matches.list_match_views(
                session, user_id, limit=limit, cursor=cursor
            )
        expected = MatchPage(items=views, next_cursor=expected_cursor).model_dump_json()
        assert resp.content == expected.encode()
        cursor = resp.json()["next_cursor"]
        if cursor is None:
            break


def test_plain_feed_pages_are_read_one_at_a_time_and_a_search_does_not_hold_them_up(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    auth = signup(client, "dora@example.com")
    real = matches.list_match_rows
    inside: list[str] = []
    release = {"plain": threading.Event(), "search": threading.Event()}

    def rows(session: Session, user_id: int, **kw: Any) -> Any:
        kind = "search" if kw.get("q") else "plain"
        inside.append(kind)
        assert release[kind].wait(10)
        return real(session, user_id, **kw)

    monkeypatch.setattr(matches, "list_match_rows", rows)

    def get(params: dict[str, str]) -> int:
        return client.get("/api/v1/matches", headers=auth, params=params).status_code

    def entered(kind: str, count: int) -> bool:
        deadline = time.monotonic() + 5
        while inside.count(kind) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return inside.count(kind) >= count

    with ThreadPoolExecutor(4) as pool:
        search = pool.submit(get, {"q": "goal"})
        assert entered("search", 1)
        first = pool.submit(get, {})
        assert entered("plain", 1)  # a search in progress does not hold up a plain page
        second = pool.submit(get, {"limit": "5"})
        time.sleep(0.3)
        assert inside.count("plain") == 1  # the second plain page waits for the first
        release["plain"].set()
        assert first.result(10) == 200 and second.result(10) == 200
        assert inside.count("plain") == 2
        release["search"].set()
        assert search.result(10) == 200


def _in_transaction(session: Session) -> bool | None:
    """Whether the session's connection is inside a database transaction (PostgreSQL; None
    on SQLite, whose driver opens none for a read)."""
    dbapi = session.connection().connection.dbapi_connection
    if not hasattr(getattr(dbapi, "info", None), "transaction_status"):
        return None
    return _in_transaction_of(dbapi)


def _in_transaction_of(dbapi: Any) -> bool:
    import psycopg

    return bool(dbapi.info.transaction_status != psycopg.pq.TransactionStatus.IDLE)


def test_a_plain_feed_page_is_one_statement_without_a_transaction(
    client: TestClient, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page alone is read in autocommit (no BEGIN, no ROLLBACK); a page with its total keeps
    one transaction, so that the two agree; and the pooled connection goes back to writers
    in transactions."""
    auth = signup(client, "gina@example.com")
    real = matches.list_match_rows
    seen: list[tuple[object, bool | None]] = []
    used: list[object] = []

    def rows(session: Session, user_id: int, **kw: Any) -> Any:
        out = real(session, user_id, **kw)
        level = session.connection().get_execution_options().get("isolation_level")
        seen.append((level, _in_transaction(session)))
        used.append(session.connection().connection.dbapi_connection)
        return out

    monkeypatch.setattr(matches, "list_match_rows", rows)
    assert client.get("/api/v1/matches", headers=auth).status_code == 200
    counted = client.get("/api/v1/matches", headers=auth, params={"with_total": "true"})
    assert counted.status_code == 200 and counted.headers["X-Total-Count"] == "0"
    postgres = engine.dialect.name == "postgresql"
    assert seen == [("AUTOCOMMIT", False if postgres else None), (None, True if postgres else None)]
    # the plain page's own connection, taken from the pool again, is back to transactions
    with contextlib.ExitStack() as held:
        for _ in range(engine.pool.checkedin() + 1):
            conn = held.enter_context(engine.connect())
            dbapi = conn.connection.dbapi_connection
            if dbapi is used[0]:
                break
        else:
            pytest.fail("the feed's connection did not go back to the pool")
        if postgres:
            assert dbapi.autocommit is False  # type: ignore[union-attr]
            conn.execute(text("SELECT 1"))
            assert conn.in_transaction() and _in_transaction_of(dbapi)
        else:
            assert dbapi.isolation_level is not None  # type: ignore[union-attr]
