"""Attempt limits that hold across processes: failed logins per account and per IP, SMS sends.

Each event is a row in ``auth_events`` keyed like ``login:acct:alice@example.com``; a key is
over its limit when it has ``limit`` rows inside the sliding ``window``. Rows older than the
window are purged as new ones are written, so the table stays small.
"""

from __future__ import annotations

from datetime import UTC, timedelta

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from app.models import AuthEvent, utcnow
from app.services.errors import Throttled


def _count(session: Session, key: str, window: timedelta) -> tuple[int, int]:
    """(events of ``key`` inside the window, seconds until the oldest of them leaves it)."""
    now = utcnow()
    since = now - window
    count, oldest = session.exec(
        select(func.count(), func.min(AuthEvent.created_at)).where(
            AuthEvent.key == key, AuthEvent.created_at > since
        )
    ).one()
    if not count or oldest is None:
        return 0, 0
    if oldest.tzinfo is None:  # defensive: some drivers drop the zone on aggregates
        oldest = oldest.replace(tzinfo=UTC)
    return int(count), max(1, int((oldest + window - now).total_seconds()) + 1)


def check(session: Session, key: str, *, limit: int, window: timedelta, message: str) -> None:
    """Raise Throttled when ``key`` already has ``limit`` events inside ``window``."""
    count, retry_after = _count(session, key, window)
    if count >= limit:
        raise Throttled(message, retry_after=retry_after)


def record(session: Session, *keys: str, window: timedelta) -> None:
    """Write one event for each key (and purge expired ones); the caller commits."""
    now = utcnow()
    session.exec(delete(AuthEvent).where(col(AuthEvent.created_at) < now - window))
    for key in keys:
        session.add(AuthEvent(key=key, created_at=now))
    session.flush()


def clear(session: Session, key: str) -> None:
    """Forget the events of ``key`` (after a successful login)."""
    session.exec(delete(AuthEvent).where(col(AuthEvent.key) == key))
    session.flush()
