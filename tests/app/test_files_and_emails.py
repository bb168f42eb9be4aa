"""Small safety rules: private files from the start, one form of an email address."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import cli
from app.core.config import get_settings


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_var_dir_database_and_secret_key_are_private_from_the_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.core.db import get_engine
    from app.core.migrate import upgrade

    var = tmp_path / "fresh" / "var"
    monkeypatch.setenv("TIMELYPUSH_VAR_DIR", str(var))
    monkeypatch.delenv("TIMELYPUSH_DATABASE_URL", raising=False)
    monkeypatch.delenv("TIMELYPUSH_SECRET_KEY", raising=False)
    get_settings.cache_clear()
    get_engine.cache_clear()
    try:
        upgrade()
        with get_engine().connect():
            pass
        get_settings().effective_secret_key()
        assert _mode(var) == 0o700
        assert _mode(var / "timelypush.db") == 0o600
        assert _mode(var / "secret_key") == 0o600
    finally:
        get_engine().dispose()
        get_settings.cache_clear()
        get_engine.cache_clear()


def test_cli_user_with_capitals_can_log_in(settings_env: None) -> None:
    from sqlmodel import Session

    from app.core.db import get_engine
    from app.services import auth

    result = CliRunner().invoke(
        cli, ["user", "create", "Alice@Example.com", "--password", "long enough pass"]
    )
    assert result.exit_code == 0, result.output
    with Session(get_engine()) as session:
        user = auth.authenticate(
            session, email="Alice@Example.com", password="long enough pass", ip="127.0.0.1"
        )
        assert user.email == "alice@example.com"
        user = auth.authenticate(
            session, email="alice@example.com", password="long enough pass", ip="127.0.0.1"
        )
        assert user.email == "alice@example.com"
