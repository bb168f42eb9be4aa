"""Form plumbing shared by the views: read submitted values, turn service errors into
per-field messages in the visitor's language, keep what the user typed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from fastapi import Request
from fastapi.responses import Response

from app.models import User
from app.services.errors import ServiceError, Throttled
from app.web import i18n
from app.web.templating import request_language

logger = logging.getLogger(__name__)

SECRET_FIELDS = frozenset({"password", "password2", "current_password", "csrf_token"})


async def read_form(request: Request) -> dict[str, str]:
    """The submitted fields as plain strings (the last value of repeated fields)."""
    form = await request.form()
    return {k: v for k, v in form.items() if isinstance(v, str)}


async def read_list(request: Request, name: str) -> list[str]:
    form = await request.form()
    return [v for v in form.getlist(name) if isinstance(v, str)]


def kept(values: dict[str, str]) -> dict[str, str]:
    """What to put back into a re-rendered form (never passwords or the CSRF token)."""
    return {k: v for k, v in values.items() if k not in SECRET_FIELDS}


def error_text(lang: str, exc: ServiceError) -> str:
    """The service error's message in the visitor's language (the catalogue's text)."""
    return exc.text(lang)


def errors_for(
    request: Request,
    user: User | None,
    exc: ServiceError,
    *,
    fields: Iterable[str] | None = None,
    aliases: dict[str, str] | None = None,
) -> dict[str, str]:
    """``{field: message}`` for a service error. The error goes next to its field when the
    form has that field (``aliases`` renames service fields), else under "form"."""
    lang = request_language(request, user)
    field = exc.details.get("field") if isinstance(exc.details, dict) else None
    field = (aliases or {}).get(str(field), field)
    if not field or (fields is not None and field not in set(fields)):
        field = "form"
    return {str(field): error_text(lang, exc)}


def message(request: Request, user: User | None, key: str, **params: Any) -> str:
    return i18n.translate(request_language(request, user), key, **params)


def safe_next(target: str | None, default: str = "/messages") -> str:
    """Only same-site relative paths are followed after login or a language switch."""
    if target and target.startswith("/") and not target.startswith(("//", "/\\")):
        return target
    return default


def with_retry_after(response: Response, exc: ServiceError) -> Response:
    """A throttled page carries ``Retry-After`` like the API's 429 does."""
    if isinstance(exc, Throttled):
        response.headers["Retry-After"] = str(exc.retry_after)
    return response
