"""The secret Atom feed URLs: ``/feed/{token}.atom`` and ``/feed/{token}/concerns/{id}.atom``.

No session: the token in the path is the credential (any feed reader can follow it). A wrong
or rotated token, or another user's concern, is a plain 404 that tells nothing.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from app.core.config import get_settings
from app.models import Concern
from app.services import feed
from app.web.sessions import Db

router = APIRouter(prefix="/feed", include_in_schema=False)

MEDIA_TYPE = "application/atom+xml; charset=utf-8"
MAX_ID = 2**31 - 1
HEADERS = {"Cache-Control": "private, max-age=60", "X-Robots-Tag": "noindex"}


def _not_found() -> Response:
    return Response("Not found\n", status_code=404, media_type="text/plain; charset=utf-8")


@router.get("/{token}.atom")
def user_feed(token: str, db: Db) -> Response:
    user = feed.user_for_token(db, token)
    if user is None:
        return _not_found()
    body = feed.build_feed(db, get_settings(), user)
    return Response(body, media_type=MEDIA_TYPE, headers=HEADERS)


@router.get("/{token}/concerns/{concern_id}.atom")
def concern_feed(token: str, concern_id: int, db: Db) -> Response:
    user = feed.user_for_token(db, token)
    in_range = 1 <= concern_id <= MAX_ID
    concern = db.get(Concern, concern_id) if user is not None and in_range else None
    if user is None or concern is None or concern.owner_id != user.id:
        return _not_found()
    body = feed.build_feed(db, get_settings(), user, concern)
    return Response(body, media_type=MEDIA_TYPE, headers=HEADERS)
