"""Crawls interrupted by a dead process: freed, marked and resumed.

``recover_interrupted()`` runs when a process starts (``timelypush serve``'s scheduler, a Celery
worker) and on every scheduler tick:

1. locks held by dead processes of this host are freed at once (``locks.free_dead_locks``);
2. every run still "running" whose site has no live lock holder is marked ``interrupted``;
3. that site is due now, so the next tick resumes its crawl from ``sites.checkpoint``.

A run of a live crawl (its lock renewed by a heartbeat, on any host) is never touched.
"""

from __future__ import annotations

import logging

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.models import CrawlRun, Site, utcnow
from app.services.locks import free_dead_locks, holder

logger = logging.getLogger(__name__)

INTERRUPTED = "interrupted"


def recover_interrupted(engine: Engine, redis_url: str | None) -> list[int]:
    """Mark runs whose crawler died as interrupted and make their sites due; returns site ids."""
    free_dead_locks(engine, redis_url)
    now = utcnow()
    resumed: set[int] = set()
    with Session(engine, expire_on_commit=False) as session:
        running = session.exec(select(CrawlRun).where(col(CrawlRun.status) == "running")).all()
        for run in running:
            site = session.get(Site, run.site_id)
            if site is not None and holder(site, redis_url=redis_url) is not None:
                continue  # a live crawl
            run.status = INTERRUPTED
            run.finished_at = now
            session.add(run)
            if site is not None:
                site.next_visit_at = now
                session.add(site)
                resumed.add(run.site_id)
        session.commit()  # its own session: called by jobs and at start-up, not in a request
    if resumed:
        logger.warning("crawls interrupted by a stopped process resume now on sites %s", resumed)
    return sorted(resumed)
