"""“Check now” tells the truth: queued, already running since …, or refused because …."""

from __future__ import annotations

import os
import socket
import time
from datetime import timedelta

import pytest
from sqlmodel import Session, select

from app.models import Concern, CrawlRun, Site, User, utcnow
from app.services import visits
from app.services.locks import DbLock, Heartbeat, lock_owner, owner_dead
from tests.app.loopback_site import NewsSite, make_concerns
from tests.app.procs import wait_for


def _user_of(session: Session, concern_id: int):  # type: ignore[no-untyped-def]
    concern = session.get(Concern, concern_id)
    return session.get(User, concern.owner_id)


def test_check_now_queues_a_visit(session: Session) -> None:
    site_id, (cid,) = make_concerns(session, "http://127.0.0.1:9/", [["足球"]])
    site = session.get(Site, site_id)
    site.next_visit_at = utcnow() + timedelta(hours=3)
    session.add(site)
    session.commit()
    visit = visits.request_visit(session, _user_of(session, cid), cid)
    assert visit.state is visits.VisitState.QUEUED and visit.within_seconds
    session.refresh(site)
    assert site.next_visit_at <= utcnow()


def test_check_now_says_a_live_crawl_is_already_running(session: Session, engine) -> None:
    site_id, (cid,) = make_concerns(session, "http://127.0.0.1:9/", [["足球"]])
    lock = DbLock(engine, site_id, ttl=60)
    assert lock.acquire()
    started = utcnow() - timedelta(minutes=3)
    session.add(CrawlRun(site_id=site_id, strategy="bfs", started_at=started))
    later = utcnow() + timedelta(hours=3)
    site = session.get(Site, site_id)
    site.next_visit_at = later
    session.add(site)
    session.commit()
    try:
        visit = visits.request_visit(session, _user_of(session, cid), cid)
    finally:
        lock.release()
    assert visit.state is visits.VisitState.RUNNING
    assert visit.since == started
    session.expire_all()
    assert session.get(Site, site_id).next_visit_at == later  # nothing queued behind it
    assert [r.status for r in session.exec(select(CrawlRun))] == ["running"]


def test_check_now_after_a_restart_closes_the_dead_run_and_queues(session: Session) -> None:
    """The lock of this pid's previous life (a restarted container is pid 1 again) is stale."""
    site_id, (cid,) = make_concerns(session, "http://127.0.0.1:9/", [["足球"]])
    site = session.get(Site, site_id)
    site.locked_by = f"{socket.gethostname()[:60]}:{os.getpid()}:0123456789ab:cafe"
    site.locked_until = utcnow() + timedelta(minutes=15)
    site.next_visit_at = utcnow() + timedelta(minutes=15)
    session.add(site)
    session.add(CrawlRun(site_id=site_id, strategy="bfs"))
    session.commit()
    visit = visits.request_visit(session, _user_of(session, cid), cid)
    assert visit.state is visits.VisitState.QUEUED
    session.expire_all()
    site = session.get(Site, site_id)
    assert site.locked_by is None and site.next_visit_at <= utcnow()
    assert [r.status for r in session.exec(select(CrawlRun))] == ["interrupted"]


def test_check_now_refuses_a_paused_concern(session: Session) -> None:
    site_id, (cid,) = make_concerns(session, "http://127.0.0.1:9/", [["足球"]])
    concern = session.get(Concern, cid)
    concern.enabled = False
    session.add(concern)
    session.commit()
    visit = visits.request_visit(session, _user_of(session, cid), cid)
    assert visit.state is visits.VisitState.REFUSED
    assert visit.reason is visits.RefusedBecause.PAUSED
    assert session.get(Site, site_id).next_visit_at is None


def test_owner_liveness() -> None:
    host = socket.gethostname()[:60]
    assert not owner_dead(lock_owner())  # ours
    assert owner_dead(f"{host}:{os.getpid()}:0123456789ab:x")  # an earlier life of our pid
    assert not owner_dead(f"other-host:{os.getpid()}:0123456789ab:x")  # not ours to judge
    assert not owner_dead(f"{host}:1:abc:x") or os.getpid() != 1
    assert not owner_dead(None) and not owner_dead("someone")


def test_heartbeat_keeps_the_lock_and_stopping_lets_it_expire(engine, session: Session) -> None:
    site_id, _ = make_concerns(session, "http://127.0.0.1:9/", [["足球"]])
    lock = DbLock(engine, site_id, ttl=0.6)
    other = DbLock(engine, site_id, ttl=0.6)
    assert lock.acquire()
    with Heartbeat(lock, 0.2):
        time.sleep(1.5)  # well past the lock's ttl
        assert not other.acquire()
    time.sleep(1.0)
    assert other.acquire()  # the beats stopped: the lock expired
    other.release()


def test_check_now_in_the_embedded_mode_starts_the_crawl_at_once(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scheduler ticks once an hour here: only the wake-up can start the visit."""
    from fastapi.testclient import TestClient

    from app.core.config import get_settings
    from app.main import create_app

    monkeypatch.setenv("TIMELYPUSH_SCHEDULER_ENABLED", "true")
    monkeypatch.setenv("TIMELYPUSH_SCHEDULER_TICK_SECONDS", "3600")
    monkeypatch.setenv("TIMELYPUSH_URL_ALLOWLIST", "127.0.0.1")
    monkeypatch.setenv("TIMELYPUSH_CRAWL_DELAY", "0")
    get_settings.cache_clear()
    news = NewsSite(articles=2)
    with news.serve() as seed:
        site_id, (cid,) = make_concerns(session, seed, [["足球"]])
        site = session.get(Site, site_id)
        site.next_visit_at = utcnow() + timedelta(days=1)
        session.add(site)
        session.commit()
        with TestClient(create_app()) as client:
            job = client.app.state.scheduler.get_job("run_due_crawls")  # type: ignore[attr-defined]
            wait_for(
                lambda: job.next_run_time and job.next_run_time > utcnow() + timedelta(minutes=30),
                30,
                "the first tick",
            )
            visit = visits.request_visit(session, _user_of(session, cid), cid)
            assert visit.state is visits.VisitState.QUEUED and visit.within_seconds is None

            def runs() -> list[str]:
                with Session(session.get_bind()) as s:
                    return [r.status for r in s.exec(select(CrawlRun))]

            wait_for(lambda: runs() == ["ok"], 60, "the visit asked for")
