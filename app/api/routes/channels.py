"""``/api/v1/me/channels``: Apprise push channels; ``/api/v1/me/feed``: the Atom feed links."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Path, Request, Response, status

from app.api.deps import MAX_ID, CurrentUser, SessionDep, SettingsDep
from app.api.errors import responses
from app.api.schemas import ChannelTestResult, FeedLinks
from app.models import PushChannelCreate, PushChannelPublic, PushChannelUpdate
from app.services import concerns, feed, push_channels

router = APIRouter(prefix="/me", tags=["me"], responses=responses(401, 422))

ChannelId = Annotated[int, Path(ge=1, le=MAX_ID, description="Push channel id")]

_EXAMPLES = {
    "dingtalk": {
        "summary": "A DingTalk (钉钉) group bot, instant pushes",
        "value": {"name": "钉钉群", "url": "dingtalk://TOKEN/", "mode": "instant"},
    },
    "ntfy": {
        "summary": "ntfy topic, daily digest only",
        "value": {"name": "phone", "url": "ntfy://my-topic", "mode": "digest"},
    },
}


@router.get("/channels", summary="The caller's Apprise push channels (URLs masked)")
def list_channels(user: CurrentUser, session: SessionDep) -> list[PushChannelPublic]:
    return [push_channels.public(c) for c in push_channels.list_channels(session, user)]


@router.post(
    "/channels",
    status_code=status.HTTP_201_CREATED,
    summary="Add an Apprise push channel (钉钉, 企业微信, 飞书, Bark, ntfy, Telegram, Slack …)",
)
def add_channel(
    request: Request,
    response: Response,
    user: CurrentUser,
    session: SessionDep,
    settings: SettingsDep,
    body: PushChannelCreate = Body(openapi_examples=_EXAMPLES),  # type: ignore[arg-type]
) -> PushChannelPublic:
    channel = push_channels.add_channel(session, settings, user, body)
    session.commit()
    response.headers["Location"] = f"{request.url.path.rstrip('/')}/{channel.id}"
    return push_channels.public(channel)


@router.get(
    "/channels/{channel_id}",
    responses=responses(404),
    summary="One of the caller's push channels (URL masked)",
)
def get_channel(channel_id: ChannelId, user: CurrentUser, session: SessionDep) -> PushChannelPublic:
    return push_channels.public(push_channels.get_channel(session, user, channel_id))


@router.patch(
    "/channels/{channel_id}",
    responses=responses(404),
    summary="Rename, switch instant / digest / both, or turn a channel on or off",
)
def update_channel(
    channel_id: ChannelId, body: PushChannelUpdate, user: CurrentUser, session: SessionDep
) -> PushChannelPublic:
    channel = push_channels.update_channel(session, user, channel_id, body)
    session.commit()
    return push_channels.public(channel)


@router.delete(
    "/channels/{channel_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=responses(404),
    summary="Remove a push channel",
)
def remove_channel(channel_id: ChannelId, user: CurrentUser, session: SessionDep) -> None:
    push_channels.remove_channel(session, user, channel_id)
    session.commit()


@router.post(
    "/channels/{channel_id}/test",
    responses=responses(404),
    summary="Send a test message through a push channel now",
)
def test_channel(
    channel_id: ChannelId, user: CurrentUser, session: SessionDep, settings: SettingsDep
) -> ChannelTestResult:
    channel = push_channels.get_channel(session, user, channel_id)
    result = push_channels.send_test_message(settings, user, channel)
    return ChannelTestResult(ok=result.ok, error=None if result.ok else result.error)


def _links(session: SessionDep, settings: SettingsDep, user: CurrentUser) -> FeedLinks:
    token = feed.feed_token(session, user)
    session.commit()
    return FeedLinks(
        messages=feed.feed_url(settings, token),
        concerns={
            c.id: feed.feed_url(settings, token, c.id)
            for c in concerns.list_concerns(session, user)
            if c.id is not None
        },
    )


@router.get("/feed", summary="The secret Atom feed links (created on first use)")
def feed_links(user: CurrentUser, session: SessionDep, settings: SettingsDep) -> FeedLinks:
    return _links(session, settings, user)


@router.post("/feed/rotate", summary="New feed links; the old ones stop working (404)")
def rotate_feed(user: CurrentUser, session: SessionDep, settings: SettingsDep) -> FeedLinks:
    feed.rotate_feed_token(session, user)
    return _links(session, settings, user)
