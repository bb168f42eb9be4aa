"""A user's Apprise push channels: list, add, change, remove, test.

An Apprise URL names a chat app or push service (钉钉, 企业微信, 飞书, Bark, ntfy, Telegram,
Server酱, Discord, Slack, …). Adding one checks that Apprise understands it and that every
endpoint a send would contact passes the URL guard (private and loopback addresses are refused
unless ``TIMELYPUSH_URL_ALLOWLIST`` lets them through); sends check again each time. The URL
may hold the service's token: it is never logged, and shown to its owner only masked.
"""

from __future__ import annotations

import logging

from sqlmodel import Session, col, select

from app.core.config import Settings
from app.models import (
    APPRISE,
    CHANNEL_MODES,
    PushChannel,
    PushChannelCreate,
    PushChannelPublic,
    PushChannelUpdate,
    User,
)
from app.services import channels
from app.services.delivery_compose import channel_test_message
from app.services.errors import Invalid, NotFound
from app.services.urlcheck import guard, run_sync
from push import ConfigError, DeliveryResult, inspect_url, language

logger = logging.getLogger(__name__)

MAX_CHANNELS = 20
MAX_ID = 2**31 - 1


def public(channel: PushChannel) -> PushChannelPublic:
    try:
        masked = inspect_url(channel.url).masked
    except ConfigError:
        masked = channel.url.split("://", 1)[0] + "://…"
    assert channel.id is not None
    return PushChannelPublic(
        id=channel.id,
        name=channel.name,
        service=channel.service,
        url_masked=masked,
        mode=channel.mode,
        enabled=channel.enabled,
        created_at=channel.created_at,
    )


def list_channels(session: Session, user: User) -> list[PushChannel]:
    stmt = select(PushChannel).where(PushChannel.user_id == user.id).order_by(col(PushChannel.id))
    return list(session.exec(stmt))


def get_channel(session: Session, user: User, channel_id: int) -> PushChannel:
    channel = session.get(PushChannel, channel_id) if 1 <= channel_id <= MAX_ID else None
    if channel is None or channel.user_id != user.id:
        raise NotFound("No such push channel.", code="channel_not_found")
    return channel


def _name(raw: str | None, fallback: str) -> str:
    """A display name: control characters dropped, whitespace collapsed, 100 characters."""
    text = "".join(ch if ch.isprintable() else " " for ch in (raw or ""))
    return " ".join(text.split())[:100] or fallback


def _mode(mode: str) -> str:
    if mode not in CHANNEL_MODES:
        raise Invalid(
            "Choose instant, digest or both.",
            code="invalid_channel_mode",
            details={"field": "mode"},
        )
    return mode


def check_url(settings: Settings, raw: str) -> tuple[str, str]:
    """``(url, service name)`` of an Apprise URL a user may add; Invalid otherwise."""
    url = (raw or "").strip()
    if not url or not url.isprintable():
        raise Invalid(
            "Please enter an Apprise URL.", code="invalid_apprise_url", details={"field": "url"}
        )
    try:
        info = inspect_url(url)
    except ConfigError as exc:
        raise Invalid(
            "Apprise does not recognise this address; check its format "
            "(e.g. dingtalk://TOKEN/ or ntfy://topic).",
            code="invalid_apprise_url",
            details={"field": "url", "reason": str(exc)},
        ) from exc

    async def check_all() -> None:
        for endpoint in info.endpoints:
            await guard(settings, endpoint, field="url")

    run_sync(check_all())
    return url, info.service


def add_channel(
    session: Session, settings: Settings, user: User, data: PushChannelCreate
) -> PushChannel:
    if user.id is None:
        raise NotFound("No such user.")
    mode = _mode(data.mode)
    url, service = check_url(settings, data.url)
    if len(list_channels(session, user)) >= MAX_CHANNELS:
        raise Invalid(
            "At most %(n)s push channels; remove one first.",
            code="too_many_channels",
            params={"n": MAX_CHANNELS},
        )
    channel = PushChannel(
        user_id=user.id,
        name=_name(data.name, service),
        url=url,
        service=service,
        mode=mode,
        enabled=data.enabled,
    )
    session.add(channel)
    session.flush()
    logger.info("user %s added a %s push channel %s", user.id, service, channel.id)
    return channel


def update_channel(
    session: Session, user: User, channel_id: int, data: PushChannelUpdate
) -> PushChannel:
    channel = get_channel(session, user, channel_id)
    if data.mode is not None:
        channel.mode = _mode(data.mode)
    if data.name is not None:
        channel.name = _name(data.name, channel.service)
    if data.enabled is not None:
        channel.enabled = data.enabled
    session.add(channel)
    session.flush()
    return channel


def remove_channel(session: Session, user: User, channel_id: int) -> None:
    """Delete the channel; its waiting pushes are dropped when their turn comes."""
    channel = get_channel(session, user, channel_id)
    session.delete(channel)
    session.flush()


def send_test_message(settings: Settings, user: User, channel: PushChannel) -> DeliveryResult:
    """Send a test message to the channel now (no outbox row)."""
    message = channel_test_message(settings, APPRISE, language(user.language))
    sender = channels.apprise_channel(settings)
    return channels.run_sync(sender.send(message, channel.url))
