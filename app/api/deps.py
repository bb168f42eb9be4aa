"""Annotated dependencies: the database session, the current user (bearer token) and the
ownership checks that turn a path id into the caller's own row or a 404."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Path, Request
from fastapi.security import OAuth2PasswordBearer
from sqlmodel import Session, col, select
from starlette.concurrency import run_in_threadpool

from app.core import authcache
from app.core.config import Settings, get_settings
from app.core.db import get_engine
from app.core.security import hash_token
from app.models import ApiToken, Concern, Match, User
from app.services import concerns, matches, tokens
from app.services.errors import Unauthorized

MAX_ID = 2**31 - 1

oauth2_scheme = OAuth2PasswordBearer(tokenUrl="/api/v1/auth/token", auto_error=False)


def get_session() -> Iterator[Session]:
    with Session(get_engine(), expire_on_commit=False) as session:
        yield session


def probe_urls() -> bool:
    """Whether new seed URLs are probed for reachability (tests override this)."""
    return True


SessionDep = Annotated[Session, Depends(get_session)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
ProbeDep = Annotated[bool, Depends(probe_urls)]
Token = Annotated[str | None, Depends(oauth2_scheme)]


def _invalid_token() -> Unauthorized:
    return Unauthorized(
        "Send a valid bearer token (POST /api/v1/auth/token).", code="invalid_token"
    )


def current_user(request: Request, session: SessionDep, token: Token) -> User:
    user = tokens.user_for_token(session, token or "")
    if user is None:
        raise _invalid_token()
    request.state.user_language = user.language  # error messages in the user's language
    # end the read transaction: the connection goes back to the pool instead of being held
    # while the request waits for a worker thread for its handler (100 such requests would
    # hold every pooled connection while the threads that could finish them wait for one)
    session.commit()
    return user


def _check_token(token: str) -> int | None:
    """The token's user id after the full check (``tokens.user_for_token``), remembered
    for ``token_cache_seconds``; one short session, in one worker thread."""
    since = authcache.generation()
    with Session(get_engine(), expire_on_commit=False) as session:
        user = tokens.user_for_token(session, token)
        if user is None or user.id is None:
            return None
        expires_at = session.exec(
            select(col(ApiToken.expires_at)).where(ApiToken.token_hash == hash_token(token))
        ).first()
        session.commit()
    authcache.store(token, user.id, expires_at, ttl=get_settings().token_cache_seconds, since=since)
    return user.id


_checks: dict[str, asyncio.Future[object]] = {}
_FAILED = object()


async def _check_once(token: str) -> int | None:
    """``_check_token``, once per token at a time in this process: the requests that arrive
    while it runs (a busy client whose cache entry just ran out) share its answer."""
    running = _checks.get(token)
    if running is not None:
        shared = await asyncio.shield(running)
        if shared is not _FAILED:
            return shared  # type: ignore[return-value]
        return await run_in_threadpool(_check_token, token)
    future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
    _checks[token] = future
    answer: object = _FAILED
    try:
        answer = await run_in_threadpool(_check_token, token)
        return answer  # type: ignore[return-value]
    finally:
        _checks.pop(token, None)
        future.set_result(answer)  # on an error the others check for themselves


async def current_user_id(token: Token) -> int:
    """The caller's user id: the same check as ``current_user`` without loading the user,
    and without a database round trip while the token is in ``app.core.authcache``."""
    if not token:
        raise _invalid_token()
    user_id = authcache.lookup(token)
    if user_id is None:
        user_id = await _check_once(token)
        if user_id is None:
            raise _invalid_token()
    return user_id


CurrentUser = Annotated[User, Depends(current_user)]
CurrentUserId = Annotated[int, Depends(current_user_id)]
ConcernId = Annotated[int, Path(ge=1, le=MAX_ID, description="Concern id")]
MatchId = Annotated[int, Path(ge=1, le=MAX_ID, description="Match id")]


def owned_concern(session: SessionDep, user: CurrentUser, concern_id: ConcernId) -> Concern:
    return concerns.get_concern(session, user, concern_id)


def owned_match(session: SessionDep, user: CurrentUser, match_id: MatchId) -> Match:
    return matches.get_match(session, user, match_id)


OwnedConcern = Annotated[Concern, Depends(owned_concern)]
OwnedMatch = Annotated[Match, Depends(owned_match)]

TokenId = Annotated[int, Path(ge=1, le=MAX_ID, description="API token id")]


def owned_token(session: SessionDep, user: CurrentUser, token_id: TokenId) -> ApiToken:
    return tokens.get_token(session, user, token_id)


OwnedToken = Annotated[ApiToken, Depends(owned_token)]
