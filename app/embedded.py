"""The embedded (one-process) scheduler: the APScheduler adapter of ``app.schedule``.

Inside ``timelypush serve`` without Redis, a BackgroundScheduler runs the periodic jobs in a
small thread pool (so the web app stays responsive): ``coalesce`` (a late job runs once, not
once per missed tick) and ``max_instances=1``. Due crawls become one-off jobs in the same pool,
one per site (the job id is the site, so a site is never queued twice).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.jobstores.base import ConflictingIdError
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.interval import IntervalTrigger
from fastapi import FastAPI

from app import jobs
from app.core.config import Settings
from app.schedule import periodic_jobs
from app.services import crawl_wake, outbox_wake

logger = logging.getLogger(__name__)

THREADS = 4


def _enqueuer(scheduler: BackgroundScheduler) -> Callable[[int], None]:
    """Due crawls become one-off jobs in the pool, one per site."""

    def enqueue(site_id: int) -> None:
        try:
            scheduler.add_job(
                jobs.crawl_site,
                args=[site_id],
                id=f"crawl-site-{site_id}",
                name=f"crawl site {site_id}",
            )
        except ConflictingIdError:
            logger.debug("site %s is already queued", site_id)

    return enqueue


def make_scheduler(settings: Settings) -> BackgroundScheduler:
    """A scheduler with every periodic job of the schedule (not started)."""
    scheduler = BackgroundScheduler(
        executors={"default": ThreadPoolExecutor(THREADS)},
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
        timezone=UTC,
    )

    enqueue = _enqueuer(scheduler)
    first = datetime.now(UTC) + timedelta(seconds=1)
    for job in periodic_jobs(settings):
        func: Any = job.func
        kwargs: dict[str, Any] = {}
        if job.func is jobs.run_due_crawls:
            kwargs = {"enqueue": enqueue}
        start: dict[str, Any] = {} if job.name == "cleanup" else {"next_run_time": first}
        scheduler.add_job(
            func,
            IntervalTrigger(seconds=job.seconds),
            kwargs=kwargs,
            id=job.name,
            name=job.name,
            **start,
        )
    return scheduler


def crawl_now(scheduler: BackgroundScheduler) -> None:
    """A one-off ``run_due_crawls`` now (“check now”, ``app.services.crawl_wake``)."""
    scheduler.add_job(
        jobs.run_due_crawls,
        kwargs={"enqueue": _enqueuer(scheduler)},
        id="run-due-crawls-now",
        name="run due crawls now",
        replace_existing=True,
        max_instances=2,
    )


def send_now(scheduler: BackgroundScheduler) -> None:
    """A one-off outbox run now (``app.services.outbox_wake``); it may overlap a periodic run:
    the outbox claims each row once."""
    scheduler.add_job(
        jobs.send_due_deliveries,
        id="send-due-deliveries-now",
        name="send due deliveries now",
        replace_existing=True,
        max_instances=2,
    )


@asynccontextmanager
async def lifespan(app: FastAPI, settings: Settings) -> AsyncIterator[None]:
    """Run the in-process scheduler for the app's lifetime (embedded mode only)."""
    if not settings.embedded or not settings.scheduler_enabled:
        yield
        return
    # crawls this server's previous process left unfinished resume in the first tick
    await asyncio.to_thread(jobs.recover_interrupted)
    scheduler = make_scheduler(settings)
    scheduler.start()
    app.state.scheduler = scheduler
    outbox_wake.set_waker(lambda: send_now(scheduler))
    crawl_wake.set_waker(lambda: crawl_now(scheduler))
    logger.info("embedded scheduler started (tick %.0f s)", settings.scheduler_tick_seconds)
    try:
        yield
    finally:
        outbox_wake.set_waker(None)
        crawl_wake.set_waker(None)
        scheduler.shutdown(wait=False)
        logger.info("embedded scheduler stopped")
