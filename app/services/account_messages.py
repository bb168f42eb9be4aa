"""What the account services share for reaching a user outside the app: links to the account
pages, the user a signed link names, one-time SMS codes, and sending an account email or SMS.

Account emails and texts are sent at once, not through the outbox (``app.services.mailer``).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from datetime import timedelta
from urllib.parse import urlencode

from sqlmodel import Session, col, select

from app.core.config import Settings
from app.core.i18n import language, translate
from app.models import ResetCode, User, utcnow
from app.services import throttle
from app.services.errors import Invalid
from app.services.urlcheck import run_sync

logger = logging.getLogger(__name__)

SMS_CODE_TTL = timedelta(minutes=10)
SMS_CODE_ATTEMPTS = 5


def link(settings: Settings, path: str, token: str, *, fragment: bool = False) -> str:
    sep = "#" if fragment else "?"
    return f"{settings.base_url.rstrip('/')}{path}{sep}{urlencode({'token': token})}"


def user_from_payload(session: Session, payload: object) -> User | None:
    """The active user a signed link's payload names (``uid``), or None."""
    if not isinstance(payload, dict) or not isinstance(payload.get("uid"), int):
        return None
    user = session.get(User, payload["uid"])
    if user is None or not user.is_active:
        return None
    return user


def sms_available(settings: Settings) -> bool:
    """True when a real SMS provider is configured (the console adapter delivers nothing, so
    it does not count)."""
    return settings.sms_provider not in ("none", "console")


# --- one-time SMS codes ----------------------------------------------------------------------


def _code_hash(settings: Settings, user_id: int, code: str) -> str:
    key = settings.effective_secret_key().encode()
    return hmac.new(key, f"{user_id}:{code}".encode(), hashlib.sha256).hexdigest()


def new_code(session: Session, settings: Settings, user_id: int, purpose: str) -> str:
    """A fresh 6-digit code for ``purpose`` (it replaces the user's older ones); the
    caller stores it and sends it."""
    code = f"{secrets.randbelow(1_000_000):06d}"
    for old in list(
        session.exec(
            select(ResetCode).where(
                ResetCode.user_id == user_id,
                ResetCode.purpose == purpose,
                col(ResetCode.used_at).is_(None),
            )
        )
    ):
        old.used_at = utcnow()
        session.add(old)
    session.add(
        ResetCode(
            user_id=user_id,
            purpose=purpose,
            code_hash=_code_hash(settings, user_id, code),
            expires_at=utcnow() + SMS_CODE_TTL,
        )
    )
    return code


def take_code(
    session: Session, settings: Settings, user_id: int, purpose: str, code: str
) -> ResetCode | None:
    """The live code row matching ``code`` (marked used), or None (a wrong try counts)."""
    row = session.exec(
        select(ResetCode)
        .where(
            ResetCode.user_id == user_id,
            ResetCode.purpose == purpose,
            col(ResetCode.used_at).is_(None),
        )
        .order_by(col(ResetCode.id).desc())
    ).first()
    if row is None or row.expires_at <= utcnow() or row.attempts >= SMS_CODE_ATTEMPTS:
        return None
    if not hmac.compare_digest(row.code_hash, _code_hash(settings, user_id, code.strip())):
        row.attempts += 1
        session.add(row)
        session.commit()  # the wrong try counts although the caller fails and rolls back
        return None
    row.used_at = utcnow()
    session.add(row)
    return row


# --- sending ---------------------------------------------------------------------------------


def send_template(settings: Settings, user: User, template: str, **context: object) -> None:
    """Render an account email template (verify, reset) and hand it to the mailer."""
    from app.services.mailer import render_account_email

    subject, text, html = render_account_email(template, user.language, **context)
    send_email(settings, user.email, subject, text, html)


def send_email(
    settings: Settings, to: str, subject: str, text: str, html: str | None = None
) -> None:
    """Send an account email now (SMTP when configured, else a logged warning)."""
    from app.services.mailer import send_account_email

    send_account_email(settings, to, subject, text, html)


def send_sms(settings: Settings, phone: str, text: str) -> None:
    """Send an account SMS through the configured provider."""
    from app.services.channels import ChannelNotConfigured, sms_channel
    from push import Message

    try:
        channel = sms_channel(settings)
    except ChannelNotConfigured as exc:
        raise Invalid("Password reset by SMS is not available.", code="sms_unavailable") from exc
    message = Message(subject="", text=text, id="acct_sms_" + secrets.token_hex(12))
    result = run_sync(channel.send(message, phone))
    if not result.ok:
        logger.error("account SMS failed: %s", result.error)


def text_code(
    session: Session, settings: Settings, user: User, *, purpose: str, limit: str, message: str
) -> None:
    """Text the user a new one-time code for ``purpose`` (phone verification, password reset):
    counted against the ``limit`` throttle, stored, committed, then sent as ``message`` (an
    ``N_``-marked id with ``%(code)s`` and ``%(minutes)s``) in the user's language."""
    assert user.id is not None and user.phone
    throttle.hit(session, settings, limit, user.id)
    code = new_code(session, settings, user.id, purpose)
    session.commit()  # stored before it is texted: a code that arrives must work
    minutes = int(SMS_CODE_TTL.total_seconds() // 60)
    text = translate(language(user.language), message, code=code, minutes=minutes)
    send_sms(settings, user.phone, text)
