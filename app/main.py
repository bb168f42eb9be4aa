"""The composition root: builds the FastAPI application (API, web pages, health)."""

from __future__ import annotations

import hmac
import ipaddress
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy import text
from starlette.exceptions import HTTPException as StarletteHTTPException

from app import api, embedded, metrics, web
from app.api.errors import on_http_error as api_http_error
from app.api.errors import on_service_error
from app.core.config import Settings, get_settings
from app.core.db import get_engine
from app.core.logging import protect_secrets
from app.services.errors import Throttled

logger = logging.getLogger(__name__)


def _check_database() -> tuple[bool, str]:
    try:
        with get_engine().connect() as conn:
            conn.execute(text("SELECT 1"))
        return True, "ok"
    except Exception:  # health must report, never raise, and never echo internals
        logger.exception("health check: the database is unavailable")
        return False, "unavailable"


def _check_redis(url: str) -> tuple[bool, str]:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
        client.ping()
        client.close()
        return True, "ok"
    except Exception:
        logger.exception("health check: Redis is unavailable")
        return False, "unavailable"


def _warn_development_channels(settings: Settings) -> None:
    """Say loudly at start when messages go nowhere (development setups)."""
    if not settings.smtp_host:
        logger.warning(
            "DEVELOPMENT SETUP: TIMELYPUSH_SMTP_HOST is not set, so no email is sent "
            "(verification, password reset, notifications); email password reset is off"
        )
    if settings.sms_provider == "console":
        logger.warning(
            "DEVELOPMENT SETUP: TIMELYPUSH_SMS_PROVIDER=console sends no SMS, it only logs "
            "that one was due; SMS password reset is off"
        )


OPENAPI_TAGS = [
    {"name": "ops", "description": "Health and metrics."},
    {"name": "auth", "description": "Sign up, sign in, bearer tokens per device."},
    {"name": "me", "description": "The caller's profile, settings and push channels."},
    {"name": "concerns", "description": "Sites and keywords to watch, their crawls and models."},
    {"name": "matches", "description": "The caller's messages: feed, read state, feedback."},
]
"""The API document's sections, in reading order (the routers are matched in another order:
the message feed, the hot path, first)."""


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        protect_secrets()  # in each server process, after the server set up its own loggers
        _warn_development_channels(settings)
        async with embedded.lifespan(app, settings):
            yield

    app = FastAPI(
        lifespan=lifespan,
        title="Timely Push API",
        docs_url=None,  # served by app.web.apidocs from packaged assets (no CDN)
        redoc_url=None,
        version="0.1.0",
        openapi_tags=OPENAPI_TAGS,
        description=(
            "及时推 — focused crawling and push notifications for the sites you care about."
        ),
    )

    @app.get("/healthz", tags=["ops"])
    def healthz() -> JSONResponse:
        checks: dict[str, Any] = {}
        ok, detail = _check_database()
        checks["database"] = {"ok": ok, "detail": detail}
        if settings.redis_url:
            rok, rdetail = _check_redis(settings.redis_url)
            checks["redis"] = {"ok": rok, "detail": rdetail}
        healthy = all(c["ok"] for c in checks.values())
        return JSONResponse(
            {
                "status": "ok" if healthy else "degraded",
                "mode": "embedded" if settings.embedded else "celery",
                "checks": checks,
            },
            status_code=200 if healthy else 503,
        )

    api.install(app)
    web.install(app)

    async def on_throttled(request: Request, exc: Exception) -> Response:
        """A rate limit: the API's JSON error or the web's page, 429 with Retry-After."""
        if request.url.path.startswith("/api/"):
            return await on_service_error(request, exc)
        return await web.throttled_page(request, exc)

    app.add_exception_handler(Throttled, on_throttled)

    async def on_http_error(request: Request, exc: Exception) -> Response:
        """An address no route knows, or one asked with a method it does not take: the site's
        "not found" or "cannot be opened this way" page for a browser (405 keeps its Allow
        header), the API's JSON error (or the framework's default) for anyone else."""
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code in (404, 405) and web.wants_page(request):
            return await web.error_page(request, exc.status_code, exc.headers)
        return await api_http_error(request, exc)

    app.add_exception_handler(StarletteHTTPException, on_http_error)
    _install_metrics(app)
    return app


def _install_metrics(app: FastAPI) -> None:
    """Add ``GET /metrics``: Prometheus' text format of :mod:`app.metrics`."""
    metrics.register_collector()

    @app.get("/metrics", include_in_schema=False, tags=["ops"])
    def metrics_page(request: Request) -> Response:
        """For the operator's Prometheus only: with ``TIMELYPUSH_METRICS_TOKEN`` set, a request
        bearing it; else one from this machine. Anyone else gets a 404 (the counts of
        crawls, deliveries and errors are the operator's)."""
        if not _may_read_metrics(request, get_settings().metrics_token):
            return Response(status_code=404)
        body, media_type = metrics.exposition()
        return Response(body, media_type=media_type)


def _may_read_metrics(request: Request, token: str | None) -> bool:
    if token:
        given = request.headers.get("authorization", "")
        return hmac.compare_digest(given.encode(), f"Bearer {token}".encode())
    client = request.client.host if request.client else ""
    try:
        return ipaddress.ip_address(client).is_loopback
    except ValueError:
        return False
