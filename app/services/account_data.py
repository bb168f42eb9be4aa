"""A user's own data: export it as JSON, delete the account with everything of theirs, and the
administrator's view (list users, disable or enable one).

Shared things stay: pages and sites are the crawler's, shared by every concern on them; a
site keeps being visited while other users watch it.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import delete
from sqlmodel import Session, col, select

from app.models import (
    ApiToken,
    ApiTokenPublic,
    Concern,
    ConcernPublic,
    Delivery,
    DeliveryPublic,
    Match,
    ResetCode,
    User,
    UserPublic,
    WebSession,
    utcnow,
)
from app.services import auth
from app.services.errors import NotFound

logger = logging.getLogger(__name__)

EXPORT_VERSION = 1


def export_user(session: Session, user: User) -> dict[str, Any]:
    """Everything stored for ``user`` as JSON-ready data (no secrets: no password hash, no
    token hashes, no webhook secret)."""
    concerns = list(session.exec(select(Concern).where(Concern.owner_id == user.id)))
    matches = list(
        session.exec(select(Match).where(Match.user_id == user.id).order_by(col(Match.id)))
    )
    deliveries = list(
        session.exec(select(Delivery).where(Delivery.user_id == user.id).order_by(col(Delivery.id)))
    )
    tokens = list(session.exec(select(ApiToken).where(ApiToken.user_id == user.id)))
    return {
        "version": EXPORT_VERSION,
        "exported_at": utcnow().isoformat(),
        "profile": UserPublic.model_validate(user).model_dump(mode="json"),
        "concerns": [ConcernPublic.model_validate(c).model_dump(mode="json") for c in concerns],
        "messages": [
            {
                "id": m.id,
                "concern_id": m.concern_id,
                "title": m.title,
                "url": m.url,
                "snippet": m.snippet,
                "score": m.score,
                "matched_keywords": list(m.matched_keywords),
                "read": m.read_at is not None,
                "deleted": m.deleted_at is not None,
                "created_at": m.created_at.isoformat(),
            }
            for m in matches
        ],
        "deliveries": [
            DeliveryPublic.model_validate(d).model_dump(mode="json") for d in deliveries
        ],
        "api_tokens": [ApiTokenPublic.model_validate(t).model_dump(mode="json") for t in tokens],
    }


def delete_account(session: Session, user: User, *, password: str, ip: str | None) -> None:
    """Delete the account and every row of it after checking the password (throttled like a
    login); the caller commits."""
    auth.check_current_password(session, user, password, ip=ip)
    erase(session, user)


def erase(session: Session, user: User) -> None:
    """Delete ``user`` and everything of theirs (children first, so no database needs
    cascades for it); the caller commits."""
    uid = user.id
    for table, column in (
        (Delivery, Delivery.user_id),
        (Match, Match.user_id),
        (Concern, Concern.owner_id),
        (ApiToken, ApiToken.user_id),
        (ResetCode, ResetCode.user_id),
        (WebSession, WebSession.user_id),
    ):
        session.exec(delete(table).where(col(column) == uid))
    session.exec(delete(User).where(col(User.id) == uid))
    session.flush()
    logger.info("deleted user %s and their data", uid)


def list_users(session: Session) -> list[User]:
    return list(session.exec(select(User).order_by(col(User.id))))


def set_active(session: Session, email: str, *, active: bool) -> User:
    """Disable (no login, no token, no push) or enable an account; the caller commits."""
    user = session.exec(select(User).where(User.email == auth.normalize_email(email))).first()
    if user is None:
        raise NotFound("No user %(email)s.", params={"email": email})
    user.is_active = active
    session.add(user)
    if not active:
        auth.revoke_everything(session, user)
    session.flush()
    return user
