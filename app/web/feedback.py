"""The "not relevant" link in email: ``GET/POST /feedback/{token}``, no login needed.

The signed token names one message and the verdict. GET shows a confirmation button in the
message owner's language (mail systems prefetch GET links to scan them, so GET never records
anything); POST records the verdict. Repeating it changes nothing.
"""

from __future__ import annotations

import logging

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.core.config import get_settings
from app.core.i18n import N_
from app.models import Match, User
from app.services import feedback as svc
from app.services.errors import NotFound
from app.web import i18n
from app.web.sessions import Db
from app.web.templating import render, request_language
from push import clean_title

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/feedback", include_in_schema=False)


def _error(request: Request, heading: str, detail: str, status: int) -> Response:
    lang = request_language(request, None)
    context = {"heading": i18n.translate(lang, heading), "detail": i18n.translate(lang, detail)}
    return render(request, "error.html", context, status_code=status)


def _invalid(request: Request) -> Response:
    return _error(
        request,
        N_("Link not valid"),
        N_(
            "This link is invalid or has expired. "
            "You can still judge the message in your dashboard."
        ),
        400,
    )


def _gone(request: Request) -> Response:
    return _error(
        request,
        N_("Message not found"),
        N_("This message no longer exists (it may have been deleted). Nothing was recorded."),
        404,
    )


def _page(request: Request, db: Db, match: Match, token: str, *, done: bool) -> Response:
    owner = db.get(User, match.user_id)
    # the headline as the dashboard shows it, without the site's name after it
    title = clean_title(match.title) if match.title else ""
    context = {"m": match, "title": title, "token": token, "done": done}
    return render(request, "feedback/confirm.html", context, lang=owner.language if owner else None)


@router.get("/{token}")
def confirm_feedback(request: Request, db: Db, token: str) -> Response:
    """A page naming the message, with one button that records "not relevant"."""
    verdict = svc.read_token(get_settings(), token)
    if verdict is None:
        return _invalid(request)
    try:
        match = svc.signed_match(db, verdict)
    except NotFound:
        return _gone(request)
    return _page(request, db, match, token, done=match.feedback == verdict.value)


@router.post("/{token}")
def record_feedback(request: Request, db: Db, token: str) -> Response:
    """Record the verdict the signed link names."""
    verdict = svc.read_token(get_settings(), token)
    if verdict is None:
        return _invalid(request)
    try:
        match = svc.apply_signed(db, verdict)
        db.commit()
    except NotFound:
        return _gone(request)
    return _page(request, db, match, token, done=True)
