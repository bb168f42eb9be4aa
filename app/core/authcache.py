"""A short-lived, per-process cache of valid bearer tokens: token → user id.

The API's hot path (the message feed) would otherwise spend a database round trip per request
on the token alone. An entry is trusted for at most ``ttl`` seconds (the setting
``token_cache_seconds``; 0 turns the cache off) and never past the token's own expiry.

Revocation takes effect **at once in this process** and **within ``ttl`` seconds in the other
processes** (other uvicorn workers, other machines):

- Every ``UPDATE`` or ``DELETE`` of ``api_tokens`` or ``users`` run through SQLAlchemy in this
  process (ORM flush, bulk statement or raw SQL) empties the cache when it executes and again
  when its connection goes back to the pool after the commit, so a request that read the old
  row in between cannot keep it.
  Revoking a token, revoking all of a user's tokens on a password change, deactivating or
  deleting a user all write one of those tables, so they need no extra call.
- ``invalidate()`` is the explicit hook for anything that makes a token invalid *without*
  writing those tables (e.g. a rule evaluated in code, or a write through another driver):
  call it after the change is committed.

Only the user id is cached, never a ``User`` row: handlers that need the user's fields load
them, so they are never stale.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.pool import Pool

__all__ = ["generation", "invalidate", "lookup", "store"]

# statements that can make a cached token invalid (as SQLAlchemy renders them)
_WATCHED = tuple(
    f"{verb} {table}"
    for verb in ("UPDATE", "DELETE FROM", "update", "delete from")
    for table in ("api_tokens", "users", '"api_tokens"', '"users"')
)
_DIRTY = "authcache_dirty"


@dataclass(frozen=True, slots=True)
class _Entry:
    user_id: int
    expires_at: datetime | None
    until: float  # time.monotonic() deadline
    generation: int


_entries: dict[str, _Entry] = {}
_generation = 0
_lock = threading.Lock()
_MAX_ENTRIES = 100_000


def _key(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def generation() -> int:
    """The current generation; pass it to ``store`` as read *before* the database lookup."""
    return _generation


def lookup(token: str) -> int | None:
    """The user id of a token validated less than ``ttl`` seconds ago, or None."""
    if not token or not _entries:
        return None
    entry = _entries.get(_key(token))
    if entry is None or entry.generation != _generation or time.monotonic() >= entry.until:
        return None
    if entry.expires_at is not None and entry.expires_at <= datetime.now(UTC):
        return None
    return entry.user_id


def store(token: str, user_id: int, expires_at: datetime | None, *, ttl: float, since: int) -> None:
    """Remember a token found valid by a lookup that started at generation ``since``."""
    if ttl <= 0:
        return
    if expires_at is not None and expires_at.tzinfo is None:
        expires_at = expires_at.replace(tzinfo=UTC)
    with _lock:
        if since != _generation:  # something was revoked while we read: do not cache
            return
        if len(_entries) >= _MAX_ENTRIES:
            _entries.clear()
        _entries[_key(token)] = _Entry(user_id, expires_at, time.monotonic() + ttl, since)


def invalidate() -> None:
    """Forget every cached token in this process (call after committing a revocation)."""
    global _generation
    with _lock:
        _generation += 1
        _entries.clear()


@event.listens_for(Engine, "after_cursor_execute")
def _after_execute(
    conn: Any, _cursor: Any, statement: str, _params: Any, _context: Any, _many: bool
) -> None:
    if statement.lstrip().startswith(_WATCHED) and not _only_touches(statement):
        conn.info[_DIRTY] = True
        invalidate()


def _only_touches(statement: str) -> bool:
    """True for the ``UPDATE api_tokens SET last_used_at=…`` of a lookup (not a revocation)."""
    head, sep, rest = statement.partition(" SET ")
    if not sep or "api_tokens" not in head:
        return False
    assignments = rest.partition(" WHERE ")[0]
    return "," not in assignments and assignments.strip().startswith("last_used_at")


@event.listens_for(Pool, "checkin")
def _after_release(_dbapi_conn: Any, record: Any) -> None:
    # a Session gives its connection back right after COMMIT (a Core block when it ends):
    # empty the cache again, so a lookup made between the UPDATE and the commit is dropped
    if record is not None and record.info.pop(_DIRTY, False):
        invalidate()
