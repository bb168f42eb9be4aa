""" "My concerns" (我的关注): list, add, edit, pause / resume, delete, check now.

The form is validated with the API's models (``ConcernCreate`` / ``ConcernUpdate``); keyword
normalisation, the SSRF guard and the reachability probe happen in ``app.services.concerns``.
A refused form comes back with the message next to its field, in the visitor's language, and
everything the user typed still in place.
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from app.core.config import get_settings
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
from app.web import failures
from app.web.csrf import csrf_protect
from app.web.forms import errors_for, kept, message, read_form, safe_next, validation_errors
from app.web.sessions import CurrentUser, Db, PageNotFound, flash
from app.web.templating import redirect, render, user_zone

logger = logging.getLogger(__name__)

router = APIRouter(
    prefix="/concerns", dependencies=[Depends(csrf_protect)], include_in_schema=False
)


@dataclass(frozen=True)
class Param:
    """A key strategy parameter shown on the form (empty = the crawler's default); its range is
    the model's (``PARAM_RANGES``)."""

    name: str
    label: str
    default: float
    help: str = ""
    """What changing it does, in plain words (a catalogue key)."""


PARAMS = (
    Param(
        "T",
        N_("Relevance threshold T"),
        0.5,
        N_(
            "For the scorers that only count your keywords: how closely a page must match "
            "them to reach you. Higher: fewer, more certain messages; lower: more messages, "
            "some less relevant. The learned model goes by Sensitivity instead."
        ),
    ),
    Param(
        "gamma",
        N_("PageRank weight γ"),
        0.8,
        N_(
            "How much a link's standing within the site counts next to how well its words "
            "match yours (0: only the words, 1: only the standing)."
        ),
    ),
    Param(
        "W",
        N_("Children followed W"),
        20,
        N_("How many links the crawler follows from each page. More: a broader, slower visit."),
    ),
    Param(
        "a",
        N_("Widening after a relevant page a"),
        1.5,
        N_("How much wider the crawler looks around a page that matched."),
    ),
    Param(
        "D",
        N_("Depth after an irrelevant page D"),
        2,
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


def _data(values: dict[str, str]) -> dict[str, Any]:
    """The form's fields as the API's body: the model parses and checks them."""

    def number(raw: str) -> str:  # full-width digits typed with a Chinese input method
        return unicodedata.normalize("NFKC", raw).strip()

    return {
        "seed_url": values.get("seed_url", "").strip(),
        "keywords": values.get("keywords", ""),
        "exclude": values.get("exclude", ""),
        "synonyms": values.get("synonyms", ""),
        "strategy": values.get("strategy", DEFAULT_STRATEGY),
        "scope": values.get("scope", "host"),
        "enabled": bool(values.get("enabled")),
        "priority": number(values.get("priority", "")),
        "max_pages": number(values.get("max_pages", "")),
        "params": {
            p.name: number(values[f"param_{p.name}"])
            for p in PARAMS
            if values.get(f"param_{p.name}", "").strip()
        },
        "sensitivity": values.get("sensitivity", "balanced"),
        "scorer": values.get("scorer", "model"),
    }


CHOICES = {
    "strategy": N_("Choose a strategy from the list."),
    "scope": N_("Choose the scope: host, domain or any."),
    "sensitivity": N_("Choose precise, balanced or broad."),
    "scorer": N_("Choose a scorer from the list."),
}


M = TypeVar("M", ConcernCreate, ConcernUpdate)


def _validated(
    request: Request, user: Any, model: type[M], values: dict[str, str]
) -> tuple[M | None, dict[str, str]]:
    """The form validated with the API's model, or per-field errors."""
    try:
        return model.model_validate(_data(values)), {}
    except ValidationError as exc:
        errors = validation_errors(
            request,
            user,
            exc,
            model,
            fields=(*FIELDS, *(f"param_{p.name}" for p in PARAMS)),
            aliases={f"params.{p.name}": f"param_{p.name}" for p in PARAMS},
            choices=CHOICES,
        )
        return None, errors


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
            "first_visit_factor": f"{get_settings().crawl_first_visit_factor:g}",
            # each folded part opens by itself when the concern departs from its defaults
            # there or a value in it is wrong: how pages are judged (the scorer) …
            "judgment_open": values.get("scorer", "model") != "model" or "scorer" in errors,
            # … and how the site is crawled (the strategy and its parameters)
            "crawl_open": values.get("strategy", DEFAULT_STRATEGY) != DEFAULT_STRATEGY
            or any(values.get(f"param_{p.name}") for p in PARAMS)
            or any(k == "strategy" or k.startswith("param_") for k in errors),
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
        {"concerns": public, "last_runs": last, "failure": failures.visit_failure},
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
    data, errors = _validated(request, user, ConcernCreate, values)
    if data is None:
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
        concern = await run_in_threadpool(svc.create_concern, db, user, data)
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
    data, errors = _validated(request, user, ConcernUpdate, values)
    if data is None:
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
        await run_in_threadpool(svc.update_concern, db, user, concern_id, data)
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
async def concern_check(request: Request, db: Db, user: CurrentUser, concern_id: int) -> Response:
    """Ask for a visit now; back to the list, or to the page the button was on (``next``)."""
    back = safe_next((await read_form(request)).get("next"), "/concerns")
    try:
        visit = await run_in_threadpool(request_visit, db, user, concern_id)
    except NotFound as exc:
        raise PageNotFound from exc
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
    return redirect(back)


_LEARNED_ACTIONS: dict[str, tuple[Callable[..., Any], str, str]] = {
    "promote": (
        feedback_svc.promote_term,
        N_("“%(term)s” is now a synonym of your keywords."),
        "success",
    ),
    "restore": (
        feedback_svc.restore_term,
        N_("“%(term)s” is back; the model may learn it again on its next visit."),
        "success",
    ),
    "block": (
        feedback_svc.block_term,
        N_("“%(term)s” is removed; the model will not use it again."),
        "info",
    ),
}
"""What each button beside a learned (or removed) term does, and what the page then says."""


async def _learned_action(
    request: Request, db: Db, user: CurrentUser, concern_id: int, action: str
) -> Response:
    _owned(db, user, concern_id)
    term = (await read_form(request)).get("term", "")
    act, done, level = _LEARNED_ACTIONS[action]
    try:
        act(db, user, concern_id, term)
        db.commit()  # before the redirect: the report must show it
        flash(request, done, level, term=term)
    except ServiceError as exc:
        flash(request, "%(error)s", "error", error=errors_for(request, user, exc).popitem()[1])
    return redirect(f"/concerns/{concern_id}/report#learned")


@router.post("/{concern_id}/learned/block")
async def learned_block(request: Request, db: Db, user: CurrentUser, concern_id: int) -> Response:
    """Remove a learned term (it is never used again for this concern)."""
    return await _learned_action(request, db, user, concern_id, "block")


@router.post("/{concern_id}/learned/restore")
async def learned_restore(request: Request, db: Db, user: CurrentUser, concern_id: int) -> Response:
    """Give a removed term back to the model."""
    return await _learned_action(request, db, user, concern_id, "restore")


@router.post("/{concern_id}/learned/promote")
async def learned_promote(request: Request, db: Db, user: CurrentUser, concern_id: int) -> Response:
    """Make a learned term one of the concern's synonyms."""
    return await _learned_action(request, db, user, concern_id, "promote")
