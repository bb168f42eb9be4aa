"""The `timelypush` command line as a person meets it: help, errors, progress, Ctrl-C, logs."""

from __future__ import annotations

import io
import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from app.cli import cli, crawl
from tests.app.procs import app_env, free_port, wait_for, wait_healthy
from tests.crawler.server import serve_html

PAGES = {
    "/": "<html><head><title>体育</title></head><body>"
    + " ".join(f'<a href="/p{i}">足球 {i}</a>' for i in range(4))
    + "</body></html>",
    **{
        f"/p{i}": f"<html><head><title>足球 {i}</title></head><body>足球</body></html>"
        for i in range(4)
    },
}
FAST = ["--delay", "0", "--concurrency", "1", "--per-host", "1"]


@pytest.fixture(autouse=True)
def _settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    from app.core.config import get_settings

    monkeypatch.setenv("TIMELYPUSH_VAR_DIR", str(tmp_path / "var"))
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def _commands(group: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
    """Every sub-command of a (typer-vendored) click group, depth first."""
    for name, command in group.commands.items():
        yield [*path, name], command
        if hasattr(command, "commands"):
            yield from _commands(command, [*path, name])


def test_help_at_80_columns_shows_every_option_and_command_in_full() -> None:
    root = typer.main.get_command(cli)
    runner = CliRunner()
    seen = 0
    for path, command in [([], root), *_commands(root, [])]:
        result = runner.invoke(cli, [*path, "--help"], terminal_width=80)
        assert result.exit_code == 0, (path, result.output)
        for param in command.params:
            for opt in param.opts:
                if opt.startswith("-"):
                    assert opt in result.output, (path, opt)
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                short = sub.get_short_help_str(limit=200)
                flat = " ".join(result.output.split())  # wrapped lines joined
                assert f" {name} {short}" in flat, (path, name)
        assert "…\n" not in result.output and "...\n" not in result.output.split("\n", 1)[1]
        seen += 1
    assert seen > 10  # the walk reached the sub-commands


def test_crawl_fails_with_one_line_when_every_seed_is_refused() -> None:
    # a loopback seed without --allow-private is refused by the URL guard
    result = CliRunner().invoke(cli, ["crawl", "http://127.0.0.1:9/", "-k", "足球", *FAST])
    assert result.exit_code == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: no seed could be crawled: http://127.0.0.1:9/")
    assert "not a public address" in last
    assert "pages " not in result.stderr  # no summary pretending it worked


def test_crawl_fails_when_every_seed_is_unreachable() -> None:
    closed = f"http://127.0.0.1:{free_port()}/"
    args = ["crawl", closed, closed + "other", "-k", "足球", "--allow-private", *FAST]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: no seed could be crawled: {closed}")
    assert last.endswith("(and 1 more)")


def test_crawl_with_one_good_seed_succeeds() -> None:
    with serve_html(PAGES) as web:
        closed = f"http://127.0.0.1:{free_port()}/"
        args = ["crawl", closed, web.url("/"), "-k", "足球", "--allow-private", *FAST]
        result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "pages 6, matched" in result.stderr


def test_progress_without_a_terminal_is_plain_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(crawl, "PROGRESS_SECONDS", 0.0)  # a line for every page
    with serve_html(PAGES) as web:
        args = ["crawl", web.url("/"), "-k", "足球", "--allow-private", "--max-pages", "50"]
        result = CliRunner().invoke(cli, [*args, *FAST])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("crawl ")]
    assert [line.split(" pages")[0] for line in lines] == [f"crawl {n}/50" for n in range(1, 6)]
    assert "\r" not in result.stderr and "\x1b[" not in result.stderr


def test_progress_without_a_terminal_reports_the_first_page_at_once() -> None:
    with serve_html(PAGES) as web:
        args = ["crawl", web.url("/"), "-k", "足球", "--allow-private", *FAST]
        result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    # (the loopback test server may print a dropped connection to the same stderr)
    lines = [line for line in result.stderr.splitlines() if line.startswith(("crawl ", "pages "))]
    assert lines[0].startswith("crawl 1/1000 pages, matched ")
    assert lines[-1].startswith("pages ")


