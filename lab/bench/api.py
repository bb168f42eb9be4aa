"""API benchmark: ``GET /api/v1/matches`` (50 per page, filters on) over 1,000,000 matches.

Run (needs a PostgreSQL server and ``wrk``; not part of CI)::

    uv run python -m lab.bench.api --pg postgresql+psycopg://postgres@127.0.0.1:5432/postgres

It creates a private database ``timelypush_bench_api`` (dropped first), seeds one user with
10 concerns and ``--matches`` matches (a third read, one in fifty deleted) with SQL
``generate_series``, starts ``uvicorn`` with ``--workers`` processes on a free loopback port,
logs in through the API for a bearer token, and drives each scenario with ``wrk`` (``--connections``
open connections, ``--duration`` seconds, latency percentiles from ``--latency``). Last line:
the peak resident memory (``VmHWM``) of each API worker process over the whole run.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass

import httpx
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

DB_NAME = "timelypush_bench_api"
EMAIL = "bench@example.com"
PASSWORD = "bench-password"  # noqa: S105 (the seeded bench account)


@dataclass
class Result:
    """One measured endpoint: throughput, latency percentiles and errors."""

    name: str
    url: str
    requests_per_s: float
    p50_ms: float
    p99_ms: float
    errors: str


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def create_database(admin_url: str, name: str = DB_NAME) -> str:
    """Drop and create the bench database ``name``; its URL, migrated to head."""
    from app.core.migrate import upgrade

    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    url = make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    upgrade(url)
    return url


def seed(url: str, matches: int) -> dict[str, int]:
    """One user, 10 concerns on 10 sites, ``matches`` pages and matches. Returns ids."""
    from sqlmodel import Session

    from app.core.security import hash_password
    from app.models import Concern, Site, User

    engine = create_engine(url)
    with Session(engine) as session:
        user = User(email=EMAIL, password_hash=hash_password(PASSWORD))
        session.add(user)
        session.flush()
        concern_ids = []
        for i in range(10):
            site = Site(scope_key=f"host:s{i}.example.com/", seed_url=f"https://s{i}.example.com/")
            session.add(site)
            session.flush()
            assert user.id is not None and site.id is not None
            concern = Concern(
                owner_id=user.id,
                site_id=site.id,
                seed_url=site.seed_url,
                keywords=["AI", "芯片"],
            )
            session.add(concern)
            session.flush()
            assert concern.id is not None
            concern_ids.append(concern.id)
        session.commit()
        user_id = user.id
    assert user_id is not None
    t0 = time.perf_counter()
    with engine.begin() as conn:
        conn.execute(
            text(  # fixed SQL, values bound
                """
                INSERT INTO pages (canonical_url, final_url, site_id, title, meta_keywords,
                    description, excerpt, content_hash, simhash, status, first_seen_at,
                    last_seen_at)
                SELECT 'https://s' || (g % 10) || '.example.com/a/' || g,
                       'https://s' || (g % 10) || '.example.com/a/' || g,
                       1 + g % 10, 'Story ' || g, '', '', '', md5(g::text), 0, 200, now(), now()
                FROM generate_series(1, :n) AS g
                """
            ),
            {"n": matches},
        )
        conn.execute(
            text(
                """
                INSERT INTO matches (concern_id, page_id, user_id, fingerprint, score,
                    matched_keywords, explanation, title, url, snippet, read_at, deleted_at,
                    created_at)
                SELECT (:c0 + g % 10), g, :uid, md5(g::text), (g % 97) / 10.0,
                       CASE WHEN g % 2 = 0 THEN '["AI"]' ELSE '["AI", "芯片"]' END::json,
                       '{"score": 2.5, "threshold": 1.0, "terms": {"AI": ["title", "body"]}}'::json,
                       'AI 芯片新闻 第 ' || g || ' 篇',
                       'https://s' || (g % 10) || '.example.com/a/' || g,
                       '… 国产 AI 芯片在第 ' || g || ' 季度出货量增长，业内人士表示 …',
                       CASE WHEN g % 3 = 0 THEN now() END,
                       CASE WHEN g % 50 = 0 THEN now() END,
                       now() - make_interval(secs => g * 3)
                FROM generate_series(1, :n) AS g
                """
            ),
            {"n": matches, "c0": concern_ids[0], "uid": user_id},
        )
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE pages"))
        conn.execute(text("VACUUM ANALYZE matches"))
    engine.dispose()
    print(f"seeded {matches} matches in {time.perf_counter() - t0:.1f}s", flush=True)
    return {"user_id": user_id, "concern_id": concern_ids[3]}


def start_server(url: str, port: int, workers: int) -> subprocess.Popen[bytes]:
    env = dict(
        os.environ,
        TIMELYPUSH_DATABASE_URL=url,
        TIMELYPUSH_SCHEDULER_ENABLED="false",
        TIMELYPUSH_SECRET_KEY="bench-secret",  # noqa: S106 (throwaway bench server)
        TIMELYPUSH_LOG_LEVEL="WARNING",
    )
    env.pop("TIMELYPUSH_REDIS_URL", None)
    cmd = [
        sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory",
        "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers),
        "--loop", "uvloop", "--http", "httptools",
        "--no-access-log", "--log-level", "warning",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env)  # noqa: S603 (fixed argv)
    for _ in range(300):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.terminate()
    raise RuntimeError("server did not start")


def worker_peak_rss(server: subprocess.Popen[bytes]) -> list[tuple[int, float]]:
    """(pid, peak RSS in MB) of the server's worker processes (its children running the app),
    or of the server itself when it has none: ``VmHWM`` from ``/proc`` (Linux)."""
    pids: list[int] = []
    try:
        with open(f"/proc/{server.pid}/task/{server.pid}/children") as fh:
            pids = [int(p) for p in fh.read().split()]
    except OSError:
        pass
    workers = []
    for pid in pids or [server.pid]:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if b"resource_tracker" in fh.read():
                    continue
            with open(f"/proc/{pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        workers.append((pid, int(line.split()[1]) / 1024))
        except OSError:
            continue
    return workers


def _ms(value: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m)", value.strip())
    if not match:
        return float("nan")
    number, unit = float(match.group(1)), match.group(2)
    return number * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def run_wrk(
    name: str, url: str, token: str, *, connections: int, duration: int, threads: int
) -> Result:
    cmd = [
        shutil.which("wrk") or "wrk",
        f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency",
        "-H", f"Authorization: Bearer {token}", url,
    ]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout  # noqa: S603
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    p50 = _ms(re.search(r"\s50%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
    p99 = _ms(re.search(r"\s99%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
    errors = re.search(r"(Non-2xx.*|Socket errors.*)", out)
    return Result(name, url, rps, p50, p99, errors.group(1) if errors else "none")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--pg", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres",
        help="admin URL of the PostgreSQL server",
    )  # fmt: skip
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--connections", type=int, default=100)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--duration", type=int, default=20)
    parser.add_argument("--reuse", action="store_true", help="keep the seeded database")
    parser.add_argument("--database", default=DB_NAME, help="name of the bench database")
    args = parser.parse_args(argv)
    if shutil.which("wrk") is None:
        print("wrk is not installed (apt-get install wrk)", file=sys.stderr)
        return 2
    url = make_url(args.pg).set(database=args.database).render_as_string(hide_password=False)
    if args.reuse:
        engine = create_engine(url)
        try:
            with engine.connect() as conn:
                concern_id = conn.execute(text("SELECT min(id) + 3 FROM concerns")).scalar_one()
        except OperationalError as exc:
            print(
                f"error: cannot reuse database {args.database!r} ({exc.orig}); "
                "run once without --reuse to seed it",
                file=sys.stderr,
            )
            return 2
        finally:
            engine.dispose()
    else:
        url = create_database(args.pg, args.database)
        concern_id = seed(url, args.matches)["concern_id"]
    port = _free_port()
    server = start_server(url, port, args.workers)
    try:
        base = f"http://127.0.0.1:{port}"
        resp = httpx.post(
            f"{base}/api/v1/auth/token",
            data={"username": EMAIL, "password": PASSWORD, "device_name": "bench"},
        )
        resp.raise_for_status()
        token = resp.json()["access_token"]
        page = httpx.get(
            f"{base}/api/v1/matches",
            params={"concern_id": concern_id, "limit": 50},
            headers={"Authorization": f"Bearer {token}"},
        ).json()
        for _ in range(20):  # a cursor 1,000 messages deep
            page = httpx.get(
                f"{base}/api/v1/matches",
                params={"concern_id": concern_id, "limit": 50, "cursor": page["next_cursor"]},
                headers={"Authorization": f"Bearer {token}"},
            ).json()
        scenarios = {
            "feed, filters on (concern, unread, keyword)": (
                f"{base}/api/v1/matches?limit=50&concern_id={concern_id}&unread=true&keyword=AI"
            ),
            "feed, first page, no filter": f"{base}/api/v1/matches?limit=50",
            "feed, filters on, cursor 1,000 deep": (
                f"{base}/api/v1/matches?limit=50&concern_id={concern_id}&cursor={page['next_cursor']}"
            ),
        }
        for _ in range(3):  # warm up the pools and caches
            httpx.get(
                scenarios["feed, first page, no filter"],
                headers={"Authorization": f"Bearer {token}"},
            )
        print(f"{'scenario':48} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8}  errors")
        for name, target in scenarios.items():
            result = run_wrk(
                name, target, token,
                connections=args.connections, duration=args.duration, threads=args.threads,
            )  # fmt: skip
            print(
                f"{name:48} {result.requests_per_s:8.0f} {result.p50_ms:8.1f} "
                f"{result.p99_ms:8.1f}  {result.errors}",
                flush=True,
            )
        peaks = worker_peak_rss(server)
        print(
            "memory: peak RSS per API worker "
            + ", ".join(f"{mb:.0f} MB" for _, mb in peaks)
            + f" ({len(peaks)} workers, VmHWM over the run)",
            flush=True,
        )
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
