"""The API's interactive documentation, served entirely from this application: Swagger UI at
``/docs`` and ReDoc at ``/redoc``.

FastAPI's default pages load their scripts from a CDN and start them with an inline script;
the dashboard's Content-Security-Policy (``script-src 'self'``) blocks both, so the page stayed
blank. Here the assets come from the packaged ``fastapi-offline`` distribution (Swagger UI and
ReDoc builds), mounted under ``/static/apidocs``, and a small same-origin script starts them.
No request leaves for another host.
"""

from __future__ import annotations

import logging
from html import escape
from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

logger = logging.getLogger(__name__)

ASSETS = Path(str(files("fastapi_offline") / "static"))
PREFIX = "/static/apidocs"

# ReDoc searches in a Web Worker it builds from a blob: URL.
_CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "script-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'; form-action 'self'"
)

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" href="/favicon.ico">
{css}
</head>
<body style="margin:0">
<div id="{dom_id}" data-openapi="{openapi}"></div>
<script src="{bundle}"></script>
<script src="/static/js/apidocs.js"></script>
</body>
</html>
"""

router = APIRouter(include_in_schema=False)


def _page(request: Request, *, title: str, dom_id: str, bundle: str, css: str = "") -> HTMLResponse:
    openapi = request.app.openapi_url or "/openapi.json"
    html = _PAGE.format(
        title=escape(title),
        css=css,
        dom_id=dom_id,
        openapi=escape(openapi),
        bundle=f"{PREFIX}/{bundle}",
    )
    return HTMLResponse(html, headers={"Content-Security-Policy": _CSP})


@router.get("/docs")
def swagger_ui(request: Request) -> HTMLResponse:
    return _page(
        request,
        title=f"{request.app.title} — Swagger UI",
        dom_id="swagger-ui",
        bundle="swagger-ui-bundle.js",
        css=f'<link rel="stylesheet" href="{PREFIX}/swagger-ui.css">',
    )


@router.get("/redoc")
def redoc(request: Request) -> HTMLResponse:
    return _page(
        request,
        title=f"{request.app.title} — ReDoc",
        dom_id="redoc",
        bundle="redoc.standalone.js",
    )


def install(app: FastAPI) -> None:
    """Mount the assets and the two pages (the app is built with ``docs_url=None``)."""
    app.mount(PREFIX, StaticFiles(directory=ASSETS), name="apidocs")
    app.include_router(router)
