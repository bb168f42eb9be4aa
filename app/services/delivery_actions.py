"""What a user does with their notifications: the delivery history of a message, sending one
again, a test message to a channel, and unsubscribing from (or back to) notification email.

The outbox itself — claim, send, retry with back-off, dead — is ``app.services.delivery``;
these actions only add rows to it (and wake its sender) or send a test message directly.
"""

from __future__ import annotations

import logging

import httpx
from sqlalchemy import func
from sqlmodel import Session, col, select

from app.core.config import Settings, get_settings
from app.core.security import predates, unsign_dated
from app.models import Delivery, DeliveryChannel, DeliveryStatus, User, utcnow
from app.services import channels, outbox_wake, throttle
from app.services.delivery import RESEND, enabled_targets, webhook_secret
from app.services.delivery_compose import UNSUBSCRIBE_SALT, channel_test_message
from app.services.errors import NotFound
from app.services.urlcheck import guarded_client
from push import ConfigError, DeliveryResult, language, new_secret

logger = logging.getLogger(__name__)

UNSUBSCRIBE_MAX_AGE = 10 * 365 * 86400


def resend(session: Session, user: User, delivery_id: int) -> Delivery:
    """Queue a fresh copy of one of the user's deliveries (a new message, new Message-ID).
    A delivery the outbox still retries (``failed``) is tried again now instead: a copy
    beside it would reach the user twice once the retry got through.

    NotFound unless the delivery belongs to this user."""
    original = session.get(Delivery, delivery_id)
    if original is None or original.user_id != user.id or user.id is None:
        raise NotFound("No such delivery.", code="delivery_not_found")
    if original.status == DeliveryStatus.FAILED:
        original.next_attempt_at = utcnow()
        session.add(original)
        session.flush()
        return original
    base = RESEND.sub("", original.idempotency_key)
    count = session.exec(
        select(func.count())
        .select_from(Delivery)
        .where(col(Delivery.idempotency_key).startswith(base + ":r"))
    ).one()
    targets = dict(enabled_targets(user))
    copy = Delivery(
        idempotency_key=f"{base}:r{count + 1}",
        user_id=user.id,
        match_id=original.match_id,
        match_ids=list(original.match_ids),
        digest_date=original.digest_date,
        kind=original.kind,
        channel=original.channel,
        target=targets.get(original.channel, original.target),
        next_attempt_at=utcnow(),
    )
    session.add(copy)
    session.flush()
    return copy


def match_deliveries(session: Session, user: User, match_id: int) -> list[Delivery]:
    """The delivery history of one of the user's matches: its outbox rows, oldest first
    (instant pushes per channel, their resends; digests are listed by date, not per match)."""
    stmt = (
        select(Delivery)
        .where(col(Delivery.user_id) == user.id, col(Delivery.match_id) == match_id)
        .order_by(col(Delivery.id))
    )
    return list(session.exec(stmt))


def resend_for_match(session: Session, user: User, match_id: int, delivery_id: int) -> Delivery:
    """Queue one of a match's deliveries again (``resend``), commit, and wake the sender.

    NotFound unless the delivery belongs to this user and this match."""
    original = session.get(Delivery, delivery_id)
    if original is None or original.user_id != user.id or original.match_id != match_id:
        raise NotFound("No such delivery.", code="delivery_not_found")
    throttle.hit(session, get_settings(), "resend", user.id)
    copy = resend(session, user, delivery_id)
    session.commit()  # before the wake: the sender must find the new row
    outbox_wake.wake()
    return copy


def send_channel_test(
    session: Session, settings: Settings, user: User, channel: str
) -> DeliveryResult:
    """Send a test message to the address the user's profile has for ``channel`` now
    (rate-limited: "channel_test")."""
    throttle.hit(session, settings, "channel_test", user.id)
    targets = {"email": user.email, "sms": user.phone, "webhook": user.webhook_url}
    if channel not in targets:
        raise ValueError(f"unknown channel {channel!r}: choose email, webhook or sms")
    target = targets[channel]
    if not target:
        return DeliveryResult(
            ok=False, permanent=True, error=f"no {channel} address in the profile"
        )
    if (channel == DeliveryChannel.EMAIL and user.email_verified_at is None) or (
        channel == DeliveryChannel.SMS and user.phone_verified_at is None
    ):
        return DeliveryResult(ok=False, permanent=True, error=f"verify the {channel} address first")
    secret = None
    if channel == DeliveryChannel.WEBHOOK:
        secret = webhook_secret(session, user)
        session.commit()  # kept before the signed test goes out: the receiver checks with it
    return send_test_message(settings, channel, target, secret=secret, lang=user.language)


def send_test_message(
    settings: Settings,
    channel: str,
    target: str,
    *,
    secret: str | None = None,
    lang: str | None = "zh",
) -> DeliveryResult:
    """Send a test message through ``channel`` to ``target`` now (no outbox row)."""
    message = channel_test_message(settings, channel, language(lang))

    async def go() -> DeliveryResult:
        async with (
            httpx.AsyncClient(follow_redirects=False) as client,
            guarded_client(settings, follow_redirects=False) as hooks,
        ):
            if channel == DeliveryChannel.EMAIL:
                async with channels.email_channel(settings) as email:
                    return await email.send(message, target)
            if channel == DeliveryChannel.SMS:
                return await channels.sms_channel(settings, client=client).send(message, target)
            if channel == DeliveryChannel.WEBHOOK:
                hook = channels.webhook_channel(settings, secret or new_secret(), client=hooks)
                return await hook.send(message, target)
            raise ValueError(f"unknown channel {channel!r}: choose email, webhook or sms")

    try:
        return channels.run_sync(go())
    except (channels.ChannelNotConfigured, ConfigError) as exc:
        return DeliveryResult(ok=False, permanent=True, error=str(exc))


def unsubscribe_user(session: Session, settings: Settings, token: str) -> User | None:
    """The user a signed unsubscribe token names, or None (bad signature, no such user)."""
    signed = unsign_dated(
        settings.effective_secret_key(), UNSUBSCRIBE_SALT, token, UNSUBSCRIBE_MAX_AGE
    )
    if signed is None or not isinstance(signed[0], dict) or not isinstance(signed[0].get("u"), int):
        return None
    user = session.get(User, signed[0]["u"])
    # an account made after the link is not the one it names (a deleted account's id, reused)
    return user if user is not None and predates(user.created_at, signed[1]) else None


def unsubscribe(session: Session, settings: Settings, token: str) -> User | None:
    """Turn off notification email for the user named by a signed unsubscribe token."""
    user = unsubscribe_user(session, settings, token)
    if user is None:
        return None
    if user.email_enabled:
        user.email_enabled = False
        session.add(user)
        logger.info("user %s unsubscribed from notification email", user.id)
    return user


def resubscribe(session: Session, settings: Settings, token: str) -> User | None:
    """Undo :func:`unsubscribe`: notification email on again for the token's user."""
    user = unsubscribe_user(session, settings, token)
    if user is None:
        return None
    if not user.email_enabled:
        user.email_enabled = True
        session.add(user)
        logger.info("user %s subscribed to notification email again", user.id)
    return user
