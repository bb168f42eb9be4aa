"""Server-rendered HTML dashboard (Jinja2): accounts, concerns, messages, crawl reports,
settings — in Chinese and English.

``install(app)`` adds the signed session cookie, the static files, the page routers and the
error pages. Every view goes through ``app.services``; nothing here holds business rules.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import MutableHeaders
from starlette.middleware.sessions import SessionMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.config import get_settings
from app.core.i18n import N_

logger = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).resolve().parent / "static"
SESSION_COOKIE = "tp_session"
SESSION_MAX_AGE = 14 * 24 * 3600

_SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "script-src 'self'; frame-ancestors 'none'; form-action 'self'"
    ),
}


class SecurityHeaders:
    """Add ``_SECURITY_HEADERS`` to HTML responses (those that lack them).

    Plain ASGI, not ``@app.middleware("http")``: Starlette's BaseHTTPMiddleware runs every
    request, API calls included, through an extra task and memory stream."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if headers.get("content-type", "").startswith("text/html"):
                    for name, value in _SECURITY_HEADERS.items():
                        if name not in headers:
                            headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


def install(app: FastAPI) -> None:
    """Mount the web pages (and their middleware) on the application."""
    from app.models import User
    from app.web import apidocs, auth, concerns, feed, messages, reports, settings, unsubscribe
    from app.web.csrf import CsrfError
    from app.web.forms import message
    from app.web.sessions import LoginRequired, PageNotFound
    from app.web.templating import redirect, render

    config = get_settings()
    app.add_middleware(
        SessionMiddleware,
        secret_key=config.effective_secret_key(),
        session_cookie=SESSION_COOKIE,
        max_age=SESSION_MAX_AGE,
        same_site="lax",
        https_only=config.cookies_secure(),
    )

    app.add_middleware(SecurityHeaders)

    apidocs.install(app)  # before /static: its assets live under /static/apidocs
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    for module in (auth, concerns, reports, messages, settings, feed, unsubscribe):
        app.include_router(module.router)
    from app.web import feedback

    app.include_router(feedback.router)

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(
            STATIC_DIR / "favicon.ico",
            media_type="image/x-icon",
            headers={"Cache-Control": "public, max-age=86400"},
        )

    def _user(request: Request) -> User | None:
        cached = getattr(request.state, "web_user_copy", None)
        return cached if isinstance(cached, User) else None

    async def on_login_required(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, LoginRequired)
        return redirect("/login?next=" + quote(exc.next_url, safe="/"))

    async def on_not_found(request: Request, exc: Exception) -> Response:
        return _error(request, _user(request), 404)

    async def on_csrf(request: Request, exc: Exception) -> Response:
        user = _user(request)
        return render(
            request,
            "error.html",
            {
                "heading": message(request, user, "Form expired"),
                "detail": message(
                    request,
                    user,
                    "The form was stale or not sent from this site. "
                    "Go back, reload the page and try again.",
                ),
            },
            user=user,
            status_code=403,
        )

    app.add_exception_handler(LoginRequired, on_login_required)
    app.add_exception_handler(PageNotFound, on_not_found)
    app.add_exception_handler(CsrfError, on_csrf)


def wants_page(request: Request) -> bool:
    """Whether a request that matched no route came from a browser asking for a page: not
    under ``/api/`` and accepting HTML (an API client or a script keeps the JSON answer)."""
    if request.url.path.startswith("/api/") or request.method not in ("GET", "HEAD"):
        return False
    return "text/html" in request.headers.get("accept", "")


def _visitor(request: Request) -> Any:
    """The signed-in user of a request no page route handled (their language, the header's
    menu and unread count), or None."""
    from sqlmodel import Session

    from app.core.db import get_engine
    from app.web.sessions import page_user

    with Session(get_engine(), expire_on_commit=False) as db:
        page_user(request, db)
        db.commit()
    return getattr(request.state, "web_user_copy", None)


# What the site's own error page says, by status, for an address a browser cannot open
_ERROR_TEXTS = {
    404: (N_("Not found"), N_("There is nothing here, or it is not yours.")),
    405: (
        N_("This page cannot be opened this way"),
        N_(
            "This address belongs to a button or a form of the site and does not open as a "
            "page. Go back to the page you came from, or start again from the start page."
        ),
    ),
}


async def error_page(
    request: Request, status_code: int = 404, headers: Mapping[str, str] | None = None
) -> Response:
    """The site's own error page, in the visitor's language, for an address a browser cannot
    open: "not found" (404) for one no route knows (a mistyped or outdated link), "cannot be
    opened this way" (405) for one only a form sends (/logout typed into the address bar),
    with ``headers`` (the 405's ``Allow``)."""
    from starlette.concurrency import run_in_threadpool

    user = await run_in_threadpool(_visitor, request)
    response = _error(request, user, status_code)
    response.headers.update(headers or {})
    return response


def _error(request: Request, user: Any, status_code: int) -> Response:
    """The error page of ``status_code`` ("not found" unless ``_ERROR_TEXTS`` has its own):
    also the page of a missing or someone else's thing."""
    from app.web.forms import message
    from app.web.templating import render

    heading, detail = _ERROR_TEXTS.get(status_code, _ERROR_TEXTS[404])
    return render(
        request,
        "error.html",
        {"heading": message(request, user, heading), "detail": message(request, user, detail)},
        user=user,
        status_code=status_code,
    )


async def throttled_page(request: Request, exc: Exception) -> Response:
    """The 429 page for a rate limit hit on a web page: how long to wait, in the user's
    language, with ``Retry-After``."""
    from app.models import User
    from app.services.errors import Throttled
    from app.web.forms import error_text, message
    from app.web.templating import render, request_language

    assert isinstance(exc, Throttled)
    cached = getattr(request.state, "web_user_copy", None)
    user = cached if isinstance(cached, User) else None
    page = render(
        request,
        "error.html",
        {
            "heading": message(request, user, "Please wait"),
            "detail": error_text(request_language(request, user), exc),
        },
        user=user,
        status_code=429,
    )
    page.headers["Retry-After"] = str(exc.retry_after)
    return page
