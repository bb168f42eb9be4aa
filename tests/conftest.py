"""Shared fixtures: real databases (SQLite and PostgreSQL), real Redis, isolated settings.

With CI=true a missing PostgreSQL or Redis is a test failure, never a skip.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session

from tests.environment import CI, PG_URL, REDIS_URL, SHARED_DATA, truncate_all, unavailable


def _worker() -> str:
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


# --- PostgreSQL ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A private, freshly migrated PostgreSQL database for this test worker."""
    base = make_url(PG_URL)
    # unique per process: concurrent test runs on one server never drop each other's database
    name = f"timelypush_test_{_worker()}_{os.getpid()}"
    try:
        admin = create_engine(base, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        unavailable("PostgreSQL", exc)
    url = base.set(database=name).render_as_string(hide_password=False)
    from app.core.migrate import upgrade

    upgrade(url)
    yield url
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty SQLite database migrated to head, once per test worker."""
    from app.core.migrate import upgrade

    path = tmp_path_factory.mktemp("sqlite-template") / "migrated.db"
    upgrade(f"sqlite:///{path}")
    return path


def _migrated_sqlite(template: Path, path: Path) -> str:
    """The URL of a fresh copy of the migrated ``template`` at ``path`` (created 0600 as the app
    creates its file): the database migrating an empty file gives, in milliseconds instead of
    half a second — most tests of the app start from one, and `test_migrations` runs the
    migrations themselves."""
    from app.core.db import private_sqlite_file

    url = f"sqlite:///{path}"
    private_sqlite_file(url)
    with closing(sqlite3.connect(template)) as source, closing(sqlite3.connect(path)) as target:
        source.backup(target)
    return url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty, migrated database; each test runs on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        yield _migrated_sqlite(request.getfixturevalue("sqlite_template"), tmp_path / "test.db")
    else:
        url = request.getfixturevalue("postgres_url")
        engine = create_engine(url)
        truncate_all(engine)
        engine.dispose()
        yield url


@pytest.fixture
def sqlite_url(tmp_path: Path, sqlite_template: Path) -> str:
    """An empty, migrated SQLite database (for tests that need only one backend)."""
    return _migrated_sqlite(sqlite_template, tmp_path / "test.db")


@pytest.fixture(autouse=True)
def cheap_password_hashing(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """argon2 at its cheapest parameters in the test process: at the product's (64 MiB, three
    passes) each hash and each check costs 0.2 s of CPU, and a test of the web pages signs up
    and logs in several accounts. Tests marked ``real_argon2``, and every server a test starts
    in a process of its own, hash as the product does."""
    if request.node.get_closest_marker("real_argon2"):
        return
    from argon2 import PasswordHasher, profiles

    from app.core import security

    monkeypatch.setattr(security, "_hasher", PasswordHasher.from_parameters(profiles.CHEAPEST))


@pytest.fixture
def settings_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db_url: str) -> Iterator[None]:
    """Point the application's one settings object at the test database."""
    yield from _settings_env(monkeypatch, tmp_path, db_url)


def _settings_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, url: str) -> Iterator[None]:
    from app.core.config import get_settings
    from app.core.db import get_engine

    monkeypatch.setenv("TIMELYPUSH_DATABASE_URL", url)
    monkeypatch.setenv("TIMELYPUSH_VAR_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("TIMELYPUSH_SECRET_KEY", "test-secret-key-not-for-production")
    monkeypatch.delenv("TIMELYPUSH_REDIS_URL", raising=False)
    # no background jobs racing the test's own data; tests of the scheduler start it themselves
    monkeypatch.setenv("TIMELYPUSH_SCHEDULER_ENABLED", "false")
    get_settings.cache_clear()
    get_engine.cache_clear()
    yield
    get_engine().dispose()
    get_settings.cache_clear()
    get_engine.cache_clear()


@pytest.fixture
def engine(settings_env: None) -> Engine:
    from app.core.db import get_engine

    return get_engine()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with Session(engine, expire_on_commit=False) as s:
        yield s


# --- Redis --------------------------------------------------------------------------------


@pytest.fixture
def redis_url() -> Iterator[str]:
    """A Redis database private to this test worker, flushed before and after."""
    import redis

    worker = _worker()
    index = 1 + (int(worker[2:]) if worker.startswith("gw") else 0) % 14
    url = f"{REDIS_URL.rstrip('/')}/{index}"
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=2)
        client.ping()
    except Exception as exc:
        unavailable("Redis", exc)
    client.flushdb()
    yield url
    client.flushdb()
    client.close()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data (real pages and corpora); skipped when absent outside CI."""
    if not SHARED_DATA.is_dir():
        if CI:
            pytest.fail(f"{SHARED_DATA} is missing", pytrace=False)
        pytest.skip(f"{SHARED_DATA} is not here")
    return SHARED_DATA
