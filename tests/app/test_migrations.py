"""Alembic: upgrade → downgrade → upgrade works on SQLite and PostgreSQL, and matches the models."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect
from sqlmodel import SQLModel

from app.core.migrate import downgrade, upgrade

TABLES = {
    "users",
    "api_tokens",
    "concerns",
    "sites",
    "pages",
    "links",
    "matches",
    "deliveries",
    "crawl_runs",
}


def test_upgrade_downgrade_upgrade(db_url: str) -> None:
    engine = create_engine(db_url)
    assert set(inspect(engine).get_table_names()) >= TABLES
    downgrade(db_url, "base")
    assert not TABLES & set(inspect(engine).get_table_names())
    upgrade(db_url)
    assert set(inspect(engine).get_table_names()) >= TABLES
    engine.dispose()


def test_migrations_match_models(db_url: str) -> None:
    engine = create_engine(db_url)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
    engine.dispose()
    assert diff == [], f"models and migrations differ: run alembic revision --autogenerate: {diff}"
