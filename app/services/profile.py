"""A user's profile: address, language, time zone, push times and channels (phone, webhook),
and the webhook signing secret.

The functions flush; the caller commits.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from app.core.config import Settings, get_settings
from app.models import PUSH_MODES, ProfileUpdate, User
from app.services.auth import (
    LANGUAGES,
    check_current_password,
    clean_email,
    get_user_by_email,
    known_zone,
)
from app.services.errors import Conflict, Invalid
from app.services.urlcheck import guard, normalize_url, run_sync
from push import new_secret

logger = logging.getLogger(__name__)


def update_profile(
    session: Session, user: User, data: ProfileUpdate, *, ip: str | None = None
) -> User:
    """Apply the fields set in ``data``; a new email address takes the current password and
    must be verified again."""
    changes: dict[str, Any] = data.model_dump(exclude_unset=True)
    password = changes.pop("current_password", None)
    _change_email(session, user, changes, password, ip)
    _clean_schedule(changes)
    _clean_channels(user, changes)
    for field in (
        "language",
        "push_mode",
        "email_enabled",
        "sms_enabled",
        "webhook_enabled",
        "digest_when_empty",
        "webhook_batch",
    ):
        if field in changes and changes[field] is None:
            changes.pop(field)
    user.sqlmodel_update(changes)
    if user.sms_enabled and not user.phone:
        raise Invalid("Add a phone number to receive SMS.", details={"field": "phone"})
    if user.webhook_enabled and not user.webhook_url:
        raise Invalid("Add a webhook URL to enable webhooks.", details={"field": "webhook_url"})
    session.add(user)
    try:
        session.flush()
    except IntegrityError as exc:
        session.rollback()
        raise Conflict("That email address is taken.", code="email_taken") from exc
    session.refresh(user)
    return user


def _change_email(
    session: Session, user: User, changes: dict[str, Any], password: str | None, ip: str | None
) -> None:
    """Take a new address out of ``changes`` onto ``user`` (unverified again). The current
    password confirms it: whoever holds a stolen session or token could otherwise move the
    account to an address of theirs and reset its password there."""
    if "email" not in changes:
        return
    if changes["email"] is None:
        raise Invalid("Enter your email address.", details={"field": "email"})
    email = clean_email(changes.pop("email"))
    if email != user.email:
        if not password:
            raise Invalid(
                "Enter your current password to change the email address.",
                code="password_required",
                details={"field": "current_password"},
            )
        check_current_password(session, user, password, ip=ip)
        other = get_user_by_email(session, email=email)
        if other is not None and other.id != user.id:
            raise Conflict(
                "An account for %(email)s already exists.",
                code="email_taken",
                details={"field": "email"},
                params={"email": email},
            )
        user.email = email
        user.email_verified_at = None


def _clean_schedule(changes: dict[str, Any]) -> None:
    """Check and normalise the time zone, language, push mode, digest and quiet times."""
    if "timezone" in changes:
        tz = (changes["timezone"] or "").strip()
        if known_zone(tz) is None:
            raise Invalid(
                "Unknown time zone “%(tz)s” (use a name like Asia/Shanghai).",
                code="invalid_timezone",
                details={"field": "timezone"},
                params={"tz": tz},
            )
        changes["timezone"] = tz
    if "language" in changes and changes["language"] not in LANGUAGES:
        raise Invalid("Choose Chinese (zh) or English (en).", details={"field": "language"})
    if "push_mode" in changes and changes["push_mode"] not in PUSH_MODES:
        raise Invalid(
            "Choose when to push: instant, digest, both or off.", details={"field": "push_mode"}
        )
    if "digest_time" in changes:
        changes["digest_time"] = _hhmm(changes["digest_time"] or "", "digest_time")
    for field in ("quiet_start", "quiet_end"):
        if changes.get(field):
            changes[field] = _hhmm(changes[field], field)
        elif field in changes:
            changes[field] = None


def _clean_channels(user: User, changes: dict[str, Any]) -> None:
    """Check and normalise the phone number and the webhook URL (a changed number is
    confirmed by a code again; a new webhook URL is enabled again)."""
    if "phone" in changes:
        changes["phone"] = _clean_phone(changes["phone"])
        if changes["phone"] != user.phone:
            user.phone_verified_at = None  # a new number is confirmed by a code again
    if changes.get("webhook_url"):
        url = normalize_url(changes["webhook_url"], field="webhook_url")
        run_sync(guard(get_settings(), url, field="webhook_url"))
        changes["webhook_url"] = url
        user.webhook_disabled_at = None
    elif "webhook_url" in changes:
        changes["webhook_url"] = None
    if changes.get("webhook_enabled"):
        # turning the webhook on again after it answered 410 Gone sends to it again
        user.webhook_disabled_at = None


def _clean_phone(phone: str | None) -> str | None:
    if not phone or not phone.strip():
        return None
    cleaned = "".join(ch for ch in phone if ch.isdigit() or ch == "+")
    digits = cleaned.lstrip("+")
    if not digits.isdigit() or not 6 <= len(digits) <= 15 or "+" in cleaned[1:]:
        raise Invalid(
            "Enter the phone number with country code, e.g. +8613800138000.",
            code="invalid_phone",
            details={"field": "phone"},
        )
    return cleaned


def rotate_webhook_secret(session: Session, user: User) -> str:
    """A new webhook signing secret. Shown once; stored as is because signing needs it."""
    secret = new_secret()  # the Standard Webhooks form the webhook channel signs with
    user.webhook_secret = secret
    session.add(user)
    session.flush()
    return secret


def _hhmm(value: str, field: str) -> str:
    parts = value.strip().split(":")
    if len(parts) == 2 and all(p.isdigit() for p in parts):
        hour, minute = int(parts[0]), int(parts[1])
        if 0 <= hour < 24 and 0 <= minute < 60:
            return f"{hour:02d}:{minute:02d}"
    raise Invalid(
        "Enter a time of day as hours:minutes (00:00–23:59).",
        code="invalid_time",
        details={"field": field},
    )


def tell_old_address(settings: Settings, user: User, old_email: str) -> None:
    """Tell the address an account used to have that it was changed (the owner learns of a
    change they did not make); never raises."""
    from app.services import account_messages
    from app.services.mailer import render_account_email

    try:
        subject, text, html = render_account_email(
            "email_changed", user.language, old=old_email, new=user.email
        )
        account_messages.send_email(settings, old_email, subject, text, html)
    except Exception:
        logger.exception("could not tell the old address of user %s of the change", user.id)
