"""“Check now” (立即检查): ask for a visit of a concern's site and say truthfully what happens.

``request_visit`` answers one of three things:

- ``queued`` — the site is due now; the embedded scheduler hands it to a crawler at once
  (``app.services.crawl_wake``), else the scheduler's next tick does
  (``scheduler_tick_seconds``); an interrupted crawl resumes from its checkpoint;
- ``running`` — a live process is crawling the site (since ``since``): nothing to add;
- ``refused`` — nothing would happen (``reason``: the concern is paused), so nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlmodel import Session, col, select

from app.core.config import Settings, get_settings
from app.models import Concern, CrawlRun, Site, User
from app.services import crawl_wake, recovery, sites, throttle
from app.services.concerns import get_concern
from app.services.locks import holder


class VisitState(StrEnum):
    """What became of a request to visit a site now."""

    QUEUED = "queued"
    RUNNING = "running"
    REFUSED = "refused"


class RefusedBecause(StrEnum):
    """Why a visit request was refused."""

    PAUSED = "concern_paused"


@dataclass(frozen=True, kw_only=True)
class VisitRequest:
    """The answer to a request to visit a site now."""

    concern: Concern
    state: VisitState
    since: datetime | None = None
    """When the running crawl started (``running``)."""
    reason: RefusedBecause | None = None
    """Why nothing was scheduled (``refused``)."""
    within_seconds: float | None = None
    """The scheduler's tick: the longest wait before a queued visit starts (None: it was handed
    to a crawler at once and starts as soon as one is free)."""


def request_visit(
    session: Session, user: User, concern_id: int, *, settings: Settings | None = None
) -> VisitRequest:
    """Schedule a visit of the user's concern's site right away (``visit_now``)."""
    return visit_now(session, user, get_concern(session, user, concern_id), settings=settings)


def visit_now(
    session: Session, user: User, concern: Concern, *, settings: Settings | None = None
) -> VisitRequest:
    """Schedule a visit of the site of a concern the caller loaded as ``user``'s right away,
    unless one runs or none could."""
    settings = settings or get_settings()
    if not concern.enabled:
        return VisitRequest(concern=concern, state=VisitState.REFUSED, reason=RefusedBecause.PAUSED)
    throttle.hit(session, settings, "check_now", user.id)
    found = session.get(Site, concern.site_id) if concern.site_id else None
    site = found if found is not None else sites.attach_site(session, concern)
    if holder(site, redis_url=settings.redis_url) is not None:
        run = session.exec(
            select(CrawlRun)
            .where(col(CrawlRun.site_id) == site.id, col(CrawlRun.status) == "running")
            .order_by(col(CrawlRun.started_at).desc())
        ).first()
        session.flush()
        return VisitRequest(
            concern=concern, state=VisitState.RUNNING, since=run.started_at if run else None
        )
    sites.check_now(session, site)
    session.commit()  # the recovery below and the woken scheduler use other connections
    # a run its dead crawler left "running" is closed now, not at the next tick
    recovery.recover_interrupted(session.get_bind(), settings.redis_url)  # type: ignore[arg-type]
    session.refresh(concern)
    started = crawl_wake.wake()  # the embedded scheduler hands it out now
    return VisitRequest(
        concern=concern,
        state=VisitState.QUEUED,
        within_seconds=None if started else max(1.0, settings.scheduler_tick_seconds),
    )
