"""Per-site crawl locks with expiry: at most one worker crawls a site at a time.

Two implementations of one small protocol (``acquire() -> bool``, ``extend() -> bool``,
``release()``):

- :class:`RedisLock` — ``SET key token NX PX ttl``; extend and release are compare-and-set
  Lua scripts, so a worker whose lock already expired never frees someone else's.
- :class:`DbLock` — a compare-and-set ``UPDATE sites SET locked_until, locked_by WHERE
  locked_until is past (or ours)``, for the embedded mode without Redis.

A killed worker simply stops extending: the lock expires after ``ttl`` seconds and the next
worker takes the site over, resuming from ``sites.checkpoint``.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from datetime import timedelta
from typing import Protocol

from sqlalchemy import or_, update
from sqlalchemy.engine import Engine

from app.models import Site, utcnow

logger = logging.getLogger(__name__)


def lock_owner() -> str:
    """A token naming this process and attempt (host:pid:random)."""
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


class SiteLock(Protocol):
    owner: str

    def acquire(self) -> bool: ...
    def extend(self) -> bool: ...
    def release(self) -> None: ...


_EXTEND = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


class RedisLock:
    """A Redis lock on one site: ``timelypush:lock:site:<id>``."""

    def __init__(self, url: str, site_id: int, ttl: float, owner: str | None = None) -> None:
        import redis

        self.client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
        self.key = f"timelypush:lock:site:{site_id}"
        self.ttl_ms = max(1, int(ttl * 1000))
        self.owner = owner or lock_owner()

    def acquire(self) -> bool:
        return bool(self.client.set(self.key, self.owner, nx=True, px=self.ttl_ms))

    def extend(self) -> bool:
        return bool(self.client.eval(_EXTEND, 1, self.key, self.owner, self.ttl_ms))

    def release(self) -> None:
        try:
            self.client.eval(_RELEASE, 1, self.key, self.owner)
        finally:
            self.client.close()


class DbLock:
    """A lock in the ``sites`` row itself (``locked_until`` / ``locked_by``)."""

    def __init__(self, engine: Engine, site_id: int, ttl: float, owner: str | None = None) -> None:
        self.engine = engine
        self.site_id = site_id
        self.ttl = timedelta(seconds=ttl)
        self.owner = owner or lock_owner()

    def _claim(self, *, only_ours: bool) -> bool:
        now = utcnow()
        table = Site.__table__  # type: ignore[attr-defined]
        free = table.c.locked_by == self.owner
        if not only_ours:
            free = or_(table.c.locked_until.is_(None), table.c.locked_until < now, free)
        stmt = (
            update(table)
            .where(table.c.id == self.site_id, free)
            .values(locked_until=now + self.ttl, locked_by=self.owner)
        )
        with self.engine.begin() as conn:
            return conn.execute(stmt).rowcount == 1

    def acquire(self) -> bool:
        return self._claim(only_ours=False)

    def extend(self) -> bool:
        return self._claim(only_ours=True)

    def release(self) -> None:
        table = Site.__table__  # type: ignore[attr-defined]
        stmt = (
            update(table)
            .where(table.c.id == self.site_id, table.c.locked_by == self.owner)
            .values(locked_until=None, locked_by=None)
        )
        with self.engine.begin() as conn:
            conn.execute(stmt)


def site_lock(site_id: int, *, engine: Engine, redis_url: str | None, ttl: float) -> SiteLock:
    """The lock for ``site_id``: in Redis when it is configured, else in the database."""
    if redis_url:
        return RedisLock(redis_url, site_id, ttl)
    return DbLock(engine, site_id, ttl)
