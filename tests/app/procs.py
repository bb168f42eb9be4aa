"""Helpers for tests that run real processes: free ports, bounded waits, a private Redis."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.core.config import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(predicate: Callable[[], Any], timeout: float, what: str, step: float = 0.1) -> Any:
    """Poll ``predicate`` until it is truthy; fail after ``timeout`` seconds (bounded loop)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(step)


def wait_healthy(base: str, what: str, timeout: float = 150) -> None:
    """Wait until the service at ``base`` answers ``/healthz`` with 200."""
    import httpx

    def healthy() -> bool:
        try:
            return httpx.get(f"{base}/healthz").status_code == 200
        except httpx.HTTPError:
            return False

    wait_for(healthy, timeout, what, step=0.5)


def app_env(**settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TIMELYPUSH_")}
    env.update({f"TIMELYPUSH_{k.upper()}": v for k, v in settings.items()})
    env["PYTHONUNBUFFERED"] = "1"
    return env


def start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    handle = log.open("ab")
    try:
        return subprocess.Popen(
            args,
            env=env,
            cwd=ROOT,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    finally:
        handle.close()


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM, timeout: float = 10) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)


def celery_worker(env: dict[str, str], log: Path, name: str) -> subprocess.Popen[bytes]:
    return start(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "app.worker",
            "worker",
            "--pool=solo",
            "--loglevel=INFO",
            "--without-gossip",
            "--without-mingle",
            "-n",
            f"{name}@%h",
        ],
        env,
        log,
    )


class PrivateRedis:
    """A redis-server of our own on a free loopback port (restartable; no persistence)."""

    def __init__(self, workdir: Path) -> None:
        self.binary = shutil.which("redis-server")
        self.port = free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        import redis

        assert self.binary, "redis-server is not installed"
        self.proc = start(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            dict(os.environ),
            self.workdir / "redis.log",
        )

        def up() -> bool:
            client = redis.Redis.from_url(self.url, socket_connect_timeout=0.5)
            try:
                return bool(client.ping())
            except redis.RedisError:
                return False
            finally:
                client.close()

        wait_for(up, 10, "redis-server")

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc)
            self.proc = None
