"""One error body for every API failure: ``{"error": {"code", "message", "details"}}``.

Messages are in the caller's language: the Accept-Language header when it names Chinese or
English, else the signed-in user's profile language, else English. Service errors keep their
code and translate their message; request validation errors become
``validation_error`` with the failing fields in ``details.errors``; HTTP errors raised by the
framework (404 route, 405 method, 401 missing token) get a code derived from the status; an
unexpected exception becomes ``internal_error`` without internals. Requests outside ``/api/``
keep the framework's default responses (the web pages handle their own errors).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import (
    http_exception_handler,
    request_validation_exception_handler,
)
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.core import i18n
from app.core.i18n import N_
from app.services.errors import ServiceError, Throttled, Unauthorized

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"

_HTTP_MESSAGES = {
    401: N_("Send a valid bearer token (POST /api/v1/auth/token)."),
    404: N_("There is no such address in the API."),
    405: N_("This address does not accept this method."),
}

_STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid",
    429: "throttled",
}


class ErrorDetail(BaseModel):
    """The body of every error answer: a stable code, a message for the person, details."""

    code: str = Field(description="Stable machine-readable identifier, e.g. `not_found`.")
    message: str = Field(description="Human-readable explanation.")
    details: dict[str, Any] = Field(
        default_factory=dict, description="Structured context: the field in error, retry_after…"
    )


class ErrorBody(BaseModel):
    """The body of every 4xx/5xx response of the API."""

    error: ErrorDetail

    model_config = {
        "json_schema_extra": {
            "examples": [
                {
                    "error": {
                        "code": "concern_not_found",
                        "message": "No such concern.",
                        "details": {},
                    }
                }
            ]
        }
    }


def _response(
    status: int,
    code: str,
    message: str,
    details: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    body = {"error": {"code": code, "message": message, "details": details or {}}}
    return JSONResponse(body, status_code=status, headers=headers)


def is_api(request: Request) -> bool:
    return request.url.path.startswith(API_PREFIX)


def api_language(request: Request) -> str:
    """The caller's language: Accept-Language, else the user's profile, else English."""
    profile = getattr(request.state, "user_language", None)
    fallback = profile if profile in i18n.LANGUAGES else "en"
    return i18n.negotiate(request.headers.get("accept-language"), default=fallback)


def _token_language(token: str) -> str | None:
    from sqlmodel import Session

    from app.core.db import get_engine
    from app.services import tokens

    with Session(get_engine()) as session:
        user = tokens.user_for_token(session, token)
        return user.language if user is not None else None


async def caller_language(request: Request) -> str:
    """``api_language``, with the profile's language found from the bearer token when the
    request failed before its user was read (a body that is not JSON, a wrong query)."""
    if getattr(request.state, "user_language", None) is None:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            language = await run_in_threadpool(_token_language, token.strip())
            if language is not None:
                request.state.user_language = language
    return api_language(request)


async def on_service_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ServiceError)
    headers: dict[str, str] = {}
    if isinstance(exc, Throttled):
        headers["Retry-After"] = str(exc.retry_after)
    if isinstance(exc, Unauthorized):
        headers["WWW-Authenticate"] = "Bearer"
    # a refused token names no user: its language is not looked up again
    lang = (
        api_language(request) if isinstance(exc, Unauthorized) else await caller_language(request)
    )
    message = exc.text(lang)
    return _response(exc.status, exc.code, message, exc.details, headers)


async def on_validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    if not is_api(request):
        return await request_validation_exception_handler(request, exc)
    errors = [
        {
            "loc": [str(part) for part in err.get("loc", ())],
            "msg": str(err.get("msg", "")),
            "type": str(err.get("type", "")),
        }
        for err in exc.errors()
    ]
    first = errors[0] if errors else {"loc": [], "msg": "", "type": ""}
    where = ".".join(p for p in first["loc"] if p not in ("body", "query", "path"))
    lang = await caller_language(request)
    if first["type"] == "json_invalid":  # its place is a character offset, not a field
        message = i18n.translate(lang, N_("The request body is not valid JSON."))
    elif first["type"] == "missing" and where:
        message = i18n.translate(lang, N_("“%(field)s” is required."), field=where)
    elif lang == "en" and first["msg"]:  # pydantic's own explanation is English
        message = f"{where}: {first['msg']}" if where else str(first["msg"])
    elif where:
        message = i18n.translate(lang, N_("The value of “%(field)s” is not valid."), field=where)
    else:
        message = i18n.translate(lang, N_("The request is not valid."))
    return _response(422, "validation_error", message, {"errors": errors})


async def on_http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if not is_api(request):
        return await http_exception_handler(request, exc)
    code = _STATUS_CODES.get(exc.status_code, "error" if exc.status_code < 500 else "server_error")
    lang = await caller_language(request)
    detail = _HTTP_MESSAGES.get(exc.status_code)
    if detail is not None:
        message = i18n.translate(lang, detail)
    elif lang == "en" and isinstance(exc.detail, str):
        message = exc.detail
    else:
        message = i18n.translate(
            lang, N_("The request failed (status %(status)s)."), status=exc.status_code
        )
    return _response(exc.status_code, code, message, None, dict(exc.headers or {}))


async def on_unexpected(request: Request, exc: Exception) -> Response:
    logger.exception("unhandled error on %s %s", request.method, request.url.path)
    if not is_api(request):
        return PlainTextResponse("Internal Server Error", status_code=500)
    message = i18n.translate(
        api_language(request), N_("Something went wrong on our side. Please retry.")
    )
    return _response(500, "internal_error", message)


def install_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ServiceError, on_service_error)
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(Exception, on_unexpected)


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries documenting the error body for these statuses."""
    descriptions = {
        401: "Missing, invalid or revoked bearer token",
        403: "The current password given to confirm the change is wrong",
        404: "Not found, or owned by another user",
        409: "Conflict with existing data",
        422: "Invalid input",
        429: "Too many attempts; see Retry-After",
    }
    return {s: {"model": ErrorBody, "description": descriptions.get(s, "Error")} for s in statuses}
