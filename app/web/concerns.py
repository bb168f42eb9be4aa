""" "My concerns" (我的关注): list, add, edit, pause / resume, delete, check now.

Validation, keyword normalisation, the SSRF guard and the reachability probe all happen in
``app.services.concerns``; a refused form comes back with the message next to its field and
everything the user typed still in place.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from app.core.i18n import N_
from app.models import (
    DEFAULT_STRATEGY,
    SCORERS,
    SENSITIVITIES,
    STRATEGIES,
    Concern,
    ConcernCreate,
    ConcernUpdate,
)
from app.services import concerns as svc
from app.services import feedback as feedback_svc
from app.services import runs
from app.services.errors import NotFound, ServiceError
from app.services.visits import VisitState, request_visit
from app.web.csrf import csrf_protect
from app.web.forms import errors_for, kept, message, read_form
from app.web.sessions import CurrentUser, Db, PageNotFound, flash
from app.web.templating import redirect, render, user_zone

logger = logging.getLogger(__name__)

router = APIRouter(
    prefix="/concerns", dependencies=[Depends(csrf_protect)], include_in_schema=False
)


@dataclass(frozen=True)
class Param:
    """A key strategy parameter shown on the form (empty = the crawler's default)."""

    name: str
    label: str
    default: float
    low: float
    high: float
    help: str = ""
    """What changing it does, in plain words (a catalogue key)."""


PARAMS = (
    Param(
        "T",
        N_("Relevance threshold T"),
        0.5,
        0.0,
        10.0,
        N_(
            "How closely a page must match your keywords to reach you. Higher: fewer, "
            "more certain messages; lower: more messages, some less relevant."
        ),
    ),
    Param(
        "gamma",
        N_("PageRank weight γ"),
        0.8,
        0.0,
        1.0,
        N_(
            "How much a link's standing within the site counts next to how well its words "
            "match yours (0: only the words, 1: only the standing)."
        ),
    ),
    Param(
        "W",
        N_("Children followed W"),
        20,
        1,
        1000,
        N_("How many links the crawler follows from each page. More: a broader, slower visit."),
    ),
    Param(
        "a",
        N_("Widening after a relevant page a"),
        1.5,
        1.0,
        10.0,
        N_("How much wider the crawler looks around a page that matched."),
    ),
    Param(
        "D",
        N_("Depth after an irrelevant page D"),
        2,
        0,
        50,
        N_(
            "How many more steps the crawler goes past pages that do not match before it "
            "gives up on that path."
        ),
    ),
)


def _form_values(concern: Concern) -> dict[str, str]:
    values = {
        "seed_url": concern.seed_url,
        "keywords": ", ".join(concern.keywords),
        "exclude": ", ".join(concern.exclude),
        "synonyms": ", ".join(concern.synonyms),
        "priority": str(concern.priority),
        "max_pages": str(concern.max_pages),
        "scope": concern.scope,
        "strategy": concern.strategy,
        "enabled": "1" if concern.enabled else "",
        "sensitivity": concern.sensitivity,
        "scorer": concern.scorer,
    }
    for p in PARAMS:
        if p.name in concern.params:
            values[f"param_{p.name}"] = f"{concern.params[p.name]:g}"
    return values


def _parse(
    request: Request, user: Any, values: dict[str, str]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The typed fields for ConcernCreate / ConcernUpdate, or per-field errors."""
    errors: dict[str, str] = {}
    data: dict[str, Any] = {
        "seed_url": values.get("seed_url", "").strip(),
        "keywords": values.get("keywords", ""),
        "exclude": values.get("exclude", ""),
        "synonyms": values.get("synonyms", ""),
        "strategy": values.get("strategy", DEFAULT_STRATEGY),
        "scope": values.get("scope", "host"),
        "enabled": bool(values.get("enabled")),
    }
    for field, low, high in (("priority", 0, 5), ("max_pages", 1, 100_000)):
        raw = values.get(field, "").strip()
        try:
            number = int(raw)
        except ValueError:
            errors[field] = message(
                request, user, "Enter a whole number from %(low)s to %(high)s.", low=low, high=high
            )
            continue
        if not low <= number <= high:
            errors[field] = message(
                request, user, "Enter a whole number from %(low)s to %(high)s.", low=low, high=high
            )
        data[field] = number
    params: dict[str, float] = {}
    for p in PARAMS:
        raw = values.get(f"param_{p.name}", "").strip()
        if not raw:
            continue
        try:
            value = float(raw)
        except ValueError:
            value = float("nan")
        if not p.low <= value <= p.high:
            errors[f"param_{p.name}"] = message(
                request,
                user,
                "Enter a number from %(low)s to %(high)s.",
                low=f"{p.low:g}",
                high=f"{p.high:g}",
            )
            continue
        params[p.name] = value
    data["params"] = params
    if data["strategy"] not in STRATEGIES:
        errors["strategy"] = message(request, user, "Choose a strategy from the list.")
    data["sensitivity"] = values.get("sensitivity", "balanced")
    if data["sensitivity"] not in SENSITIVITIES:
        errors["sensitivity"] = message(request, user, "Choose precise, balanced or broad.")
    data["scorer"] = values.get("scorer", "model")
    if data["scorer"] not in SCORERS:
        errors["scorer"] = message(request, user, "Choose a scorer from the list.")
    return data, errors


def _form(
    request: Request,
    user: Any,
    *,
    heading: str,
    action: str,
    values: dict[str, str],
    errors: dict[str, str],
    status: int = 200,
) -> Response:
    return render(
        request,
        "concerns/form.html",
        {
            "heading": heading,
            "action": action,
            "form": values,
            "errors": errors,
            "strategies": STRATEGIES,
            "default_strategy": DEFAULT_STRATEGY,
            "params": PARAMS,
            "sensitivities": SENSITIVITIES,
            "scorers": SCORERS,
            # folded unless the concern departs from the defaults or a value there is wrong
            "advanced_open": values.get("strategy", DEFAULT_STRATEGY) != DEFAULT_STRATEGY
            or values.get("scorer", "model") != "model"
            or any(values.get(f"param_{p.name}") for p in PARAMS)
            or any(k in ("strategy", "scorer") or k.startswith("param_") for k in errors),
        },
        user=user,
        status_code=status,
    )


FIELDS = (
    "seed_url",
    "keywords",
    "exclude",
    "synonyms",
    "priority",
    "max_pages",
    "strategy",
    "scope",
    "sensitivity",
    "scorer",
)


def _errors(request: Request, user: Any, exc: ServiceError) -> dict[str, str]:
    return errors_for(request, user, exc, fields=FIELDS, aliases={"url": "seed_url"})


def _owned(db: Db, user: CurrentUser, concern_id: int) -> Concern:
    try:
        return svc.get_concern(db, user, concern_id)
    except NotFound as exc:
        raise PageNotFound from exc


@router.get("")
def concern_list(request: Request, db: Db, user: CurrentUser) -> Response:
    public = svc.to_public(db, svc.list_concerns(db, user))
    last = runs.latest_runs(db, {c.site_id for c in public if c.site_id is not None})
    return render(
        request,
        "concerns/list.html",
        {"concerns": public, "last_runs": last},
        user=user,
    )


@router.get("/new")
def concern_new(request: Request, user: CurrentUser) -> Response:
    return _form(
        request,
        user,
        heading=message(request, user, "Add concern"),
        action="/concerns/new",
        values={
            "priority": "0",
            "max_pages": "200",
            "enabled": "1",
            "sensitivity": "balanced",
            "scorer": "model",
        },
        errors={},
    )


@router.post("/new")
async def concern_create(request: Request, db: Db, user: CurrentUser) -> Response:
    values = await read_form(request)
    heading = message(request, user, "Add concern")
    data, errors = _parse(request, user, values)
    if errors:
        return _form(
            request,
            user,
            heading=heading,
            action="/concerns/new",
            values=kept(values),
            errors=errors,
            status=422,
        )
    try:
        concern = await run_in_threadpool(svc.create_concern, db, user, ConcernCreate(**data))
    except ServiceError as exc:
        return _form(
            request,
            user,
            heading=heading,
            action="/concerns/new",
            values=kept(values),
            errors=_errors(request, user, exc),
            status=exc.status,
        )
    flash(request, "Concern added; the first visit is scheduled.", "success")
    logger.info("web: concern %s added", concern.id)
    return redirect("/concerns")


@router.get("/{concern_id}/edit")
def concern_edit(request: Request, db: Db, user: CurrentUser, concern_id: int) -> Response:
    concern = _owned(db, user, concern_id)
    return _form(
        request,
        user,
        heading=message(request, user, "Edit concern"),
        action=f"/concerns/{concern_id}/edit",
        values=_form_values(concern),
        errors={},
    )


@router.post("/{concern_id}/edit")
async def concern_update(request: Request, db: Db, user: CurrentUser, concern_id: int) -> Response:
    _owned(db, user, concern_id)
    values = await read_form(request)
    heading = message(request, user, "Edit concern")
    action = f"/concerns/{concern_id}/edit"
    data, errors = _parse(request, user, values)
    if errors:
        return _form(
            request,
            user,
            heading=heading,
            action=action,
            values=kept(values),
            errors=errors,
            status=422,
        )
    try:
        await run_in_threadpool(svc.update_concern, db, user, concern_id, ConcernUpdate(**data))
    except NotFound as exc:
        raise PageNotFound from exc
    except ServiceError as exc:
        return _form(
            request,
            user,
            heading=heading,
            action=action,
            values=kept(values),
            errors=_errors(request, user, exc),
            status=exc.status,
        )
    flash(request, "Concern saved.", "success")
    return redirect("/concerns")


@router.post("/{concern_id}/pause")
def concern_pause(request: Request, db: Db, user: CurrentUser, concern_id: int) -> Response:
    concern = _owned(db, user, concern_id)
    if concern.enabled:
        svc.pause_concern(db, user, concern_id)
        flash(request, "Concern paused.", "info")
    else:
        svc.resume_concern(db, user, concern_id)
        flash(request, "Concern resumed.", "success")
    return redirect("/concerns")


@router.post("/{concern_id}/delete")
def concern_delete(request: Request, db: Db, user: CurrentUser, concern_id: int) -> Response:
    _owned(db, user, concern_id)
    svc.delete_concern(db, user, concern_id)
    flash(request, "Concern deleted.", "info")
    return redirect("/concerns")


@router.post("/{concern_id}/check")
def concern_check(request: Request, db: Db, user: CurrentUser, concern_id: int) -> Response:
    _owned(db, user, concern_id)
    visit = request_visit(db, user, concern_id)
    if visit.state is VisitState.QUEUED and visit.within_seconds is None:
        flash(request, "A visit is queued; it starts as soon as a crawler is free.", "success")
    elif visit.state is VisitState.QUEUED:
        seconds = round(visit.within_seconds or 60)
        flash(
            request,
            "A visit is queued; it starts within %(seconds)s s.",
            "success",
            seconds=seconds,
        )
    elif visit.state is VisitState.RUNNING:
        since = visit.since.astimezone(user_zone(user)).strftime("%H:%M") if visit.since else "—"
        flash(request, "This site is being checked right now (since %(time)s).", "info", time=since)
    else:
        flash(request, "Not checked: this concern is paused. Resume it first.", "error")
    return redirect("/concerns")


async def _learned_action(
    request: Request, db: Db, user: CurrentUser, concern_id: int, promote: bool
) -> Response:
    _owned(db, user, concern_id)
    term = (await read_form(request)).get("term", "")
    try:
        if promote:
            feedback_svc.promote_term(db, user, concern_id, term)
            flash(request, "“%(term)s” is now a synonym of your keywords.", "success", term=term)
        else:
            feedback_svc.block_term(db, user, concern_id, term)
            flash(
                request,
                "“%(term)s” is removed; the model will not use it again.",
                "info",
                term=term,
            )
        db.commit()  # before the redirect: the report must show it
    except ServiceError as exc:
        flash(request, "%(error)s", "error", error=errors_for(request, user, exc).popitem()[1])
    return redirect(f"/concerns/{concern_id}/report#learned")


@router.post("/{concern_id}/learned/block")
async def learned_block(request: Request, db: Db, user: CurrentUser, concern_id: int) -> Response:
    """Remove a learned term (it is never used again for this concern)."""
    return await _learned_action(request, db, user, concern_id, promote=False)


@router.post("/{concern_id}/learned/promote")
async def learned_promote(request: Request, db: Db, user: CurrentUser, concern_id: int) -> Response:
    """Make a learned term one of the concern's synonyms."""
    return await _learned_action(request, db, user, concern_id, promote=True)
