"""Engine and sessions. The only place that turns settings into a database connection."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, create_engine

from app.core import authcache  # noqa: F401 (its listeners see every engine)
from app.core.config import Settings, get_settings


def _json_loads(text: str | bytes) -> Any:
    """JSON columns as read: orjson (several times faster than ``json.loads`` on the feed's
    50 × 2 columns per page), falling back to ``json`` for what orjson refuses (NaN, huge
    integers) so that every stored value still reads back."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def _json_dumps(value: Any) -> str:
    """JSON columns as written: compact, and Chinese as itself (escaped, each character took
    six bytes; a concern's stored model holds thousands of words)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def make_engine(settings: Settings) -> Engine:
    url = settings.sqlalchemy_url
    if url.startswith("sqlite"):
        private_dir(settings.var_dir)
        private_sqlite_file(url)
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 30},
            pool_pre_ping=True,
            json_serializer=_json_dumps,
            json_deserializer=_json_loads,
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record):  # type: ignore[no-untyped-def]
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        return engine
    # no pool_pre_ping: it costs a `SELECT 1` round trip on every checkout. A connection the
    # server closed (restart, failover) fails the one statement that meets it; SQLAlchemy
    # then sees the disconnect and discards the whole pool, so the next request reconnects.
    # pool_recycle keeps connections younger than typical server / proxy idle timeouts.
    return create_engine(
        url,
        pool_size=10,
        max_overflow=20,
        pool_recycle=1800,
        json_serializer=_json_dumps,
        json_deserializer=_json_loads,
    )


def private_dir(path: Path) -> None:
    """Create ``path`` (and parents) readable by the service's user only (0700)."""
    if not path.exists():
        path.mkdir(parents=True, mode=0o700, exist_ok=True)
        path.chmod(0o700)  # mkdir's mode is masked by the umask


def private_sqlite_file(url: str) -> None:
    """Create the SQLite file 0600 before SQLite does (its journal files copy the mode)."""
    database = make_url(url).database
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    path = Path(database)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        path.chmod(0o600)


@lru_cache
def get_engine() -> Engine:
    return make_engine(get_settings())


def _forget_parent_connections() -> None:
    """In a forked process (a Celery pool process, a server's worker): the pooled connections
    the parent opened are the parent's, and two processes talking over one socket corrupt each
    other's statements (PostgreSQL: "prepared statement already exists"). The child drops them
    from its pool without closing them (closing would end the parent's sessions too) and opens
    its own (SQLAlchemy's recipe for ``multiprocessing``)."""
    if get_engine.cache_info().currsize:
        get_engine().dispose(close=False)


os.register_at_fork(after_in_child=_forget_parent_connections)


@lru_cache(maxsize=8)
def one_statement(engine: Engine) -> Engine:
    """``engine`` for reads of one statement each: no transaction is opened around them
    (autocommit), which spares the ``BEGIN`` and the ``ROLLBACK`` that return the connection
    to the pool, two round trips and a quarter of PostgreSQL's CPU on a feed page. One
    statement sees one snapshot either way; reads that need several statements to agree
    (a page and its total count) keep the plain engine."""
    return engine.execution_options(isolation_level="AUTOCOMMIT")


@contextmanager
def session_scope(engine: Engine | None = None) -> Iterator[Session]:
    """A session that commits on success and rolls back on error."""
    with Session(engine or get_engine(), expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
