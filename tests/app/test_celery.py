"""Scaled-out mode with real processes: Redis, Celery workers, PostgreSQL.

The beat-scheduled task (``timelypush.run_due_crawls``) hands the due site to a worker that
crawls a loopback site; the worker is SIGKILLed mid-crawl, a second one takes over after the
lock expires and resumes from the checkpoint: every match exists exactly once. Then Redis is
restarted under the running worker and the next crawl still happens.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, func, text
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from app.models import CrawlRun, Match, Page
from tests.app.loopback_site import NewsSite, make_concerns
from tests.app.procs import PrivateRedis, app_env, celery_worker, stop, wait_for

# real processes: two worker start-ups (each loads the jieba dictionary) dominate the time
pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(400)]


@pytest.fixture
def pg(postgres_url: str) -> Iterator[Engine]:
    from tests.environment import truncate_all

    engine = create_engine(postgres_url)
    truncate_all(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    server.stop()


def _runs(engine: Engine, site_id: int) -> list[str]:
    with Session(engine) as s:
        return [r.status for r in s.exec(select(CrawlRun).where(CrawlRun.site_id == site_id))]


def _count(engine: Engine, stmt) -> int:  # type: ignore[no-untyped-def]
    with Session(engine) as s:
        return int(s.exec(stmt).one())


def _send(redis_url: str, task: str, *args: object) -> None:
    from app.core.config import Settings
    from app.worker import make_celery

    client = make_celery(Settings(redis_url=redis_url))
    try:
        client.send_task(task, args=list(args))
    finally:
        client.close()


def test_workers_crawl_once_survive_a_kill_and_a_redis_restart(
    pg: Engine, private_redis: PrivateRedis, postgres_url: str, tmp_path: Path
) -> None:
    slow = NewsSite(articles=40, delay=0.2)
    quick = NewsSite(articles=2)
    env = app_env(
        database_url=postgres_url,
        redis_url=private_redis.url,
        url_allowlist="127.0.0.1",
        crawl_delay="0",
        crawl_lock_seconds="4",
        var_dir=str(tmp_path / "var"),
        secret_key="test",
        log_level="INFO",
    )
    log = tmp_path / "workers.log"
    with slow.serve() as seed, quick.serve() as quick_seed, Session(pg) as session:
        site_id, (football, weather) = make_concerns(session, seed, [["足球"], ["天气"]])
        pages = select(func.count()).select_from(Page)

        first = celery_worker(env, log, "first")
        try:
            _send(private_redis.url, "timelypush.run_due_crawls")  # what beat sends each tick
            wait_for(lambda: _count(pg, pages) >= 25, 180, "the first worker to crawl 25 pages")
            stop(first, signal.SIGKILL)
        finally:
            stop(first, signal.SIGKILL)
        assert _runs(pg, site_id) == ["running"]
        assert _count(pg, pages) < 41

        second = celery_worker(env, log, "second")
        try:
            # beat keeps ticking; once the dead worker's lock and lease expire the site is due
            def finished() -> bool:
                if "ok" in _runs(pg, site_id):
                    return True
                _send(private_redis.url, "timelypush.run_due_crawls")
                return False

            wait_for(finished, 180, "the second worker to finish the crawl", step=1.0)
            assert sorted(_runs(pg, site_id)) == ["interrupted", "ok"]
            assert _count(pg, pages) == 41
            per_concern = (
                select(func.count()).select_from(Match).where(Match.concern_id == football)
            )
            assert _count(pg, per_concern) == 20
            per_concern = select(func.count()).select_from(Match).where(Match.concern_id == weather)
            assert _count(pg, per_concern) == 20
            with pg.connect() as conn:
                doubled = conn.execute(
                    text(
                        "SELECT count(*) FROM (SELECT concern_id, page_id FROM matches "
                        "GROUP BY 1, 2 HAVING count(*) > 1) d"
                    )
                ).scalar_one()
            assert doubled == 0

            # Redis restarts (queue lost): the worker reconnects and the next crawl happens
            private_redis.stop()
            private_redis.start()
            quick_id, _ = make_concerns(session, quick_seed, [["足球"]])

            def quick_done() -> bool:
                if "ok" in _runs(pg, quick_id):
                    return True
                _send(private_redis.url, "timelypush.crawl_site", quick_id)
                return False

            wait_for(quick_done, 120, "a crawl after the Redis restart", step=2.0)
            assert _runs(pg, quick_id)[0] == "ok"
            quick_matches = (
                select(func.count())
                .select_from(Match)
                .where(
                    Match.concern_id.in_(  # type: ignore[attr-defined]
                        select(Match.concern_id).join(Page).where(Page.site_id == quick_id)
                    )
                )
            )
            assert _count(pg, quick_matches) == 1
        finally:
            stop(second)
