"""Browser sessions: who is logged in, the per-request database session, flash messages.

The session lives in a signed cookie (Starlette's SessionMiddleware: HttpOnly, SameSite=Lax,
Secure when ``settings.cookies_secure()``). Logging in clears the old session, issues a new
CSRF token (session rotation) and a random session id whose hash is a ``web_sessions`` row:
the browser is logged in only while that row exists. Logging out deletes it (a copy of the
cookie replayed later is refused), and a password change or reset deletes every row of the
user (``app.services.auth.revoke_everything``). The cookie also carries the user's ``auth``
stamp — a hash prefix of the password hash — as a second check.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Iterator
from datetime import timedelta
from typing import Annotated, Any

from fastapi import Depends, Request
from sqlalchemy import delete
from sqlmodel import Session, col, select

from app.core.db import get_engine
from app.models import User, WebSession, utcnow
from app.services.matches import unread_count
from app.web import csrf

logger = logging.getLogger(__name__)

USER_KEY = "uid"
AUTH_KEY = "auth"
FLASH_KEY = "flash"
LANG_KEY = "lang"
SESSION_KEY = "sid"
TOUCH_INTERVAL = timedelta(minutes=10)


class LoginRequired(Exception):
    """The page needs a logged-in user; the handler redirects to the login page."""

    def __init__(self, next_url: str) -> None:
        super().__init__(next_url)
        self.next_url = next_url


class PageNotFound(Exception):
    """Nothing here for this user (missing, or someone else's): rendered as a 404 page."""


def get_db() -> Iterator[Session]:
    """One database session per request, committed when the view returns normally."""
    with Session(get_engine(), expire_on_commit=False) as db:
        try:
            yield db
            db.commit()
        except BaseException:
            db.rollback()
            raise


# "function" scope: committed when the view returns, before the response goes out — a
# post/redirect/get's next GET must see what the POST wrote
Db = Annotated[Session, Depends(get_db, scope="function")]


def _stamp(user: User) -> str:
    return hashlib.sha256(user.password_hash.encode()).hexdigest()[:16]


def _key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def login(request: Request, user: User, db: Session) -> None:
    """Start a fresh session for ``user`` (the old session's data and row are dropped)."""
    _end_server_session(request, db)
    lang = request.session.get(LANG_KEY)
    request.session.clear()
    key = secrets.token_urlsafe(32)
    assert user.id is not None
    db.add(WebSession(user_id=user.id, key_hash=_key_hash(key)))
    db.commit()
    request.session[USER_KEY] = user.id
    request.session[AUTH_KEY] = _stamp(user)
    request.session[SESSION_KEY] = key
    if lang:
        request.session[LANG_KEY] = lang
    csrf.rotate(request)


def logout(request: Request, db: Session) -> None:
    """End the session here and on the server."""
    _end_server_session(request, db)
    request.session.clear()
    csrf.rotate(request)


def _end_server_session(request: Request, db: Session) -> None:
    key = request.session.get(SESSION_KEY)
    if isinstance(key, str):
        db.exec(delete(WebSession).where(col(WebSession.key_hash) == _key_hash(key)))
        db.commit()


def _server_session(request: Request, db: Session, user: User) -> bool:
    """Whether this browser's session row exists (and touch it now and then)."""
    key = request.session.get(SESSION_KEY)
    if not isinstance(key, str):
        return False
    row = db.exec(
        select(WebSession).where(
            WebSession.key_hash == _key_hash(key), WebSession.user_id == user.id
        )
    ).first()
    if row is None:
        return False
    now = utcnow()
    if now - row.last_seen_at >= TOUCH_INTERVAL:
        row.last_seen_at = now
        db.add(row)
    return True


def session_user(request: Request, db: Session) -> User | None:
    """The logged-in, active user of this request, or None."""
    cached = getattr(request.state, "web_user", None)
    if cached is not None:
        return cached if isinstance(cached, User) else None
    uid = request.session.get(USER_KEY)
    user = db.get(User, uid) if isinstance(uid, int) else None
    if user is not None and (
        not user.is_active
        or request.session.get(AUTH_KEY) != _stamp(user)
        or not _server_session(request, db, user)
    ):
        user = None
    if user is None and uid is not None:
        request.session.pop(USER_KEY, None)
        request.session.pop(AUTH_KEY, None)
        request.session.pop(SESSION_KEY, None)
    request.state.web_user = user if user is not None else False
    if user is not None:
        # a detached copy for error pages rendered after the request's session is closed
        request.state.web_user_copy = User.model_validate(user.model_dump())
    return user


def optional_user(request: Request, db: Db) -> User | None:
    return session_user(request, db)


def page_user(request: Request, db: Session) -> User | None:
    """``session_user``, and for a page (a GET) the navigation badge's unread count."""
    user = session_user(request, db)
    if user is not None and request.method == "GET":
        request.state.unread_count = unread_count(db, user)
    return user


def required_user(request: Request, db: Db) -> User:
    user = page_user(request, db)
    if user is None:
        target = request.url.path
        if request.url.query:
            target += "?" + request.url.query
        raise LoginRequired(target if request.method == "GET" else "/")
    return user


MaybeUser = Annotated[User | None, Depends(optional_user)]
CurrentUser = Annotated[User, Depends(required_user)]


def flash(request: Request, message: str, category: str = "info", **params: Any) -> None:
    """Queue a message (a catalogue key + params) for the next rendered page."""
    queue = list(request.session.get(FLASH_KEY, []))
    queue.append({"key": message, "category": category, "params": params})
    request.session[FLASH_KEY] = queue[-5:]


def pop_flashes(request: Request) -> list[dict[str, Any]]:
    queue = request.session.pop(FLASH_KEY, [])
    return list(queue) if isinstance(queue, list) else []
