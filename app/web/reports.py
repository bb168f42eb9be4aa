"""The per-concern crawl report: recent runs of the concern's site, pages fetched versus
matched, the harvest rate per run (drawn by Chart.js in the browser), and errors.

Matches are the concern's own; pages fetched are the shared visit's (the site is visited once
for everyone who follows it), and the page says so.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.services import concerns as concern_svc
from app.services import feedback as feedback_svc
from app.services import runs as svc
from app.services.errors import NotFound
from app.web import failures
from app.web.forms import message
from app.web.sessions import CurrentUser, Db, PageNotFound
from app.web.templating import render, user_zone

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/concerns", include_in_schema=False)

RECENT_RUNS = 30


def chart_data(points: list[svc.HarvestPoint], names: dict[str, str], fmt: Any) -> dict[str, Any]:
    """Chart.js series: one bar pair (fetched, matched) and one rate line (%) per run."""
    return {
        "labels": [fmt(p.started_at, "%m-%d %H:%M") for p in points],
        "fetched": [p.pages_fetched for p in points],
        "matched": [p.own_matched for p in points],
        "harvest": [round(p.own_harvest_rate * 100, 1) for p in points],
        "names": names,
    }


def run_series(points: list[svc.HarvestPoint]) -> dict[str, Any] | None:
    """The newest run's cumulative harvest rate as it crawled (``stats["harvest"]`` holds
    ``[pages fetched, pages matched]`` samples), or None when no run recorded one."""
    for point in reversed(points):
        samples = [
            (int(s[0]), int(s[1]))
            for s in point.series
            if isinstance(s, list | tuple) and len(s) == 2 and int(s[0]) > 0
        ]
        if samples:
            return {
                "run_id": point.run_id,
                "labels": [f for f, _ in samples],
                "rate": [round(100 * m / f, 1) for f, m in samples],
            }
    return None


@router.get("/{concern_id}/report")
def concern_report(request: Request, db: Db, user: CurrentUser, concern_id: int) -> Response:
    try:
        concern = concern_svc.get_concern(db, user, concern_id)
        runs = svc.list_runs(db, user, concern_id, limit=RECENT_RUNS)
        points = svc.harvest_series(db, user, concern_id, limit=RECENT_RUNS)
    except NotFound as exc:
        raise PageNotFound from exc
    own = svc.own_matches(db, concern, runs)
    fetched = sum(r.pages_fetched for r in runs)
    matched = sum(own.values())
    names = {
        "fetched": message(request, user, "Pages fetched (for everyone)"),
        "matched": message(request, user, "Matches for this concern"),
        "harvest": message(request, user, "Harvest rate") + " (%)",
        "pages": message(request, user, "Pages"),
    }
    zone = user_zone(user)
    chart = chart_data(points, names, lambda d, f: d.astimezone(zone).strftime(f))
    during = run_series(points)
    if during is not None:
        during["names"] = {
            "rate": message(request, user, "Site-wide match rate") + " (%)",
            "pages": message(request, user, "Pages fetched"),
        }
    return render(
        request,
        "concerns/report.html",
        {
            "concern": concern,
            "failure": failures.visit_failure,
            "learned": feedback_svc.learned_terms(concern),
            "sparse": feedback_svc.sparse_words(concern),
            "verdicts": feedback_svc.feedback_count(db, concern_id),
            "runs": runs,
            "own": own,
            "chart": chart,
            "during": during,
            "totals": {
                "runs": len(runs),
                "fetched": fetched,
                "matched": matched,
                "harvest": matched / fetched if fetched else None,
            },
        },
        user=user,
    )
