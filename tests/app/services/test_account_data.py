"""Export and delete an account: every row of the user goes, shared sites and the other
users' data stay (both databases). The administrator's list / disable from the CLI."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func
from sqlmodel import Session, col, select
from typer.testing import CliRunner

from app.cli import cli
from app.core.config import get_settings
from app.models import (
    ApiToken,
    ConcernCreate,
    Delivery,
    Match,
    ResetCode,
    Site,
    User,
    WebSession,
    utcnow,
)
from app.models import Concern as ConcernRow
from app.services import account_data, auth, concerns, tokens
from app.services.errors import Unauthorized, WrongPassword
from tests.factories import PASSWORD, add_match, make_account

OWNED = (
    (Delivery, Delivery.user_id),
    (Match, Match.user_id),
    (ConcernRow, ConcernRow.owner_id),
    (ApiToken, ApiToken.user_id),
    (ResetCode, ResetCode.user_id),
    (WebSession, WebSession.user_id),
    (User, User.id),
)


def _rows(session: Session, user_id: int) -> dict[str, int]:
    return {
        table.__name__: session.exec(
            select(func.count()).select_from(table).where(col(column) == user_id)
        ).one()
        for table, column in OWNED
    }


def _everything(session: Session, user: User, seed: str) -> None:
    concern = concerns.create_concern(
        session, user, ConcernCreate(seed_url=seed, keywords="AI"), probe=False
    )
    match = add_match(session, concern, 1, url=f"https://{user.id}.news.example.com/1")
    assert user.id is not None and match.id is not None
    session.add(
        Delivery(
            idempotency_key=f"i:{user.id}",
            user_id=user.id,
            match_id=match.id,
            match_ids=[match.id],
            channel="email",
            target=user.email,
        )
    )
    session.add(WebSession(user_id=user.id, key_hash=f"{user.id:064d}"))
    session.add(ResetCode(user_id=user.id, code_hash="x", expires_at=utcnow()))
    session.commit()
    tokens.issue_token(session, user, name="phone")


def test_export_then_delete_removes_every_row_of_the_user(
    session: Session, allow_test_hosts: None
) -> None:
    alice = make_account(session)
    bob = make_account(session, "bob@example.com")
    _everything(session, alice, "news.example.com")
    _everything(session, bob, "news.example.com")  # the same, shared site
    session.commit()
    assert alice.id is not None and bob.id is not None

    data = account_data.export_user(session, alice)
    text = json.dumps(data, ensure_ascii=False)
    assert data["profile"]["email"] == "alice@example.com"
    assert len(data["concerns"]) == 1 and len(data["messages"]) == 1
    assert len(data["deliveries"]) == 1 and len(data["api_tokens"]) == 1
    assert "argon2" not in text and "bob@example.com" not in text

    with pytest.raises(WrongPassword):
        account_data.delete_account(session, alice, password="wrong one", ip="10.0.0.1")
    assert _rows(session, alice.id)["User"] == 1

    bob_before = _rows(session, bob.id)
    account_data.delete_account(session, alice, password=PASSWORD, ip="10.0.0.1")
    session.expire_all()
    assert set(_rows(session, alice.id).values()) == {0}
    assert _rows(session, bob.id) == bob_before
    assert session.exec(select(func.count()).select_from(Site)).one() == 1  # shared: stays


def test_cli_lists_and_disables_users(session: Session) -> None:
    alice = make_account(session)
    tokens.issue_token(session, alice, name="phone")
    session.commit()
    listed = CliRunner().invoke(cli, ["user", "list"])
    assert listed.exit_code == 0 and "alice@example.com" in listed.output
    disabled = CliRunner().invoke(cli, ["user", "disable", "Alice@Example.com"])
    assert disabled.exit_code == 0, disabled.output
    assert "DISABLED" in CliRunner().invoke(cli, ["user", "list"]).output
    session.expire_all()
    with pytest.raises(Unauthorized):
        auth.authenticate(session, email="alice@example.com", password=PASSWORD, ip="10.0.0.2")
    session.expire_all()
    assert all(t.revoked_at for t in session.exec(select(ApiToken)))
    assert CliRunner().invoke(cli, ["user", "enable", "alice@example.com"]).exit_code == 0
    assert auth.authenticate(session, email="alice@example.com", password=PASSWORD, ip="10.0.0.3")
    assert CliRunner().invoke(cli, ["user", "disable", "nobody@example.com"]).exit_code == 1
    get_settings.cache_clear()
