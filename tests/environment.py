"""Where the test services are, and what a missing one means: fail on CI, skip elsewhere."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import SQLModel

CI = os.environ.get("CI", "").lower() == "true"
PG_URL = os.environ.get(
    "TIMELYPUSH_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
REDIS_URL = os.environ.get("TIMELYPUSH_TEST_REDIS_URL", "redis://127.0.0.1:6379")
SHARED_DATA = Path(
    os.environ.get(
        "TIMELYPUSH_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"
    )
)


def unavailable(what: str, why: object) -> None:
    """A missing service: fail on CI, skip on a developer's machine."""
    message = f"{what} is not reachable: {why}"
    if CI:
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def truncate_all(engine: Engine) -> None:
    """Empty every table of the app (PostgreSQL), ids restarting at 1."""
    tables = ", ".join(f'"{t.name}"' for t in SQLModel.metadata.sorted_tables)
    with engine.begin() as conn:
        conn.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
