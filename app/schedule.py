"""The one schedule of periodic jobs. ``app.worker`` (Celery beat) and ``app.embedded``
(APScheduler) both build theirs from :func:`periodic_jobs`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app import jobs
from app.core.config import Settings


@dataclass(frozen=True)
class Periodic:
    """A job run every ``seconds``; ``name`` is also the Celery task's short name."""

    name: str
    func: Callable[..., Any]
    seconds: float


def periodic_jobs(settings: Settings) -> list[Periodic]:
    tick = max(1.0, settings.scheduler_tick_seconds)
    return [
        Periodic("run_due_crawls", jobs.run_due_crawls, tick),
        Periodic("send_due_deliveries", jobs.send_due_deliveries, tick),
        Periodic("send_due_digests", jobs.send_due_digests, max(tick, 60.0)),
        Periodic("cleanup", jobs.cleanup, 3600.0),
    ]
