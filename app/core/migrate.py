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
    if (url or settings.sqlalchemy_url).startswith("sqlite"):
        settings.var_dir.mkdir(parents=True, exist_ok=True)
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str | None = None, revision: str = "base") -> None:
    command.downgrade(alembic_config(url), revision)
