"""Run Alembic programmatically (``timelypush migrate``, ``serve``, tests)."""

from __future__ import annotations

from alembic.config import Config

from alembic import command
from app.core.config import get_settings
from app.core.resources import data_path


def alembic_config(url: str | None = None) -> Config:
    cfg = Config(str(data_path("alembic.ini")))
    cfg.set_main_option("script_location", str(data_path("alembic")))
    cfg.attributes["url"] = url or get_settings().sqlalchemy_url
    return cfg


def upgrade(url: str | None = None, revision: str = "head") -> None:
    settings = get_settings()
    target = url or settings.sqlalchemy_url
    if target.startswith("sqlite"):
        from app.core.db import private_dir, private_sqlite_file

        private_dir(settings.var_dir)
        private_sqlite_file(target)
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str | None = None, revision: str = "base") -> None:
    command.downgrade(alembic_config(url), revision)
