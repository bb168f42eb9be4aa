"""``/api/v1/matches``: the caller's messages — cursor paging, filters, search, read state."""

from __future__ import annotations

import asyncio
import weakref
from datetime import datetime
from typing import Annotated, Any

import anyio
import orjson
from fastapi import APIRouter, Path, Query, Response, status
from sqlmodel import Session

from app.api.deps import MAX_ID, CurrentUser, CurrentUserId, OwnedMatch, SessionDep
from app.api.errors import responses
from app.api.schemas import (
    TOTAL_COUNT,
    TOTAL_HEADER,
    BulkRequest,
    BulkResult,
    FeedbackRequest,
    MatchPage,
    MatchUpdate,
    WithTotal,
)
from app.core.db import get_engine, one_statement
from app.models import DeliveryPublic, MatchPublic
from app.services import delivery_actions, feedback, matches

router = APIRouter(prefix="/matches", tags=["matches"], responses=responses(401, 422))


PAGE_THREADS = 1
"""Threads per API worker that read plain feed pages (keyset on one index, ~1 ms each). One:
threads of one process share the GIL, and 40 of them (the default pool) spent more CPU taking
turns than reading — 340–400 against ~1,000 requests/s with two workers (docs/benchmarks.md)."""
SCAN_THREADS = 2
"""Threads per API worker for the pages that may scan (text search ``q``, ``site``, a total
count): apart, so that a slow search does not hold up everyone's plain pages."""
_limiters: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[bool, anyio.CapacityLimiter]
] = weakref.WeakKeyDictionary()


def feed_limiter(*, scans: bool) -> anyio.CapacityLimiter:
    """The thread limiter a feed request runs its query under: one per kind and event loop
    (a worker has one loop; tests start several)."""
    mine = _limiters.setdefault(asyncio.get_running_loop(), {})
    limiter = mine.get(scans)
    if limiter is None:
        limiter = mine[scans] = anyio.CapacityLimiter(SCAN_THREADS if scans else PAGE_THREADS)
    return limiter


def _id(match: OwnedMatch) -> int:
    assert match.id is not None
    return match.id


def _page_json(items: list[dict[str, Any]], next_cursor: str | None) -> bytes:
    """The page as ``MatchPage`` serialises it, byte for byte (tests/app/api/test_feed.py
    checks), with orjson: the rows are typed already, and validating or constructing 50
    models costs more than the query. What orjson refuses (an integer beyond 64 bits in an
    explanation) goes through the model."""
    try:
        return orjson.dumps({"items": items, "next_cursor": next_cursor}, option=orjson.OPT_UTC_Z)
    except orjson.JSONEncodeError:
        views = [MatchPublic.model_construct(**item) for item in items]
        return MatchPage(items=views, next_cursor=next_cursor).model_dump_json().encode()


@router.get(
    "",
    response_model=MatchPage,
    responses=TOTAL_COUNT,
    summary="The caller's messages, newest first, one page at a time",
)
async def list_matches(
    user_id: CurrentUserId,
    concern_id: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    keyword: Annotated[str | None, Query(max_length=50, description="A matched keyword")] = None,
    site: Annotated[
        str | None, Query(max_length=255, description="Host, e.g. news.example.com")
    ] = None,
    since: Annotated[datetime | None, Query(description="Created at or after (ISO 8601)")] = None,
    until: Annotated[datetime | None, Query(description="Created before (ISO 8601)")] = None,
    q: Annotated[str | None, Query(max_length=200, description="Search title and excerpt")] = None,
    unread: Annotated[bool | None, Query(description="true: unread only; false: read only")] = None,
    cursor: Annotated[str | None, Query(max_length=200, description="next_cursor")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    with_total: WithTotal = False,
) -> Response:
    # the API's hot path: the token comes from the cache (no thread, no query) and the page
    # is read and serialised in one worker thread with its own short session, so the pooled
    # connection is taken and given back inside that thread
    def page() -> tuple[bytes, int | None]:
        filters = matches.FeedFilters(
            concern_id=concern_id,
            keyword=keyword,
            site=site,
            since=since,
            until=until,
            q=q,
            unread=unread,
        )
        engine = get_engine() if with_total else one_statement(get_engine())
        with Session(engine, expire_on_commit=False) as session:
            items, next_cursor = matches.list_match_rows(
                session,
                user_id,
                cursor=cursor,
                limit=limit,
                **filters,
            )
            total = None
            if with_total:  # every match of the filters, not only those after the cursor
                total = matches.count_matches(session, user_id, **filters)
        return _page_json(items, next_cursor), total

    scans = bool(q or site or with_total)
    body, total = await anyio.to_thread.run_sync(page, limiter=feed_limiter(scans=scans))
    response = Response(body, media_type="application/json")
    if total is not None:
        response.headers[TOTAL_HEADER] = str(total)
    return response


@router.post("/bulk", summary="Mark read / unread or delete many messages")
def bulk(body: BulkRequest, user: CurrentUser, session: SessionDep) -> BulkResult:
    changed = matches.bulk(session, user, body.ids, body.action)
    session.commit()
    return BulkResult(changed=changed)


@router.get("/{match_id}", responses=responses(404), summary="One message, with why it matched")
def get_match(match: OwnedMatch, user: CurrentUser) -> MatchPublic:
    return matches.to_public(match, user.language)


@router.patch("/{match_id}", responses=responses(404), summary="Mark read or unread")
def update_match(
    match: OwnedMatch, body: MatchUpdate, user: CurrentUser, session: SessionDep
) -> MatchPublic:
    updated = matches.mark(session, match, body.read)
    session.commit()
    return matches.to_public(updated, user.language)


@router.post(
    "/{match_id}/feedback",
    responses=responses(404),
    summary="Say whether a message was relevant (👍 / 👎); the concern's model learns from it",
)
def set_feedback(
    match: OwnedMatch, body: FeedbackRequest, user: CurrentUser, session: SessionDep
) -> MatchPublic:
    updated = feedback.judge(session, match, body.relevant)
    session.commit()
    return matches.to_public(updated, user.language)


@router.delete(
    "/{match_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=responses(404),
    summary="Delete a message (it will not come back)",
)
def delete_match(match: OwnedMatch, session: SessionDep) -> None:
    matches.remove(session, match)
    session.commit()


DeliveryId = Annotated[int, Path(ge=1, le=MAX_ID, description="Delivery id")]


@router.get(
    "/{match_id}/deliveries",
    responses=responses(404),
    summary="The message's delivery history: each push by channel, its status and attempts",
)
def list_deliveries(
    match: OwnedMatch, user: CurrentUser, session: SessionDep
) -> list[DeliveryPublic]:
    rows = delivery_actions.match_deliveries(session, user, _id(match))
    return [DeliveryPublic.model_validate(row, from_attributes=True) for row in rows]


@router.post(
    "/{match_id}/deliveries/{delivery_id}/resend",
    status_code=status.HTTP_202_ACCEPTED,
    responses=responses(404, 429),
    summary=(
        "Send one push of this message again (a new message through the same channel; "
        "one the outbox still retries is tried now, not doubled)"
    ),
)
def resend_delivery(
    match: OwnedMatch, delivery_id: DeliveryId, user: CurrentUser, session: SessionDep
) -> DeliveryPublic:
    copy = delivery_actions.resend_for_match(session, user, _id(match), delivery_id)
    return DeliveryPublic.model_validate(copy, from_attributes=True)