def test_scheduler_ticks_are_debug_not_info() -> None:
    from apscheduler.events import EVENT_JOB_EXECUTED
    from apscheduler.schedulers.background import BackgroundScheduler

    from app.core.logging import configure_logging

    stream = io.StringIO()
    ran = threading.Event()

    def run(level: str) -> str:
        stream.truncate(0)
        stream.seek(0)
        ran.clear()
        configure_logging(level)
        logging.getLogger().handlers[0].setStream(stream)  # type: ignore[attr-defined]
        scheduler = BackgroundScheduler(timezone=UTC)
        # the executor logs "executed successfully" before it tells the listeners
        scheduler.add_listener(lambda _: ran.set(), EVENT_JOB_EXECUTED)
        scheduler.add_job(lambda: None, "interval", hours=1, next_run_time=datetime.now(UTC))
        scheduler.start()
        try:
            wait_for(ran.is_set, 10, "the job")
        finally:
            scheduler.shutdown(wait=True)
        return stream.getvalue()

    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        quiet = run("INFO")
        assert "Running job" not in quiet and "executed successfully" not in quiet
        logging.getLogger("app.test").info("an INFO line of our own")
        assert "an INFO line of our own" in stream.getvalue()
        chatty = run("DEBUG")
        assert "DEBUG apscheduler.executors.default: Running job" in chatty
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_make_run_stopped_with_ctrl_c_is_not_an_error(sqlite_url: str, tmp_path: Path) -> None:
    """`make run`'s recipe is `timelypush serve`; Ctrl-C reaches make and serve alike."""
    port = free_port()
    makefile = tmp_path / "Makefile"
    serve = f"{sys.executable} -c 'from app.cli import main; main()' serve --port {port}"
    makefile.write_text(f"run:\n\t{serve}\n")
    env = app_env(database_url=sqlite_url, var_dir=str(tmp_path / "var"), secret_key="test")
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    proc = subprocess.Popen(
        ["make", "-f", str(makefile), "run"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_healthy(f"http://127.0.0.1:{port}", "timelypush serve under make")
        os.killpg(proc.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
        output, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = output.decode()
    assert "Timely Push stopped." in text
    assert "make: ***" not in text, text[-2000:]
    assert "Traceback" not in text


def test_serve_runs_several_web_processes_only_in_the_celery_setup(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import uvicorn

    import app.core.migrate
    from app.core.config import get_settings

    runs: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda target, **kw: runs.append(kw))
    monkeypatch.setattr(app.core.migrate, "upgrade", lambda *a, **kw: None)
    runner = CliRunner()
    # embedded (no Redis): the one web process also schedules the crawls
    result = runner.invoke(cli, ["serve", "--workers", "2"])
    assert result.exit_code == 2
    assert "TIMELYPUSH_REDIS_URL" in result.output and runs == []
    assert runner.invoke(cli, ["serve"]).exit_code == 0
    assert runs[-1]["workers"] == 1
    monkeypatch.setenv("TIMELYPUSH_REDIS_URL", "redis://127.0.0.1:6379/0")
    get_settings.cache_clear()
    assert runner.invoke(cli, ["serve", "--workers", "3"]).exit_code == 0
    assert runs[-1]["workers"] == 3 and runs[-1]["factory"] is True


@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.parametrize(("trusted", "metrics"), [("", 404), ("10.9.9.9", 200)])
def test_serve_believes_a_forwarded_client_address_only_from_a_trusted_proxy(
    sqlite_url: str, tmp_path: Path, trusted: str, metrics: int
) -> None:
    """Behind a load balancer the service tells visitors apart (sign-in limits count per
    address) by the address the balancer forwards, and only a listed balancer's: the
    metrics, readable from this machine only, are refused to a request forwarded for a
    visitor elsewhere by a trusted proxy (here the test itself, on 127.0.0.1, the default),
    and served when the proxy is not trusted (the header then counts for nothing)."""
    import httpx

    port = free_port()
    env = app_env(database_url=sqlite_url, var_dir=str(tmp_path / "var"), secret_key="test")
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    if trusted:
        env["TIMELYPUSH_FORWARDED_ALLOW_IPS"] = trusted
    proc = subprocess.Popen(
        [sys.executable, "-c", "from app.cli import main; main()", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, "timelypush serve")
        assert httpx.get(f"{base}/metrics").status_code == 200  # from this machine
        forwarded = httpx.get(f"{base}/metrics", headers={"X-Forwarded-For": "203.0.113.9"})
        assert forwarded.status_code == metrics
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
