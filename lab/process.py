"""Run `lab serve` in a child process (benchmarks keep the server's CPU out of the crawler's)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

_ENTRY = "from app.cli import main; main()"


@contextlib.contextmanager
def lab_server(
    directory: Path, *, latency_ms: float = 0.0, error_rate: float = 0.0
) -> Iterator[str]:
    """Start the lab proxy on a free loopback port; yield its URL; stop it on exit."""
    command = [
        sys.executable,
        "-c",
        _ENTRY,
        "lab",
        "serve",
        str(directory),
        "--port",
        "0",
        "--latency-ms",
        str(latency_ms),
        "--error-rate",
        str(error_rate),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)  # noqa: S603
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if "listening on " not in line:
            raise RuntimeError(f"lab server did not start: {line!r}")
        url = line.split("listening on ", 1)[1].split()[0]
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
