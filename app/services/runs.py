"""Crawl reports for a concern: the recent runs of its site and the harvest-rate series."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlmodel import Session, col, select

from app.models import CrawlRun, User
from app.services.concerns import get_concern

MAX_RUNS = 200


class HarvestPoint(BaseModel):
    """One run on the chart: pages fetched and matched, harvest rate = matched / fetched."""

    run_id: int
    started_at: datetime
    status: str
    pages_fetched: int
    pages_matched: int
    errors: int
    harvest_rate: float
    series: list[Any] = []
    """Within-run harvest series when the crawler recorded one (stats["harvest"])."""


def list_runs(session: Session, user: User, concern_id: int, *, limit: int = 50) -> list[CrawlRun]:
    """The newest runs of the concern's site (NotFound for someone else's concern)."""
    concern = get_concern(session, user, concern_id)
    if concern.site_id is None:
        return []
    limit = max(1, min(limit, MAX_RUNS))
    return list(
        session.exec(
            select(CrawlRun)
            .where(CrawlRun.site_id == concern.site_id)
            .order_by(col(CrawlRun.started_at).desc(), col(CrawlRun.id).desc())
            .limit(limit)
        )
    )


def harvest_series(
    session: Session, user: User, concern_id: int, *, limit: int = 30
) -> list[HarvestPoint]:
    """Oldest-first points for a chart of the last ``limit`` runs."""
    points = []
    for run in reversed(list_runs(session, user, concern_id, limit=limit)):
        assert run.id is not None
        fetched = run.pages_fetched
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
            )
        )
    return points
