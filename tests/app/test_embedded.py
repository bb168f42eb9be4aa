"""Embedded mode: `timelypush serve` alone (SQLite, no Redis) crawls a site on schedule."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, func
from sqlmodel import Session, select

from app.models import CrawlRun, Match, Site, utcnow
from tests.app.loopback_site import NewsSite, make_concerns
from tests.app.procs import app_env, free_port, start, stop, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def test_serve_crawls_on_schedule_by_itself(sqlite_url: str, tmp_path: Path) -> None:
    engine = create_engine(sqlite_url)
    site_server = NewsSite(articles=4)
    port = free_port()
    env = app_env(
        database_url=sqlite_url,
        url_allowlist="127.0.0.1",
        crawl_delay="0",
        scheduler_tick_seconds="0.5",
        var_dir=str(tmp_path / "var"),
        secret_key="test",
    )
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
