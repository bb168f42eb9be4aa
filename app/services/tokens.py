"""Per-device API tokens: issue, list, refresh, revoke, and the user a bearer token names.

The functions flush; the caller commits.
"""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import Session, col, select

from app.core.config import get_settings
from app.core.security import hash_token, new_token
from app.models import ApiToken, User, utcnow
from app.services.errors import NotFound

TOKEN_TOUCH_INTERVAL = timedelta(minutes=1)


def issue_token(session: Session, user: User, *, name: str) -> tuple[str, ApiToken]:
    """A new bearer token for a device: (plaintext, shown once; the stored row, hashed)."""
    if user.id is None:
        raise NotFound("No such user.")
    name = "".join(ch for ch in (name or "") if ch.isprintable())
    plaintext = new_token("tp")
    row = ApiToken(
        user_id=user.id,
        name=(name or "device").strip()[:100] or "device",
        token_hash=hash_token(plaintext),
        expires_at=utcnow() + timedelta(days=get_settings().api_token_days),
    )
    session.add(row)
    session.flush()
    session.refresh(row)
    return plaintext, row


def list_tokens(session: Session, user: User) -> list[ApiToken]:
    """The user's tokens that still work, newest first."""
    return list(
        session.exec(
            select(ApiToken)
            .where(ApiToken.user_id == user.id, col(ApiToken.revoked_at).is_(None))
            .order_by(col(ApiToken.created_at).desc(), col(ApiToken.id).desc())
        )
    )


def get_token(session: Session, user: User, token_id: int) -> ApiToken:
    """One of the user's active tokens; NotFound for other users' or revoked tokens."""
    row = session.get(ApiToken, token_id)
    if row is None or row.user_id != user.id or row.revoked_at is not None:
        raise NotFound("No such token.", code="token_not_found")
    return row


def refresh_token(session: Session, user: User, token_id: int) -> ApiToken:
    """Give one of the user's tokens a full lifetime again from now (it must still work:
    an expired token is dead, its device logs in again)."""
    return extend(session, get_token(session, user, token_id))


def extend(session: Session, row: ApiToken) -> ApiToken:
    """``refresh_token`` for a token the caller loaded as the user's (``get_token``)."""
    now = utcnow()
    if row.expires_at is not None and row.expires_at <= now:
        raise NotFound("No such token.", code="token_not_found")
    row.expires_at = now + timedelta(days=get_settings().api_token_days)
    session.add(row)
    session.flush()
    return row


def revoke_token(session: Session, user: User, token_id: int) -> ApiToken:
    """Revoke one of the user's tokens; NotFound for other users' or revoked tokens."""
    return revoke(session, get_token(session, user, token_id))


def revoke(session: Session, row: ApiToken) -> ApiToken:
    """Revoke a token the caller loaded as the user's (``get_token``)."""
    row.revoked_at = utcnow()
    session.add(row)
    session.flush()
    return row


def user_for_token(session: Session, token: str) -> User | None:
    """The active user a bearer token belongs to, or None (unknown, revoked, expired)."""
    if not token:
        return None
    found = session.exec(
        select(ApiToken, User)
        .join(User, col(User.id) == ApiToken.user_id)
        .where(ApiToken.token_hash == hash_token(token))
    ).first()
    if found is None:
        return None
    row, user = found
    now = utcnow()
    if row.revoked_at is not None or not user.is_active:
        return None
    if row.expires_at is not None and row.expires_at <= now:
        return None
    if row.last_used_at is None or now - row.last_used_at >= TOKEN_TOUCH_INTERVAL:
        row.last_used_at = now
        session.add(row)
        session.flush()
    return user
