"""CSRF protection: a synchronizer token kept in the session and echoed by every form.

Every unsafe request (POST, PUT, PATCH, DELETE) to a web page must carry the session's token
in the ``csrf_token`` form field (or the ``X-CSRF-Token`` header); otherwise it is refused
with 403 before the view runs.
"""

from __future__ import annotations

import logging
import secrets

from fastapi import Request

from app.core.security import constant_time_equal

logger = logging.getLogger(__name__)

SESSION_KEY = "csrf"
FIELD = "csrf_token"
HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


class CsrfError(Exception):
    """The request's CSRF token is missing or does not match the session's."""


def token(request: Request) -> str:
    """The session's CSRF token, created on first use."""
    value = request.session.get(SESSION_KEY)
    if not isinstance(value, str) or not value:
        value = secrets.token_urlsafe(32)
        request.session[SESSION_KEY] = value
    return value


def rotate(request: Request) -> str:
    """A fresh token (after login and logout)."""
    request.session[SESSION_KEY] = secrets.token_urlsafe(32)
    return str(request.session[SESSION_KEY])


async def csrf_protect(request: Request) -> None:
    """Router dependency: refuse unsafe requests whose token does not match the session."""
    if request.method in SAFE_METHODS:
        return
    expected = request.session.get(SESSION_KEY)
    sent = request.headers.get(HEADER)
    if not sent:
        content_type = request.headers.get("content-type", "")
        if content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
            form = await request.form()
            value = form.get(FIELD)
            sent = value if isinstance(value, str) else None
    if not expected or not sent or not constant_time_equal(str(expected), sent):
        logger.warning("CSRF check failed for %s %s", request.method, request.url.path)
        raise CsrfError
