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
from typing import Any

from sqlmodel import Session

from app.core.config import get_settings
from app.core.db import get_engine
from app.services import crawling, locks, recovery, runs, sites

logger = logging.getLogger(__name__)


def crawl_site(site_id: int) -> dict[str, Any]:
    """Visit one site (skipped when another worker holds its lock)."""
    return crawling.crawl_site(site_id)


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
        ids = sites.due_site_ids(session, limit)
        leased = []
        for site_id in ids:
            if sites.lease_visit(session, site_id, settings.crawl_lock_seconds):
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
    interrupted = len(recovery.recover_interrupted(get_engine(), settings.redis_url))
    with Session(get_engine()) as session:
        freed = locks.free_expired_locks(session)
        dropped = runs.drop_old_runs(session)
        session.commit()
    return {"locks_freed": freed, "runs_interrupted": interrupted, "runs_dropped": dropped}
