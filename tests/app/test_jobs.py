"""Jobs are plain functions; one schedule feeds both adapters."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session, select

from app.models import Concern, CrawlRun, Site, utcnow
from tests.app.loopback_site import make_concerns


def test_due_sites_are_handed_out_once(engine) -> None:
    from app import jobs

    now = utcnow()
    with Session(engine) as session:
        due, _ = make_concerns(session, "http://127.0.0.1:9/a", [["足球"]])
        later, _ = make_concerns(session, "http://127.0.0.1:9/b", [["足球"]])
        locked, _ = make_concerns(session, "http://127.0.0.1:9/c", [["足球"]])
        _disabled, (cid,) = make_concerns(session, "http://127.0.0.1:9/d", [["足球"]])
        for site_id, when in ((due, now - timedelta(minutes=1)), (later, now + timedelta(hours=1))):
            site = session.get(Site, site_id)
            site.next_visit_at = when
            session.add(site)
        site = session.get(Site, locked)
        site.locked_until, site.locked_by = now + timedelta(minutes=5), "someone"
        session.add(site)
        concern = session.get(Concern, cid)
        concern.enabled = False
        session.add(concern)
        session.commit()

    queued: list[int] = []
    assert jobs.run_due_crawls(enqueue=queued.append) == 1
    assert queued == [due]
    # leased: the next tick does not hand it out again
    assert jobs.run_due_crawls(enqueue=queued.append) == 0
    with Session(engine) as session:
        site = session.get(Site, due)
        assert site.next_visit_at > utcnow()


def test_cleanup_frees_expired_locks_and_closes_dead_runs(engine) -> None:
    """A run is "running" only while a live owner renews its site's lock."""
    from app import jobs

    now = utcnow()
    with Session(engine) as session:
        site_id, _ = make_concerns(session, "http://127.0.0.1:9/", [["x"]])
        live_id, _ = make_concerns(session, "http://127.0.0.1:9/live", [["x"]])
        site = session.get(Site, site_id)
        site.locked_until, site.locked_by = now - timedelta(seconds=1), "dead"
        site.next_visit_at = now + timedelta(minutes=15)  # the lease of the lost crawl
        live = session.get(Site, live_id)
        live.locked_until, live.locked_by = now + timedelta(seconds=50), "elsewhere:7:a:b"
        session.add_all([site, live])
        session.add(CrawlRun(site_id=site_id, strategy="bfs", started_at=now - timedelta(days=1)))
        session.add(CrawlRun(site_id=site_id, strategy="bfs", started_at=now))
        session.add(CrawlRun(site_id=live_id, strategy="bfs", started_at=now))
        session.commit()
    result = jobs.cleanup()
    assert result["locks_freed"] == 1 and result["runs_interrupted"] == 1
    with Session(engine) as session:
        statuses = {(r.site_id, r.status) for r in session.exec(select(CrawlRun))}
        assert statuses == {(site_id, "interrupted"), (live_id, "running")}
        site = session.get(Site, site_id)
        assert site.locked_by is None
        assert site.next_visit_at <= utcnow()  # resumes at the next tick, not after the lease


def test_one_schedule_two_adapters(settings_env: None) -> None:
    from app.core.config import get_settings
    from app.embedded import make_scheduler
    from app.schedule import periodic_jobs
    from app.worker import make_celery

    settings = get_settings()
    names = {job.name: job.seconds for job in periodic_jobs(settings)}
    assert set(names) == {"run_due_crawls", "send_due_deliveries", "send_due_digests", "cleanup"}
    celery = make_celery(settings.model_copy(update={"redis_url": "redis://127.0.0.1:1/0"}))
    beat = celery.conf.beat_schedule
    assert {k: v["schedule"] for k, v in beat.items()} == names
    assert all(v["task"] == f"timelypush.{k}" for k, v in beat.items())
    assert celery.conf.task_acks_late and celery.conf.worker_prefetch_multiplier == 1
    assert celery.conf.accept_content == ["json"]
    scheduler = make_scheduler(settings)
    scheduler.start(paused=True)
    try:
        jobs_ = {j.id: j for j in scheduler.get_jobs()}
    finally:
        scheduler.shutdown(wait=False)
    assert set(jobs_) == set(names)
    for name, seconds in names.items():
        assert jobs_[name].trigger.interval.total_seconds() == pytest.approx(seconds)
        assert jobs_[name].coalesce and jobs_[name].max_instances == 1


def test_worker_and_beat_need_redis(settings_env: None) -> None:
    from typer.testing import CliRunner

    from app.cli import cli

    for command in ("worker", "beat"):
        result = CliRunner().invoke(cli, [command])
        assert result.exit_code == 2
        assert "TIMELYPUSH_REDIS_URL" in result.output
