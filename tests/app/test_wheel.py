"""The installed package runs without the source tree: wheel → fresh venv → migrate → serve."""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import httpx
import pytest

from app.core.config import ROOT
from tests.app.procs import free_port, stop, wait_healthy
from tests.environment import unavailable

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]


def _uv_binary() -> str:
    """The uv that runs this project (``make`` calls ``python3 -m uv``)."""
    found = shutil.which("uv")
    if found is None:
        try:
            found = subprocess.run(
                ["python3", "-c", "import uv; print(uv.find_uv_bin())"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError) as exc:
            unavailable("uv", exc)
    return str(found)


def uv(*args: str, cwd: Path, env: dict[str, str] | None = None) -> None:
    """``uv`` from the warm cache, offline: the test needs no network."""
    result = subprocess.run(
        [_uv_binary(), *args, "--offline", "--quiet"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]


def test_wheel_installed_outside_the_checkout_migrates_and_serves(tmp_path: Path) -> None:
    dist, venv, work = tmp_path / "dist", tmp_path / "venv", tmp_path / "elsewhere"
    work.mkdir()
    uv("build", "--wheel", "-o", str(dist), cwd=ROOT)
    (wheel,) = dist.glob("timelypush-*.whl")
    # the product only: the development package `lab` (lab webs, benchmarks) stays out
    packages = {name.split("/", 1)[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert {"app", "crawler", "push"} <= packages and "lab" not in packages, packages
    # the locked dependencies into a fresh venv, then the wheel itself (not editable)
    env = {
        k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT")
    }
    uv(
        "sync",
        "--locked",
        "--no-dev",
        "--no-install-project",
        cwd=ROOT,
        env={**env, "UV_PROJECT_ENVIRONMENT": str(venv)},
    )
    uv(
        "pip",
        "install",
        "--no-deps",
        "--python",
        str(venv / "bin" / "python"),
        str(wheel),
        cwd=work,
    )

    app_env = {k: v for k, v in env.items() if not k.startswith(("TIMELYPUSH_", "PYTHON"))}
    # no settings at all: the defaults (SQLite under ./var, a generated secret) must do
    where = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import app; from app.core.resources import data_path; "
            "from app.core.i18n import locale_dir; "
            "print(app.__file__); print(data_path('templates')); print(data_path('alembic')); "
            "print(locale_dir())",
        ],
        cwd=work,
        env=app_env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert all(path.startswith(str(venv)) for path in where), where  # nothing from the checkout
    for lang in ("zh", "en"):  # the compiled translation catalogues travel inside the wheel
        assert (Path(where[-1]) / lang / "LC_MESSAGES" / "messages.mo").is_file()

    timelypush = str(venv / "bin" / "timelypush")
    migrate = subprocess.run(
        [timelypush, "migrate"], cwd=work, env=app_env, capture_output=True, text=True, timeout=120
    )
    assert migrate.returncode == 0, migrate.stderr[-3000:]
    assert (work / "var" / "timelypush.db").is_file()
    for development in ("lab", "bench"):  # they need a source checkout, and say so
        refused = subprocess.run(
            [timelypush, development, "--help"],
            cwd=work,
            env=app_env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert refused.returncode == 2, refused.stdout
        assert refused.stderr.startswith(f"error: `timelypush {development}` needs a source")

    port = free_port()
    log = (work / "serve.log").open("wb")
    proc = subprocess.Popen(
        [timelypush, "serve", "--port", str(port)],
        cwd=work,
        env=app_env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    log.close()
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, "the installed service")
        with httpx.Client(base_url=base) as client:
            login = client.get("/login", headers={"Accept-Language": "zh-CN"})
            assert login.status_code == 200 and "忘记密码？" in login.text  # template, catalogue
            english = client.get("/login", headers={"Accept-Language": "en"})
            assert "Forgot password?" in english.text
            assert client.get("/static/css/app.css").status_code == 200
    finally:
        stop(proc)
    assert "Traceback" not in (work / "serve.log").read_text()
