"""Form plumbing shared by the views: read submitted values, turn service errors and the
API models' validation errors into per-field messages in the visitor's language, keep what the
user typed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from annotated_types import Ge, Le
from fastapi import Request
from fastapi.responses import Response
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from app.core.i18n import N_
from app.models import User
from app.services.errors import ServiceError, Throttled
from app.web import i18n
from app.web.templating import request_language

logger = logging.getLogger(__name__)

SECRET_FIELDS = frozenset(
    {"password", "password2", "current_password", "email_password", "csrf_token"}
)


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


_NUMBER_ERRORS = frozenset(
    {
        "greater_than_equal",
        "less_than_equal",
        "greater_than",
        "less_than",
        "int_parsing",
        "int_type",
        "int_from_float",
        "float_parsing",
        "float_type",
        "finite_number",
        "number_range",
    }
)
_CHOICE_ERRORS = frozenset({"literal_error", "enum"})


def validation_errors(
    request: Request,
    user: User | None,
    exc: ValidationError,
    model: type[BaseModel],
    *,
    fields: Iterable[str] | None = None,
    aliases: Mapping[str, str] | None = None,
    choices: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """``{field: message}`` for the errors of ``model`` (an API model the form's data was
    validated with), in the visitor's language; the first error of a field wins.

    An error goes next to the field its location names: ``priority``, or ``params.T`` for an
    error of one entry (a location the error's ``ctx`` completes with its ``key``); ``aliases``
    renames locations to form fields, and one the form lacks (``fields``) goes under "form".
    A number out of range or not a number says the range (the model's ``ge`` / ``le``, or the
    error's ``low`` / ``high``); a value not among the choices gets the field's message from
    ``choices`` (catalogue keys); a text too long says how long it may be."""
    lang = request_language(request, user)
    known = set(fields) if fields is not None else None
    errors: dict[str, str] = {}
    for error in exc.errors():
        loc = [str(part) for part in error["loc"]]
        ctx = error.get("ctx") or {}
        if "key" in ctx:
            loc.append(str(ctx["key"]))
        where = ".".join(loc)
        field = (aliases or {}).get(where, where)
        if not field or (known is not None and field not in known):
            field = "form"
        if field not in errors:
            errors[field] = _error_message(lang, error, model, field, choices or {})
    return errors


def _error_message(
    lang: str, error: ErrorDetails, model: type[BaseModel], field: str, choices: Mapping[str, str]
) -> str:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind in _CHOICE_ERRORS and field in choices:
        return i18n.translate(lang, choices[field])
    if kind in _NUMBER_ERRORS:
        low, high, whole = ctx.get("low"), ctx.get("high"), False
        info = model.model_fields.get(str(error["loc"][0])) if error["loc"] else None
        if info is not None and (low is None or high is None):
            low = next((m.ge for m in info.metadata if isinstance(m, Ge)), None)
            high = next((m.le for m in info.metadata if isinstance(m, Le)), None)
            whole = info.annotation in (int, int | None)
        if low is not None and high is not None:
            text = (
                N_("Enter a whole number from %(low)s to %(high)s.")
                if whole
                else N_("Enter a number from %(low)s to %(high)s.")
            )
            return i18n.translate(lang, text, low=_number_text(low), high=_number_text(high))
    if kind == "string_too_long" and "max_length" in ctx:
        return i18n.translate(lang, N_("Enter at most %(n)s characters."), n=ctx["max_length"])
    return i18n.translate(lang, N_("This value is not valid."))


def _number_text(number: Any) -> str:
    return str(number) if isinstance(number, int) else f"{number:g}"


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
