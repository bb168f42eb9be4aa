"""REST API `/api/v1` for mobile apps and scripts.

Authentication: ``POST /api/v1/auth/token`` (OAuth2 password form) returns a bearer token per
device; send it as ``Authorization: Bearer …``. Errors always have the body
``{"error": {"code", "message", "details"}}``. Ownership is checked by dependencies
(``app.api.deps``): another user's concern, message, run or token is a 404.
"""

from __future__ import annotations

from fastapi import APIRouter, FastAPI

from app.api.errors import install_handlers
from app.api.routes import auth, channels, concerns, matches, me
from app.api.text import SoundText

router = APIRouter(prefix="/api/v1")
# the messages router first: every request walks the routes in this order until one matches,
# and the feed is the API's hot path (the document's order is app.main.OPENAPI_TAGS)
for _module in (matches, auth, me, channels, concerns):
    router.include_router(_module.router)


def install(app: FastAPI) -> None:
    """Mount the API routers and the API error handlers on the application."""
    install_handlers(app)
    app.add_middleware(SoundText)
    app.include_router(router)
