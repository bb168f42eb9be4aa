"""``/api/v1/matches``: the caller's messages — cursor paging, filters, search, read state."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Path, Query, Response, status

from app.api.deps import MAX_ID, CurrentUser, OwnedMatch, SessionDep
from app.api.errors import responses
from app.api.schemas import (
    TOTAL_COUNT,
    TOTAL_HEADER,
    BulkRequest,
    BulkResult,
    MatchPage,
    MatchUpdate,
    WithTotal,
)
from app.models import DeliveryPublic, MatchPublic
from app.services import delivery, matches

router = APIRouter(prefix="/matches", tags=["matches"], responses=responses(401, 422))


def _id(match: OwnedMatch) -> int:
    assert match.id is not None
    return match.id


@router.get(
    "",
    response_model=MatchPage,
    responses=TOTAL_COUNT,
    summary="The caller's messages, newest first, one page at a time",
)
def list_matches(
    user: CurrentUser,
    session: SessionDep,
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
    items, next_cursor = matches.list_match_views(
        session,
        user,
        concern_id=concern_id,
        keyword=keyword,
        site=site,
        since=since,
        until=until,
        q=q,
        unread=unread,
        cursor=cursor,
        limit=limit,
    )
    # serialised here, once: the page is built from typed rows already, and letting FastAPI
    # validate 50 items against the response model again costs more than the query
    page = MatchPage(items=items, next_cursor=next_cursor)
    response = Response(page.model_dump_json(), media_type="application/json")
    if with_total:  # every match of the filters, not only those after the cursor
        total = matches.count_matches(
            session, user, concern_id=concern_id, keyword=keyword, site=site, since=since,
            until=until, q=q, unread=unread,
        )  # fmt: skip
        response.headers[TOTAL_HEADER] = str(total)
    return response


@router.post("/bulk", summary="Mark read / unread or delete many messages")
def bulk(body: BulkRequest, user: CurrentUser, session: SessionDep) -> BulkResult:
    return BulkResult(changed=matches.bulk(session, user, body.ids, body.action))


@router.get("/{match_id}", responses=responses(404), summary="One message, with why it matched")
def get_match(match: OwnedMatch) -> MatchPublic:
    return matches.to_public(match)


@router.patch("/{match_id}", responses=responses(404), summary="Mark read or unread")
def update_match(
    match: OwnedMatch, body: MatchUpdate, user: CurrentUser, session: SessionDep
) -> MatchPublic:
    return matches.to_public(matches.set_read(session, user, _id(match), body.read))


@router.delete(
    "/{match_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=responses(404),
    summary="Delete a message (it will not come back)",
)
def delete_match(match: OwnedMatch, user: CurrentUser, session: SessionDep) -> None:
    matches.delete_match(session, user, _id(match))


DeliveryId = Annotated[int, Path(ge=1, le=MAX_ID, description="Delivery id")]


@router.get(
    "/{match_id}/deliveries",
    responses=responses(404),
    summary="The message's delivery history: each push by channel, its status and attempts",
)
def list_deliveries(
    match: OwnedMatch, user: CurrentUser, session: SessionDep
) -> list[DeliveryPublic]:
    rows = delivery.match_deliveries(session, user, _id(match))
    return [DeliveryPublic.model_validate(row, from_attributes=True) for row in rows]


@router.post(
    "/{match_id}/deliveries/{delivery_id}/resend",
    status_code=status.HTTP_202_ACCEPTED,
    responses=responses(404),
    summary="Send one push of this message again (a new message through the same channel)",
)
def resend_delivery(
    match: OwnedMatch, delivery_id: DeliveryId, user: CurrentUser, session: SessionDep
) -> DeliveryPublic:
    copy = delivery.resend_for_match(session, user, _id(match), delivery_id)
    return DeliveryPublic.model_validate(copy, from_attributes=True)
