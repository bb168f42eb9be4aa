"""The Celery adapter: one Celery app whose tasks are the plain jobs of ``app.jobs``.

Run with ``timelypush worker`` / ``timelypush beat`` (or ``celery -A app.worker worker``).
Redis is broker and result backend; JSON only; ``acks_late`` with prefetch 1 so a killed
worker's task goes back to the queue; retries with exponential backoff on transient errors
only (database connection, Redis connection, network transport). A site is never crawled
twice at once whatever the queue does: ``crawl_site`` takes the site's lock.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx
import redis
from celery import Celery
from celery.signals import worker_init
from sqlalchemy.exc import OperationalError

from app import jobs
from app.core.config import Settings, get_settings
from app.schedule import periodic_jobs
from app.services import outbox_wake

logger = logging.getLogger(__name__)

TRANSIENT: tuple[type[BaseException], ...] = (
    OperationalError,
    redis.ConnectionError,
    redis.TimeoutError,
    httpx.TransportError,
)
RETRY = {
    "autoretry_for": TRANSIENT,
    "retry_backoff": 5,
    "retry_backoff_max": 600,
    "retry_jitter": True,
    "max_retries": 8,
}


def make_celery(settings: Settings) -> Celery:
    url = settings.redis_url or "redis://127.0.0.1:6379/0"
    app = Celery("timelypush", broker=url, backend=url)
    hard = settings.crawl_time_limit + 60
    app.conf.update(
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_time_limit=hard,
        task_soft_time_limit=settings.crawl_time_limit + 30,
        task_ignore_result=True,
        result_expires=3600,
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,
        broker_transport_options={"visibility_timeout": max(3600, int(hard * 2))},
        worker_hijack_root_logger=False,
        timezone="UTC",
        beat_schedule={
            job.name: {"task": f"timelypush.{job.name}", "schedule": job.seconds}
            for job in periodic_jobs(settings)
        },
    )
    return app


celery_app = make_celery(get_settings())
app = celery_app


@celery_app.task(  # type: ignore[untyped-decorator]
    name="timelypush.crawl_site", **RETRY
)
def crawl_site(site_id: int) -> dict[str, Any]:
    return jobs.crawl_site(site_id)


@celery_app.task(  # type: ignore[untyped-decorator]
    name="timelypush.run_due_crawls", **RETRY
)
def run_due_crawls() -> int:
    return jobs.run_due_crawls(enqueue=lambda site_id: crawl_site.delay(site_id))


@celery_app.task(  # type: ignore[untyped-decorator]
    name="timelypush.send_due_deliveries", **RETRY
)
def send_due_deliveries() -> int:
    return jobs.send_due_deliveries()


@celery_app.task(  # type: ignore[untyped-decorator]
    name="timelypush.send_due_digests", **RETRY
)
def send_due_digests() -> int:
    return jobs.send_due_digests()


@celery_app.task(  # type: ignore[untyped-decorator]
    name="timelypush.cleanup", **RETRY
)
def cleanup() -> dict[str, int]:
    return jobs.cleanup()


def _wake_outbox_on_new_deliveries(**_: Any) -> None:
    """Crawls in this worker wake the outbox sender (``app.services.outbox_wake``); forked pool
    processes inherit the waker."""
    outbox_wake.set_waker(lambda: send_due_deliveries.apply_async(retry=False))


worker_init.connect(_wake_outbox_on_new_deliveries, weak=False)


def _recover_interrupted_crawls(**_: Any) -> None:
    """A worker restarted on this host frees its dead predecessor's locks at once."""
    try:
        jobs.recover_interrupted()
    except Exception:
        logger.warning("could not recover interrupted crawls at start-up", exc_info=True)


worker_init.connect(_recover_interrupted_crawls, weak=False)
