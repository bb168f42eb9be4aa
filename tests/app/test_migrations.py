"""Alembic: upgrade → downgrade → upgrade works on SQLite and PostgreSQL, and matches the models."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel, select

from app.core.migrate import downgrade, upgrade
from app.models import ApiToken, Delivery, User

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


def _add_user_with_merged_delivery(engine: Engine) -> tuple[int, int, int]:
    with Session(engine) as session:
        user = User(email="keep@example.com", password_hash="x")
        session.add(user)
        session.flush()
        assert user.id is not None
        session.add(ApiToken(user_id=user.id, token_hash="h" * 64))
        primary = Delivery(idempotency_key="i:1:email:1", user_id=user.id, channel="email")
        session.add(primary)
        session.flush()
        assert primary.id is not None
        merged = Delivery(
            idempotency_key="i:1:email:2",
            user_id=user.id,
            channel="email",
            merged_into_id=primary.id,
        )
        session.add(merged)
        session.commit()
        assert merged.id is not None
        return user.id, primary.id, merged.id


def test_0008_keeps_the_rows_and_moves_the_merge_note_both_ways(db_url: str) -> None:
    engine = create_engine(db_url)
    user_id, primary_id, merged_id = _add_user_with_merged_delivery(engine)

    downgrade(db_url, "0004")
    with engine.connect() as conn:
        note = conn.execute(
            text("SELECT last_error FROM deliveries WHERE id = :id"), {"id": merged_id}
        ).scalar_one()
    assert note == f"merged into delivery {primary_id}"

    upgrade(db_url)
    with Session(engine) as session:
        # the tables rebuilt on SQLite did not take the user's tokens with them
        assert session.get(User, user_id) is not None
        assert len(session.exec(select(ApiToken)).all()) == 1
        merged = session.get(Delivery, merged_id)
        assert merged is not None
        assert merged.merged_into_id == primary_id
        assert merged.last_error is None
    engine.dispose()


@pytest.mark.parametrize(
    ("column", "value"), [("status", "bogus"), ("kind", "newsletter"), ("channel", "fax")]
)
def test_the_database_refuses_a_delivery_value_outside_its_enum(
    db_url: str, column: str, value: str
) -> None:
    engine = create_engine(db_url)
    with Session(engine) as session:
        user = User(email="check@example.com", password_hash="x")
        session.add(user)
        session.flush()
        assert user.id is not None
        row = Delivery(idempotency_key="k", user_id=user.id, channel="email")
        setattr(row, column, value)
        session.add(row)
        with pytest.raises(IntegrityError):
            session.flush()
    engine.dispose()
