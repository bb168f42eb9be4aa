"""The background jobs as plain functions taking ids; Celery and APScheduler only adapt them.

- ``crawl_site(site_id)`` — one visit of one site (``app.services.crawling``).
- ``run_due_crawls(enqueue)`` — find sites that are due, lease each one so it is handed out
  once, and ``enqueue(site_id)`` it (a Celery task, or a job in the embedded thread pool;
  without ``enqueue`` the crawls run right here, one after the other).
- ``send_due_deliveries()`` / ``send_due_digests()`` — the push outbox and the daily digests.
- ``cleanup()`` — expired locks, interrupted crawl runs, old run history.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, exists, or_, update
from sqlmodel import Session, col, select

from app.core.config import get_settings
from app.core.db import get_engine
from app.models import Concern, CrawlRun, Site, utcnow
from app.services import crawling, recovery

logger = logging.getLogger(__name__)

RUN_HISTORY_DAYS = 90


def crawl_site(site_id: int) -> dict[str, Any]:
    """Visit one site (skipped when another worker holds its lock)."""
    return crawling.crawl_site(site_id)


def due_site_ids(session: Session, limit: int = 100) -> list[int]:
    """Sites with an enabled concern whose next visit is due (or never set), not locked."""
    now = utcnow()
    has_concern = exists().where(
        col(Concern.site_id) == col(Site.id), col(Concern.enabled).is_(True)
    )
    due = col(Site.next_visit_at)
    locked = col(Site.locked_until)
    stmt = (
        select(col(Site.id))
        .where(has_concern, or_(due.is_(None), due <= now), or_(locked.is_(None), locked < now))
        .order_by(due)
        .limit(limit)
    )
    return [int(i) for i in session.exec(stmt) if i is not None]


def _lease(session: Session, site_id: int, seconds: float) -> bool:
    """Push the site's next visit out by ``seconds`` unless someone else already did.

    A compare-and-set, so two schedulers never hand out the same visit; if the crawl never
    happens (queue lost, worker killed) the site is due again when the lease runs out.
    """
    now = utcnow()
    table = Site.__table__  # type: ignore[attr-defined]
    stmt = (
        update(table)
        .where(
            table.c.id == site_id,
            or_(table.c.next_visit_at.is_(None), table.c.next_visit_at <= now),
        )
        .values(next_visit_at=now + timedelta(seconds=seconds))
    )
    return session.exec(stmt).rowcount == 1


def recover_interrupted() -> list[int]:
    """Free the locks of dead processes; their runs become "interrupted", their sites due."""
    return recovery.recover_interrupted(get_engine(), get_settings().redis_url)


def run_due_crawls(enqueue: Callable[[int], Any] | None = None, *, limit: int = 100) -> int:
    """Hand every due site out once; returns how many were enqueued (or crawled).

    Crawls whose process died are marked and made due first, so they resume in this tick.
    """
    settings = get_settings()
    recover_interrupted()
    with Session(get_engine()) as session:
        ids = due_site_ids(session, limit)
        leased = []
        for site_id in ids:
            if _lease(session, site_id, settings.crawl_lock_seconds):
                leased.append(site_id)
        session.commit()
    for site_id in leased:
        if enqueue is None:
            crawl_site(site_id)
        else:
            enqueue(site_id)
    if leased:
        logger.info("due crawls handed out: %s", leased)
    return len(leased)


def send_due_deliveries() -> int:
    """Send what the outbox holds (instant pushes, digests, retries)."""
    from app.services import delivery

    return int(delivery.process_outbox())


def send_due_digests() -> int:
    """Queue the daily digests that are due in each user's time zone."""
    from app.services import delivery

    return int(delivery.enqueue_due_digests())


def cleanup() -> dict[str, int]:
    """Free expired locks, close runs whose worker died, drop old run history."""
    settings = get_settings()
    now = utcnow()
    runs = CrawlRun.__table__  # type: ignore[attr-defined]
    sites = Site.__table__  # type: ignore[attr-defined]
    interrupted = len(recovery.recover_interrupted(get_engine(), settings.redis_url))
    with Session(get_engine()) as session:
        freed = session.exec(
            update(sites)
            .where(sites.c.locked_until < now)
            .values(locked_until=None, locked_by=None)
        ).rowcount
        dropped = session.exec(
            delete(runs).where(runs.c.started_at < now - timedelta(days=RUN_HISTORY_DAYS))
        ).rowcount
        session.commit()
    return {"locks_freed": freed, "runs_interrupted": interrupted, "runs_dropped": dropped}
