"""The engine across processes: a forked process (a Celery pool process) never talks over a
connection its parent opened."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from pathlib import Path
from queue import Empty

import pytest
from sqlalchemy import text

from tests.conftest import _settings_env

pytestmark = pytest.mark.postgres


@pytest.fixture
def postgres_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, postgres_url: str
) -> Iterator[None]:
    yield from _settings_env(monkeypatch, tmp_path, postgres_url)


def _backend(queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    from app.core.db import get_engine

    with get_engine().connect() as conn:
        queue.put(conn.execute(text("SELECT pg_backend_pid()")).scalar_one())


def test_a_forked_process_opens_connections_of_its_own(postgres_env: None) -> None:
    from app.core.db import get_engine

    engine = get_engine()
    with engine.connect() as conn:  # the parent's connection, back in the pool after this
        parent = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_backend, args=(queue,))
    child.start()
    try:
        seen = queue.get(timeout=60)
    except Empty:
        pytest.fail("the forked process could not query the database")
    child.join(60)
    assert child.exitcode == 0
    assert seen != parent  # its own session, not the parent's socket
    with engine.connect() as conn:  # and the parent's pooled connection still serves it
        assert conn.execute(text("SELECT pg_backend_pid()")).scalar_one() == parent
