"""Crawl reports for a concern: the recent runs of its site and the harvest-rate series.

A site is visited once for everyone who follows it, so a run's ``pages_matched`` counts pages
that matched *any* concern on the site. A concern's report counts its own matches: those
created while the run went on (runs of one site never overlap: the crawl lock).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel
from sqlalchemy import delete
from sqlmodel import Session, col, func, select

from app.models import Concern, CrawlRun, Match, User, utcnow
from app.services.concerns import get_concern

MAX_RUNS = 200
RUN_HISTORY_DAYS = 90


class HarvestPoint(BaseModel):
    """One run on the chart: pages fetched and matched, harvest rate = matched / fetched."""

    run_id: int
    started_at: datetime
    status: str
    pages_fetched: int
    pages_matched: int
    """Pages that matched any concern on the site (the visit is shared)."""
    errors: int
    harvest_rate: float
    own_matched: int = 0
    """This concern's own matches during the run."""
    own_harvest_rate: float = 0.0
    """own_matched / pages_fetched."""
    series: list[Any] = []
    """Within-run harvest series when the crawler recorded one (stats["harvest"])."""


def list_runs(session: Session, user: User, concern_id: int, *, limit: int = 50) -> list[CrawlRun]:
    """``runs_of`` the user's concern (NotFound for someone else's)."""
    return runs_of(session, get_concern(session, user, concern_id), limit=limit)


def runs_of(session: Session, concern: Concern, *, limit: int = 50) -> list[CrawlRun]:
    """The newest runs of the site of a concern the caller loaded as the user's, as its owner
    sees them.

    A site is shared by every concern on it, so when other users watch it too a run's own
    counts mix users: then only runs since the concern exists are listed, as copies that
    carry only this concern's matches (``pages_matched``, the harvest rate) and none of the
    other concerns' figures."""
    if concern.site_id is None:
        return []
    limit = max(1, min(limit, MAX_RUNS))
    shared = session.exec(
        select(func.count())
        .select_from(Concern)
        .where(Concern.site_id == concern.site_id, Concern.owner_id != concern.owner_id)
    ).one()
    query = select(CrawlRun).where(CrawlRun.site_id == concern.site_id)
    if shared:
        query = query.where(col(CrawlRun.started_at) >= concern.created_at - OVERLAP)
    found = list(
        session.exec(
            query.order_by(col(CrawlRun.started_at).desc(), col(CrawlRun.id).desc()).limit(limit)
        )
    )
    if not shared or not found:
        return found  # every concern on the site is this user's: the runs are all theirs
    times = list(
        session.exec(
            select(Match.created_at).where(
                Match.concern_id == concern.id,
                Match.user_id == concern.owner_id,
                col(Match.created_at) >= min(r.started_at for r in found),
            )
        )
    )
    now = utcnow()
    return [_own_view(run, times, now) for run in found]


OVERLAP = timedelta(minutes=1)
"""A run that started just before the concern was saved may already have served it."""

_SHARED_STATS = ("matches", "harvest", "harvest_rate")


def _own_view(run: CrawlRun, match_times: list[datetime], now: datetime) -> CrawlRun:
    end = run.finished_at or now
    own = sum(1 for t in match_times if run.started_at <= t <= end)
    stats = {k: v for k, v in (run.stats or {}).items() if k not in _SHARED_STATS}
    if run.pages_fetched:
        stats["harvest_rate"] = own / run.pages_fetched
    values = run.model_dump()
    values.update(pages_matched=own, stats=stats)
    return CrawlRun.model_validate(values)


def own_matches(session: Session, concern: Concern, runs: list[CrawlRun]) -> dict[int, int]:
    """``{run id: the concern's matches created during that run}``."""
    if not runs or concern.id is None:
        return {}
    since = min(r.started_at for r in runs)
    stamps = list(
        session.exec(
            select(Match.created_at).where(
                Match.concern_id == concern.id, col(Match.created_at) >= since
            )
        )
    )
    now = utcnow()
    counts: dict[int, int] = {}
    for run in runs:
        assert run.id is not None
        end = run.finished_at or now
        counts[run.id] = sum(1 for at in stamps if run.started_at <= at <= end)
    return counts


def harvest_series(
    session: Session, user: User, concern_id: int, *, limit: int = 30
) -> list[HarvestPoint]:
    """``harvest_of`` the user's concern (NotFound for someone else's)."""
    return harvest_of(session, get_concern(session, user, concern_id), limit=limit)


def harvest_of(session: Session, concern: Concern, *, limit: int = 30) -> list[HarvestPoint]:
    """Oldest-first points for a chart of the last ``limit`` runs of a concern the caller
    loaded as the user's."""
    points = []
    recent = runs_of(session, concern, limit=limit)
    own = own_matches(session, concern, recent)
    for run in reversed(recent):
        assert run.id is not None
        fetched = run.pages_fetched
        mine = own.get(run.id, 0)
        series = run.stats.get("harvest") if isinstance(run.stats, dict) else None
        points.append(
            HarvestPoint(
                run_id=run.id,
                started_at=run.started_at,
                status=run.status,
                pages_fetched=fetched,
                pages_matched=run.pages_matched,
                errors=run.errors,
                harvest_rate=round(run.pages_matched / fetched, 4) if fetched else 0.0,
                series=series if isinstance(series, list) else [],
                own_matched=mine,
                own_harvest_rate=round(mine / fetched, 4) if fetched else 0.0,
            )
        )
    return points


def latest_runs(session: Session, site_ids: set[int]) -> dict[int, CrawlRun]:
    """The newest run of each site (for "last visit" lines); sites never visited are absent."""
    if not site_ids:
        return {}
    newest = (
        select(CrawlRun.site_id, func.max(CrawlRun.id).label("last"))
        .where(col(CrawlRun.site_id).in_(site_ids))
        .group_by(col(CrawlRun.site_id))
        .subquery()
    )
    rows = session.exec(select(CrawlRun).join(newest, col(CrawlRun.id) == newest.c.last))
    return {run.site_id: run for run in rows}


def count_runs(session: Session, user: User, concern_id: int) -> int:
    """How many runs the concern's site has had (NotFound for someone else's concern)."""
    return count_runs_of(session, get_concern(session, user, concern_id))


def count_runs_of(session: Session, concern: Concern) -> int:
    """How many runs the site of a concern the caller loaded has had."""
    if concern.site_id is None:
        return 0
    stmt = select(func.count()).select_from(CrawlRun).where(CrawlRun.site_id == concern.site_id)
    return int(session.exec(stmt).one())


def drop_old_runs(session: Session, days: int = RUN_HISTORY_DAYS) -> int:
    """Delete the run history older than ``days``; returns how many (the caller commits)."""
    table = CrawlRun.__table__  # type: ignore[attr-defined]
    result = session.exec(delete(table).where(table.c.started_at < utcnow() - timedelta(days=days)))
    return int(result.rowcount)
