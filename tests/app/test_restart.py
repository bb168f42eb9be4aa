"""A `timelypush serve` killed mid-crawl: after a restart the site's crawl resumes at once."""

from __future__ import annotations

import re
import signal
import sys
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, func
from sqlmodel import Session, select

from app.models import Concern, CrawlRun, Page, Site
from tests.app.loopback_site import NewsSite, make_concerns
from tests.app.procs import app_env, free_port, start, stop, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]


def test_killed_serve_resumes_the_crawl_at_restart(sqlite_url: str, tmp_path: Path) -> None:
    from app.services import auth

    engine = create_engine(sqlite_url)
    news = NewsSite(articles=40, delay=0.4)  # a slow site: the crawl takes a while
    port = free_port()
    env = app_env(
        database_url=sqlite_url,
        url_allowlist="127.0.0.1",
        crawl_delay="0",
        crawl_per_host="1",
        scheduler_tick_seconds="0.5",
        # the old fixed expiry: a dead crawl used to block its site this long
        crawl_heartbeat_seconds="300",
        var_dir=str(tmp_path / "var"),
        secret_key="test",
    )
    timelypush = str(Path(sys.executable).parent / "timelypush")
    with news.serve() as seed, Session(engine, expire_on_commit=False) as session:
        site_id, (cid,) = make_concerns(session, seed, [["足球"]])
        user = auth.register_user(session, email="reader@example.com", password="password123")
        session.commit()
        concern = session.get(Concern, cid)
        concern.owner_id = user.id
        session.add(concern)
        session.commit()

        def runs() -> list[str]:
            with Session(engine) as s:
                return [r.status for r in s.exec(select(CrawlRun).order_by(CrawlRun.id))]

        def pages() -> int:
            with Session(engine) as s:
                return int(s.exec(select(func.count()).select_from(Page)).one())

        first = start([timelypush, "serve", "--port", str(port)], env, tmp_path / "1.log")
        try:
            wait_for(lambda: runs() == ["running"] and pages() >= 3, 180, "a crawl under way")
        finally:
            stop(first, signal.SIGKILL)  # no goodbye: the lock and the run stay behind
        with Session(engine) as s:
            site = s.get(Site, site_id)
            assert site.locked_by is not None  # still "held" by the dead process
        assert runs() == ["running"]

        second = start([timelypush, "serve", "--port", str(port)], env, tmp_path / "2.log")
        try:
            # at once: the lock's own expiry (15 min here) is not waited for
            wait_for(lambda: runs()[:1] == ["interrupted"], 120, "the dead run marked")
            wait_for(lambda: runs()[1:] == ["ok"], 180, "the crawl resumed and finished")
            assert pages() == 41

            with httpx.Client(base_url=f"http://127.0.0.1:{port}") as client:
                login = client.get("/login").text
                token = re.search(r'name="csrf_token" value="([^"]+)"', login).group(1)  # type: ignore[union-attr]
                client.post(
                    "/login",
                    data={
                        "csrf_token": token,
                        "email": "reader@example.com",
                        "password": "password123",
                    },
                )
                report = client.get(f"/concerns/{cid}/report", headers={"Accept-Language": "zh"})
                assert report.status_code == 200
                assert "已中断" in report.text and "interrupted" not in report.text
                assert "进行中" not in report.text
        finally:
            stop(second)
            engine.dispose()
