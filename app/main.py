"""The composition root: builds the FastAPI application (API, web pages, health)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from sqlalchemy import text

from app import api, embedded, metrics, web
from app.core.config import Settings, get_settings
from app.core.db import get_engine

logger = logging.getLogger(__name__)


def _check_database() -> tuple[bool, str]:
    try:
        with get_engine().connect() as conn:
            conn.execute(text("SELECT 1"))
        return True, "ok"
    except Exception as exc:  # health must report, never raise
        return False, f"{type(exc).__name__}: {exc}"[:300]


def _check_redis(url: str) -> tuple[bool, str]:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
        client.ping()
        client.close()
        return True, "ok"
    except Exception as exc:
        return False, f"{type(exc).__name__}: {exc}"[:300]


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with embedded.lifespan(app, settings):
            yield

    app = FastAPI(
        lifespan=lifespan,
        title="Timely Push API",
        docs_url=None,  # served by app.web.apidocs from packaged assets (no CDN)
        redoc_url=None,
        version="0.1.0",
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
    metrics.install(app)
    return app
