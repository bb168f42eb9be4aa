"""Per-site crawl locks with expiry: at most one worker crawls a site at a time.

Two implementations of one small protocol (``acquire() -> bool``, ``extend() -> bool``,
``release()``):

- :class:`RedisLock` — ``SET key token NX PX ttl``; extend and release are compare-and-set
  Lua scripts, so a worker whose lock already expired never frees someone else's.
- :class:`DbLock` — a compare-and-set ``UPDATE sites SET locked_until, locked_by WHERE
  locked_until is past (or ours)``, for the embedded mode without Redis.

A lock is tied to a live owner. While a crawl runs, a :class:`Heartbeat` thread extends its
lock every ``ttl / 3`` seconds, whatever the crawl is waiting for; a killed worker stops beating
and its lock expires within ``ttl`` (a minute by default), so the next worker takes the site
over, resuming from ``sites.checkpoint``. The owner token names the host, the process id and a
random id of the process's life (``host:pid:life:attempt``): a process that starts on the same
host (a restarted ``timelypush serve``, a container whose process is pid 1 again) sees at once
that a lock of a dead process is stale (:func:`owner_dead`) and frees it without waiting.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from datetime import UTC, datetime, timedelta
from typing import Protocol

from sqlalchemy import or_, select, update
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.models import Site, utcnow

logger = logging.getLogger(__name__)


_LIFE = uuid.uuid4().hex[:12]
"""A random id of this process's life (a restarted process may get the same pid again)."""


def _host() -> str:
    return socket.gethostname()[:60]


def lock_owner() -> str:
    """A token naming this host, process, process life and attempt (host:pid:life:random)."""
    return f"{_host()}:{os.getpid()}:{_LIFE}:{uuid.uuid4().hex[:8]}"


def owner_dead(owner: str | None) -> bool:
    """True when ``owner`` is certainly a dead process of this host; False when alive or unknown.

    A lock from another host is never judged here (its heartbeat says whether it lives).
    """
    if not owner:
        return False
    parts = owner.split(":")
    if len(parts) < 3 or parts[0] != _host() or not parts[1].isdigit():
        return False
    pid = int(parts[1])
    if pid == os.getpid():
        # this very process: alive if the token is of this life; an older life of this pid died
        return len(parts) >= 4 and parts[2] != _LIFE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


class SiteLock(Protocol):
    """A lease on one site's crawl, renewed while the crawl runs."""

    owner: str

    def acquire(self) -> bool: ...
    def extend(self) -> bool: ...
    def release(self) -> None: ...


class Heartbeat:
    """Extend ``lock`` every ``interval`` seconds in a daemon thread until :meth:`stop`."""

    def __init__(self, lock: SiteLock, interval: float) -> None:
        self.lock = lock
        self.interval = max(0.05, interval)
        self.stopped = threading.Event()
        self.lost = False
        self.thread = threading.Thread(target=self._run, name="crawl-lock-heartbeat", daemon=True)

    def _run(self) -> None:
        while not self.stopped.wait(self.interval):
            try:
                if not self.lock.extend():
                    self.lost = True
                    logger.warning("crawl lock %s was lost", self.lock.owner)
            except Exception:
                logger.warning("crawl lock heartbeat failed", exc_info=True)

    def __enter__(self) -> Heartbeat:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self.stopped.set()
        if self.thread.is_alive():
            self.thread.join(self.interval + 5)


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


REDIS_PREFIX = "timelypush:lock:site:"


class RedisLock:
    """A Redis lock on one site: ``timelypush:lock:site:<id>``."""

    def __init__(self, url: str, site_id: int, ttl: float, owner: str | None = None) -> None:
        import redis

        self.client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
        self.key = f"{REDIS_PREFIX}{site_id}"
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


def holder(site: Site, *, redis_url: str | None) -> str | None:
    """The owner of ``site``'s crawl lock if a live one holds it (None when free or stale)."""
    if redis_url:
        import redis

        client = redis.Redis.from_url(redis_url, socket_connect_timeout=5, socket_timeout=5)
        try:
            raw = client.get(f"{REDIS_PREFIX}{site.id}")
        finally:
            client.close()
        owner = raw.decode() if isinstance(raw, bytes) else raw
    else:
        live = site.locked_until is not None and _aware(site.locked_until) > utcnow()
        owner = site.locked_by if live else None
    return None if owner is None or owner_dead(owner) else str(owner)


def free_dead_locks(engine: Engine, redis_url: str | None) -> list[int]:
    """Free every site lock whose owner is a dead process of this host; returns the site ids."""
    freed: list[int] = []
    table = Site.__table__  # type: ignore[attr-defined]
    with engine.begin() as conn:
        rows = conn.execute(
            select(table.c.id, table.c.locked_by).where(table.c.locked_by.is_not(None))
        ).all()
        for site_id, owner in rows:
            if owner_dead(owner):
                conn.execute(
                    update(table)
                    .where(table.c.id == site_id, table.c.locked_by == owner)
                    .values(locked_until=None, locked_by=None)
                )
                freed.append(int(site_id))
    if redis_url:
        import redis

        client = redis.Redis.from_url(redis_url, socket_connect_timeout=5, socket_timeout=5)
        try:
            for key in client.scan_iter(match=f"{REDIS_PREFIX}*", count=500):
                raw = client.get(key)
                owner = raw.decode() if isinstance(raw, bytes) else raw
                if owner and owner_dead(owner):
                    client.eval(_RELEASE, 1, key, owner)
                    name = key.decode() if isinstance(key, bytes) else str(key)
                    freed.append(int(name.rsplit(":", 1)[1]))
        finally:
            client.close()
    if freed:
        logger.info("freed the crawl locks of dead processes on sites %s", sorted(freed))
    return freed


def free_expired_locks(session: Session) -> int:
    """Clear the database locks whose time ran out; returns how many (the caller commits)."""
    sites = Site.__table__  # type: ignore[attr-defined]
    result = session.exec(
        update(sites)
        .where(sites.c.locked_until < utcnow())
        .values(locked_until=None, locked_by=None)
    )
    return int(result.rowcount)


def _aware(moment: datetime) -> datetime:
    """SQLite hands datetimes back naive; they are UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
