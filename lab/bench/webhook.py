"""`timelypush bench webhook`: webhook latency from match creation, in the Celery setup.

Real parts only: a private PostgreSQL database, Redis, one ``timelypush worker`` process
(Celery prefork, the production task code), a news site and a webhook receiver on loopback.
``--users`` users follow the same site with a webhook to the receiver (one crawl serves them
all). Each of ``--rounds`` rounds publishes ``--articles`` new football articles and sends the
site's crawl task, as beat would; the receiver timestamps every push. Latency = arrival − the
match's ``created_at`` (in the payload; written by the crawl's transaction). Every push must
arrive exactly once, or the command exits 1.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import typer

DB_NAME = "timelypush_bench_webhook"


class _Server(ThreadingHTTPServer):
    # the default listen backlog (5) drops the SYNs of a burst of concurrent pushes, and the
    # kernel retries them 1 s later: the receiver, not the sender, would be measured
    request_queue_size = 128
    daemon_threads = True


class _Site:
    """A news site whose index lists every article published so far."""

    def __init__(self) -> None:
        self.articles: list[int] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path == "/":
                    links = "".join(
                        f'<li><a href="/a/{n}.html">足球新闻 第{n}期</a></li>'
                        for n in site.articles
                    )
                    body = f"<html><head><title>体育首页</title></head><body>{links}</body></html>"
                elif self.path.startswith("/a/") and self.path.endswith(".html"):
                    n = self.path[3:-5]
                    body = (
                        f"<html><head><title>足球新闻 第{n}期</title>"
                        '<meta name="keywords" content="足球,中超"></head>'
                        f"<body><h1>足球新闻 第{n}期</h1><p>中超联赛第{n}轮，国安主场迎战"
                        f"申花，比赛编号 {n}。</p></body></html>"
                    )
                else:
                    self.send_error(404)
                    return
                data = body.encode()
                self.send_response(200)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                return

        self.server = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"


class _Receiver:
    """Answers every POST with 200 and records (arrival time, payload)."""

    def __init__(self) -> None:
        self.received: list[tuple[float, dict[str, Any]]] = []
        lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                arrived = time.time()
                data = self.rfile.read(int(self.headers.get("content-length") or 0))
                with lock:
                    receiver.received.append((arrived, json.loads(data)))
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                return

        self.server = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"


def _seed(url: str, users: int, seed_url: str, hook: str) -> int:
    """``users`` users with a webhook and a concern on the one site; returns the site id."""
    from sqlalchemy import create_engine
    from sqlmodel import Session

    from app.models import Concern, Site, User

    engine = create_engine(url)
    with Session(engine) as session:
        site = Site(scope_key=f"host:{seed_url}", seed_url=seed_url, scope="host")
        session.add(site)
        session.flush()
        for i in range(users):
            user = User(
                email=f"bench{i}@example.com",
                password_hash="!",  # noqa: S106 (these users never log in)
                email_enabled=False,
                webhook_enabled=True,
                webhook_url=hook,
                push_mode="instant",
            )
            session.add(user)
            session.flush()
            assert user.id is not None
            session.add(
                Concern(owner_id=user.id, site_id=site.id, seed_url=seed_url, keywords=["足球"])
            )
        session.commit()
        assert site.id is not None
        site_id = site.id
    engine.dispose()
    return site_id


@contextmanager
def _worker(env: dict[str, str], log: Path) -> Iterator[None]:
    command = [str(Path(sys.executable).parent / "timelypush"), "worker", "--concurrency", "2"]
    with log.open("wb") as out:
        proc = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)  # noqa: S603
        try:
            yield
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def _wait(predicate: Any, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return bool(predicate())


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(admin_url: str, redis_url: str, users: int, rounds: int, articles: int) -> dict[str, Any]:
    import redis

    from app.core.config import Settings
    from app.worker import make_celery
    from lab.bench.api import create_database

    db_url = create_database(admin_url, DB_NAME)
    site, receiver = _Site(), _Receiver()
    site_id = _seed(db_url, users, site.url, receiver.url)
    env = {
        **os.environ,
        "TIMELYPUSH_DATABASE_URL": db_url,
        "TIMELYPUSH_REDIS_URL": redis_url,
        "TIMELYPUSH_URL_ALLOWLIST": "127.0.0.1",
        "TIMELYPUSH_CRAWL_DELAY": "0",
        "TIMELYPUSH_LOG_LEVEL": "WARNING",
    }
    client = make_celery(Settings(redis_url=redis_url))
    redis.Redis.from_url(redis_url).flushdb()
    log = Path(tempfile.mkdtemp(prefix="tp-bench-webhook-")) / "worker.log"
    expected = 0
    with _worker(env, log):
        for r in range(rounds):
            site.articles += list(range(r * articles + 1, (r + 1) * articles + 1))
            expected += users * articles
            client.send_task("timelypush.crawl_site", args=[site_id])
            # the first round includes the worker's start-up (jieba's dictionary, imports)
            if not _wait(lambda n=expected: len(receiver.received) >= n, 120 if r else 240):
                break
            typer.echo(f"round {r + 1}: {len(receiver.received)} pushes", err=True)
        time.sleep(1.0)  # anything extra (a duplicate) would arrive now
    latencies = [
        arrived - datetime.fromisoformat(payload["data"]["created_at"]).timestamp()
        for arrived, payload in receiver.received
    ]
    ids = [payload["data"]["match_id"] for _, payload in receiver.received]
    return {
        "users": users,
        "rounds": rounds,
        "articles_per_round": articles,
        "expected": expected,
        "received": len(receiver.received),
        "duplicates": len(ids) - len(set(ids)),
        "p50_s": round(percentile(latencies, 0.5), 3) if latencies else None,
        "p95_s": round(percentile(latencies, 0.95), 3) if latencies else None,
        "max_s": round(max(latencies), 3) if latencies else None,
        "mean_s": round(statistics.fmean(latencies), 3) if latencies else None,
        "worker_log": str(log),
    }


def register(bench_cli: typer.Typer) -> None:
    """Add `bench webhook` to the bench group."""

    @bench_cli.command("webhook")
    def webhook(
        postgres: str = typer.Option(
            "postgresql+psycopg://postgres@127.0.0.1:5432/test",
            "--postgres",
            help="A PostgreSQL URL whose user may create the bench database.",
        ),
        redis_url: str = typer.Option(
            "redis://127.0.0.1:6379/15", "--redis", help="Redis (this database is flushed)."
        ),
        users: int = typer.Option(20, "--users", min=1),
        rounds: int = typer.Option(5, "--rounds", min=1),
        articles: int = typer.Option(5, "--articles", min=1, help="New articles per round."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    ) -> None:
        """Webhook latency from match creation with a real Celery worker (goal p95 < 1 s)."""
        result = run(postgres, redis_url, users, rounds, articles)
        if as_json:
            typer.echo(json.dumps(result))
        else:
            typer.echo(
                f"{result['received']} of {result['expected']} pushes "
                f"({result['duplicates']} duplicates); latency from match creation: "
                f"p50 {result['p50_s']} s, p95 {result['p95_s']} s, max {result['max_s']} s"
            )
        if result["received"] != result["expected"] or result["duplicates"]:
            raise typer.Exit(1)
