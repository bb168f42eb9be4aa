"""The API benchmark's command line: a database that cannot be reused is a clear error."""

from __future__ import annotations

import shutil
import uuid

import pytest
from sqlalchemy import make_url

from lab.bench import api


def test_reusing_a_missing_database_says_what_to_do(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")  # wrk not needed
    admin = make_url(postgres_url).set(database="postgres").render_as_string(hide_password=False)
    missing = f"timelypush_bench_missing_{uuid.uuid4().hex[:8]}"
    assert api.main(["--reuse", "--pg", admin, "--database", missing]) == 2
    err = capsys.readouterr().err
    assert f"cannot reuse database '{missing}'" in err and "without --reuse" in err
    assert "Traceback" not in err
