"""Proving an address is the user's: the emailed verification link and the texted phone code.

Links in emails point at the web page ``VERIFY_PATH`` with ``?token=…``. Every function that
changes data flushes; the caller commits.
"""

from __future__ import annotations

from sqlmodel import Session

from app.core.config import Settings
from app.core.i18n import N_
from app.core.security import sign, unsign
from app.models import User, utcnow
from app.services import account_messages, throttle
from app.services.errors import Invalid

VERIFY_PATH = "/verify-email"
VERIFY_MAX_AGE = 3 * 24 * 3600


# --- email -----------------------------------------------------------------------------------


def make_email_verification_token(settings: Settings, user: User) -> str:
    return sign(
        settings.effective_secret_key(), "verify-email", {"uid": user.id, "email": user.email}
    )


def verify_email(session: Session, settings: Settings, token: str) -> User:
    """Mark the address verified; Invalid when the link is forged, expired or outdated."""
    payload = unsign(settings.effective_secret_key(), "verify-email", token, VERIFY_MAX_AGE)
    user = account_messages.user_from_payload(session, payload)
    if user is None or not isinstance(payload, dict) or payload.get("email") != user.email:
        raise Invalid("This verification link is invalid or has expired.", code="invalid_token")
    if user.email_verified_at is None:
        user.email_verified_at = utcnow()
        session.add(user)
        session.flush()
    return user


def resend_verification(session: Session, settings: Settings, user: User) -> bool:
    """Send the verification link again (rate-limited); False when already verified."""
    if user.email_verified_at is not None:
        return False
    throttle.hit(session, settings, "verify_resend", user.id)
    send_verification_email(settings, user)
    return True


def send_verification_email(settings: Settings, user: User) -> None:
    """Email the verification link to the user (in the user's language)."""
    link = account_messages.link(
        settings, VERIFY_PATH, make_email_verification_token(settings, user)
    )
    account_messages.send_template(settings, user, "verify", email=user.email, link=link)


# --- phone -----------------------------------------------------------------------------------


def send_phone_code(session: Session, settings: Settings, user: User) -> None:
    """Text a 6-digit code to the profile's phone number to confirm it (rate-limited)."""
    if not user.phone:
        raise Invalid("Add a phone number first.", code="no_phone", details={"field": "phone"})
    if not account_messages.sms_available(settings):
        raise Invalid("This server cannot send SMS.", code="sms_unavailable")
    account_messages.text_code(
        session,
        settings,
        user,
        purpose="phone",
        limit="phone_code",
        message=N_("Timely Push phone verification code: %(code)s (valid %(minutes)s min)"),
    )


def confirm_phone(session: Session, settings: Settings, user: User, code: str) -> User:
    """Mark the phone number verified with the texted code (single use, expiring)."""
    assert user.id is not None
    if (
        not user.phone
        or account_messages.take_code(session, settings, user.id, "phone", code) is None
    ):
        raise Invalid(
            "The code is wrong or has expired.", code="invalid_code", details={"field": "code"}
        )
    user.phone_verified_at = utcnow()
    session.add(user)
    session.flush()
    return user
