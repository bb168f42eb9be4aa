"""Embedded mode: `timelypush serve` alone (SQLite, no Redis) crawls a site on schedule."""

from __future__ import annotations

import sys
import time
from datetime import datetime
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, func
from sqlmodel import Session, select

from app.models import CrawlRun, Match, Site, utcnow
from tests.app.loopback_site import NewsSite, make_concerns
from tests.app.procs import app_env, free_port, start, stop, wait_for
from tests.push.servers import HttpReceiver

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def serve_env(sqlite_url: str, tmp_path: Path, *, tick: str) -> dict[str, str]:
    """`timelypush serve` on the test database, loopback sites allowed, no crawl delay."""
    return app_env(
        database_url=sqlite_url,
        url_allowlist="127.0.0.1",
        crawl_delay="0",
        scheduler_tick_seconds=tick,
        var_dir=str(tmp_path / "var"),
        secret_key="test",
    )


def test_serve_crawls_on_schedule_by_itself(sqlite_url: str, tmp_path: Path) -> None:
    engine = create_engine(sqlite_url)
    site_server = NewsSite(articles=4)
    port = free_port()
    env = serve_env(sqlite_url, tmp_path, tick="0.5")
    log = tmp_path / "serve.log"
    with site_server.serve() as seed, Session(engine) as session:
        site_id, (football,) = make_concerns(session, seed, [["足球"]])

        def runs() -> list[str]:
            with Session(engine) as s:
                return [r.status for r in s.exec(select(CrawlRun).order_by(CrawlRun.id))]

        def matches() -> int:
            with Session(engine) as s:
                stmt = select(func.count()).select_from(Match).where(Match.concern_id == football)
                return int(s.exec(stmt).one())

        timelypush = str(Path(sys.executable).parent / "timelypush")
        proc = start([timelypush, "serve", "--port", str(port)], env, log)
        try:
            wait_for(lambda: "ok" in runs(), 180, "the first scheduled crawl")
            assert matches() == 2
            with httpx.Client(base_url=f"http://127.0.0.1:{port}") as client:
                health = client.get("/healthz")
                assert health.json()["mode"] == "embedded"
                metrics = client.get("/metrics").text
                assert "timelypush_crawl_runs" in metrics
                assert "timelypush_matches_stored 2.0" in metrics

            # a new article, and the site is due again: the scheduler visits it by itself
            site_server.add_article(5, football=True)
            with Session(engine) as s:
                site = s.get(Site, site_id)
                site.next_visit_at = utcnow()
                s.add(site)
                s.commit()
            # the matches commit before the run row is closed: wait for the run itself
            wait_for(lambda: runs().count("ok") == 2, 120, "the second scheduled crawl")
            assert matches() == 3
        finally:
            stop(proc)
            engine.dispose()
    assert "embedded scheduler started" in log.read_text()


def test_serve_pushes_a_match_at_once_not_at_the_next_tick(sqlite_url: str, tmp_path: Path) -> None:
    """The periodic outbox sender runs every 60 s here; the crawl that finds a match wakes it."""
    from app.models import User

    engine = create_engine(sqlite_url)
    hook = HttpReceiver()
    port = free_port()
    env = serve_env(sqlite_url, tmp_path, tick="60")
    with NewsSite(articles=4).serve() as seed, Session(engine) as session:
        make_concerns(session, seed, [["足球"]])
        user = session.exec(select(User)).one()
        user.email_enabled = False
        user.webhook_enabled = True
        user.webhook_url = hook.url + "/in"
        user.push_mode = "instant"
        session.add(user)
        session.commit()
        timelypush = str(Path(sys.executable).parent / "timelypush")
        started = time.time()
        proc = start([timelypush, "serve", "--port", str(port)], env, tmp_path / "serve.log")
        try:
            # the first crawl starts ~1 s after start-up; the next periodic send is at ~61 s
            wait_for(lambda: len(hook.requests) >= 2, 45, "two webhook pushes")
            arrived = time.time()
        finally:
            stop(proc)
            hook.close()
            engine.dispose()
    assert arrived - started < 60
    pushes = [r.json()["data"] for r in hook.requests]
    assert sorted(p["title"] for p in pushes) == ["足球新闻 第1期", "足球新闻 第3期"]
    newest = max(datetime.fromisoformat(p["created_at"]) for p in pushes)
    assert arrived - newest.timestamp() < 10
