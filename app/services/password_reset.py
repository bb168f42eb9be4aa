"""Recovering a forgotten password: an emailed single-use link, or a texted code when an SMS
provider is configured.

Links point at the web page ``RESET_PATH`` with ``#token=…`` (the page's script moves the
fragment into its form, so the reset token reaches no access log). Every function that
changes data flushes; the caller commits.
"""

from __future__ import annotations

import hashlib
import hmac
import logging

from sqlmodel import Session, select

from app.core.config import Settings
from app.core.i18n import N_
from app.core.security import sign, unsign
from app.models import User, utcnow
from app.services import account_messages, throttle
from app.services.auth import check_password, normalize_email, set_password
from app.services.errors import Invalid

logger = logging.getLogger(__name__)

RESET_PATH = "/reset-password"
RESET_MAX_AGE = 2 * 3600


def sms_reset_available(settings: Settings) -> bool:
    """True when a real SMS provider is configured for reset codes (the console adapter
    delivers nothing, so it does not count)."""
    return account_messages.sms_available(settings)


def email_reset_available(settings: Settings) -> bool:
    """True when SMTP is configured, so an emailed reset link can arrive."""
    return bool(settings.smtp_host)


# --- emailed link ----------------------------------------------------------------------------


def _password_fingerprint(user: User) -> str:
    return hashlib.sha256(user.password_hash.encode()).hexdigest()[:24]


def make_password_reset_token(settings: Settings, user: User) -> str:
    """A link token bound to the current password hash: it dies once the password changes."""
    return sign(
        settings.effective_secret_key(),
        "password-reset",
        {"uid": user.id, "ph": _password_fingerprint(user)},
    )


def request_password_reset(
    session: Session, settings: Settings, *, email: str, ip: str | None = None
) -> None:
    """Email a single-use, expiring reset link. Silent for unknown addresses; Invalid when
    this server cannot send email (a reset that cannot arrive is not offered)."""
    if not email_reset_available(settings):
        raise Invalid(
            "Password reset by email is not available on this server; "
            "please ask the administrator.",
            code="email_unavailable",
        )
    address = normalize_email(email)
    # counted for unknown addresses too: the answer must not tell which ones exist
    throttle.hit(session, settings, "reset_ip", ip)
    throttle.hit(session, settings, "reset_email", address)
    user = session.exec(select(User).where(User.email == address)).first()
    if user is None or not user.is_active:
        logger.info("password reset requested for an unknown address")
        return
    # in the fragment: a browser never sends it, so it lands in no access log or Referer
    token = make_password_reset_token(settings, user)
    link = account_messages.link(settings, RESET_PATH, token, fragment=True)
    hours = max(1, RESET_MAX_AGE // 3600)
    account_messages.send_template(
        settings, user, "reset", email=user.email, link=link, hours=hours
    )


def _reset_user(session: Session, settings: Settings, token: str) -> User | None:
    """The user an emailed link's token names while it still works, else None."""
    payload = unsign(settings.effective_secret_key(), "password-reset", token, RESET_MAX_AGE)
    user = account_messages.user_from_payload(session, payload)
    if (
        user is None
        or not isinstance(payload, dict)
        or not hmac.compare_digest(str(payload.get("ph", "")), _password_fingerprint(user))
    ):
        return None
    return user


def reset_link_works(session: Session, settings: Settings, token: str) -> bool:
    """Whether an emailed link can still set a password (signed, not expired, not used)."""
    return bool(token) and _reset_user(session, settings, token) is not None


def reset_password(session: Session, settings: Settings, *, token: str, new_password: str) -> User:
    """Set a new password from an emailed link (each link works once)."""
    user = _reset_user(session, settings, token)
    if user is None:
        raise Invalid("This reset link is invalid, expired or already used.", code="invalid_token")
    check_password(new_password)
    set_password(session, user, new_password)
    session.flush()
    return user


# --- texted code -----------------------------------------------------------------------------


def request_sms_reset(
    session: Session, settings: Settings, *, email: str, ip: str | None = None
) -> None:
    """Text a 6-digit reset code to the account's phone. Silent for unknown addresses or
    accounts without a phone; Throttled by the "sms_reset" limit."""
    if not sms_reset_available(settings):
        raise Invalid("Password reset by SMS is not available.", code="sms_unavailable")
    address = normalize_email(email)
    throttle.hit(session, settings, "reset_ip", ip)
    user = session.exec(select(User).where(User.email == address)).first()
    if (
        user is None
        or not user.phone
        or user.phone_verified_at is None  # codes go only to a number the user confirmed
        or not user.is_active
        or user.id is None
    ):
        logger.info("SMS reset requested for an unknown address or an account without phone")
        return
    account_messages.text_code(
        session,
        settings,
        user,
        purpose="reset",
        limit="sms_reset",
        message=N_("Timely Push password reset code: %(code)s (valid %(minutes)s min)"),
    )


def reset_password_with_code(
    session: Session, settings: Settings, *, email: str, code: str, new_password: str
) -> User:
    """Set a new password with an SMS code (single use, expiring, SMS_CODE_ATTEMPTS tries)."""
    bad = Invalid("The code is wrong or has expired.", code="invalid_code")
    address = normalize_email(email)
    user = session.exec(select(User).where(User.email == address)).first()
    if user is None or user.id is None:
        raise bad
    check_password(new_password)
    row = account_messages.take_code(session, settings, user.id, "reset", code)
    if row is None:
        raise bad
    row.used_at = utcnow()
    session.add(row)
    set_password(session, user, new_password)
    session.flush()
    return user
