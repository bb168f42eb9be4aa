"""Accounts: registration, login with throttling, email verification, password reset
(emailed link or SMS code), profile, webhook secret, and per-device API tokens.

Every function that changes data commits. Links in emails point at the web pages
``VERIFY_PATH`` with ``?token=…`` and ``RESET_PATH`` with ``#token=…`` (the page's script
moves the fragment into its form, so the reset token reaches no access log).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from email_validator import EmailNotValidError, validate_email
from sqlalchemy import delete, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app import crud
from app.core.config import Settings
from app.core.i18n import language, translate
from app.core.security import (
    hash_password,
    hash_token,
    needs_rehash,
    new_token,
    sign,
    unsign,
    verify_password,
)
from app.models import PUSH_MODES, ApiToken, ProfileUpdate, ResetCode, User, WebSession, utcnow
from app.services import throttle
from app.services.errors import Conflict, Invalid, NotFound, Unauthorized
from app.services.urlcheck import guard, normalize_url, run_sync
from push import new_secret

logger = logging.getLogger(__name__)

VERIFY_PATH = "/verify-email"
RESET_PATH = "/reset-password"
VERIFY_MAX_AGE = 3 * 24 * 3600
RESET_MAX_AGE = 2 * 3600
SMS_CODE_TTL = timedelta(minutes=10)
SMS_CODE_ATTEMPTS = 5
TOKEN_TOUCH_INTERVAL = timedelta(minutes=1)
LANGUAGES = ("zh", "en")
MIN_PASSWORD = 8
MAX_PASSWORD = 256

_DUMMY_HASH = hash_password("timing-equaliser-not-a-password")


# --- validation helpers ----------------------------------------------------------------------


def clean_email(email: str) -> str:
    """The normalised address (``crud.normalize_email``), or Invalid with the reason."""
    try:
        info = validate_email((email or "").strip(), check_deliverability=False)
    except EmailNotValidError as exc:
        raise Invalid(
            "Enter a valid email address.",
            code="invalid_email",
            details={"field": "email", "reason": str(exc)},
        ) from exc
    return crud.normalize_email(info.normalized)


def normalize_email(email: str) -> str:
    """The form an address is stored and looked up in (``clean_email`` when it is valid);
    never raises, so a login with a malformed address is just a wrong login."""
    try:
        return clean_email(email)
    except Invalid:
        # no NUL or lone surrogate reaches a query (PostgreSQL refuses NUL in text)
        text = (email or "").replace("\x00", "").encode("utf-8", "replace").decode()
        return text.strip().lower()


def check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise Invalid(
            "The password must be at least %(n)s characters.",
            code="weak_password",
            details={"field": "password"},
            params={"n": MIN_PASSWORD},
        )
    if "\x00" in password:
        raise Invalid(
            "The password cannot contain NUL characters.",
            code="invalid_password",
            details={"field": "password"},
        )
    if len(password) > MAX_PASSWORD:
        raise Invalid(
            "The password must be at most %(n)s characters.",
            code="invalid_password",
            details={"field": "password"},
            params={"n": MAX_PASSWORD},
        )


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


# --- registration and login ------------------------------------------------------------------


def register_user(
    session: Session,
    *,
    email: str,
    password: str,
    language: str | None = None,
    ip: str | None = None,
) -> User:
    """Create an unverified account; Conflict when the address is taken. A sign-up from
    the web or the API (``ip`` given) counts against the "register_ip" limit."""
    email = clean_email(email)
    check_password(password)
    if language is not None and language not in LANGUAGES:
        raise Invalid("Choose Chinese (zh) or English (en).", details={"field": "language"})
    if ip is not None:
        throttle.hit(session, _settings(), "register_ip", ip)
    if crud.get_user_by_email(session, email=email) is not None:
        raise Conflict(
            "An account for %(email)s already exists.",
            code="email_taken",
            details={"field": "email"},
            params={"email": email},
        )
    user = User(email=email, password_hash=hash_password(password), language=language or "zh")
    session.add(user)
    try:
        session.commit()
    except IntegrityError as exc:
        session.rollback()
        raise Conflict(
            "An account for %(email)s already exists.",
            code="email_taken",
            details={"field": "email"},
            params={"email": email},
        ) from exc
    session.refresh(user)
    logger.info("registered user %s", user.id)
    return user


def authenticate(session: Session, *, email: str, password: str, ip: str | None) -> User:
    """The user with these credentials.

    Every attempt is counted before the password is checked (``throttle``: account × IP,
    IP, and account alone, each with exponential back-off); Throttled when one of them says
    wait, Unauthorized on wrong credentials or a disabled account.
    """
    address = normalize_email(email)
    settings = _settings()
    _count_password_attempt(session, settings, address, ip)
    user = session.exec(select(User).where(User.email == address)).first()
    ok = verify_password(user.password_hash if user else _DUMMY_HASH, password)
    if user is None or not ok or not user.is_active:
        raise Unauthorized("Wrong email or password.", code="bad_credentials")
    _password_was_right(session, settings, address, ip)
    if needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)
        session.add(user)
    session.commit()
    return user


def _count_password_attempt(
    session: Session, settings: Settings, account: str, ip: str | None
) -> None:
    throttle.hit(session, settings, "login", account, ip)
    throttle.hit(session, settings, "login_ip", ip)
    throttle.hit(session, settings, "login_account", account)


def _password_was_right(session: Session, settings: Settings, account: str, ip: str | None) -> None:
    throttle.clear(session, settings, "login", account, ip)
    throttle.refund(session, settings, "login_ip", ip)
    throttle.refund(session, settings, "login_account", account)


def check_current_password(
    session: Session, user: User, password: str, *, ip: str | None = None
) -> None:
    """Unauthorized unless ``password`` is the user's (throttled like a login)."""
    settings = _settings()
    _count_password_attempt(session, settings, user.email, ip)
    if not verify_password(user.password_hash, password):
        raise Unauthorized(
            "The current password is wrong.",
            code="bad_credentials",
            details={"field": "current_password"},
        )
    _password_was_right(session, settings, user.email, ip)


def change_password(
    session: Session,
    user: User,
    *,
    current_password: str,
    new_password: str,
    ip: str | None = None,
) -> None:
    """Set a new password after checking the current one. Every API token and every browser
    session of the user ends (the caller starts a new session for the current browser)."""
    check_password(new_password)
    check_current_password(session, user, current_password, ip=ip)
    _set_password(session, user, new_password)
    session.commit()


def _set_password(session: Session, user: User, new_password: str) -> None:
    """The new password hash (reset links die with the old one), all tokens and web
    sessions revoked; the caller commits."""
    user.password_hash = hash_password(new_password)
    session.add(user)
    revoke_everything(session, user)


def revoke_everything(session: Session, user: User) -> None:
    """End every API token and every browser session of ``user`` (the caller commits)."""
    now = utcnow()
    session.exec(
        update(ApiToken)
        .where(col(ApiToken.user_id) == user.id, col(ApiToken.revoked_at).is_(None))
        .values(revoked_at=now)
    )
    session.exec(delete(WebSession).where(col(WebSession.user_id) == user.id))
    session.flush()


# --- email verification ----------------------------------------------------------------------


def make_email_verification_token(settings: Settings, user: User) -> str:
    return sign(
        settings.effective_secret_key(), "verify-email", {"uid": user.id, "email": user.email}
    )


def verify_email(session: Session, settings: Settings, token: str) -> User:
    """Mark the address verified; Invalid when the link is forged, expired or outdated."""
    payload = unsign(settings.effective_secret_key(), "verify-email", token, VERIFY_MAX_AGE)
    user = _user_from_payload(session, payload)
    if user is None or not isinstance(payload, dict) or payload.get("email") != user.email:
        raise Invalid("This verification link is invalid or has expired.", code="invalid_token")
    if user.email_verified_at is None:
        user.email_verified_at = utcnow()
        session.add(user)
        session.commit()
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
    link = _link(settings, VERIFY_PATH, make_email_verification_token(settings, user))
    _send_template(settings, user, "verify", email=user.email, link=link)


# --- password reset --------------------------------------------------------------------------


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
    link = _link(settings, RESET_PATH, make_password_reset_token(settings, user), fragment=True)
    hours = max(1, RESET_MAX_AGE // 3600)
    _send_template(settings, user, "reset", email=user.email, link=link, hours=hours)


def reset_password(session: Session, settings: Settings, *, token: str, new_password: str) -> User:
    """Set a new password from an emailed link (each link works once)."""
    payload = unsign(settings.effective_secret_key(), "password-reset", token, RESET_MAX_AGE)
    user = _user_from_payload(session, payload)
    if (
        user is None
        or not isinstance(payload, dict)
        or not hmac.compare_digest(str(payload.get("ph", "")), _password_fingerprint(user))
    ):
        raise Invalid("This reset link is invalid, expired or already used.", code="invalid_token")
    check_password(new_password)
    _set_password(session, user, new_password)
    session.commit()
    return user


def sms_reset_available(settings: Settings) -> bool:
    """True when a real SMS provider is configured for reset codes (the console adapter
    delivers nothing, so it does not count)."""
    return settings.sms_provider not in ("none", "console")


def email_reset_available(settings: Settings) -> bool:
    """True when SMTP is configured, so an emailed reset link can arrive."""
    return bool(settings.smtp_host)


def _code_hash(settings: Settings, user_id: int, code: str) -> str:
    key = settings.effective_secret_key().encode()
    return hmac.new(key, f"{user_id}:{code}".encode(), hashlib.sha256).hexdigest()


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
    throttle.hit(session, settings, "sms_reset", user.id)
    code = _new_code(session, settings, user.id, "reset")
    session.commit()
    minutes = int(SMS_CODE_TTL.total_seconds() // 60)
    text = translate(
        language(user.language),
        "Timely Push password reset code: %(code)s (valid %(minutes)s min)",
        code=code,
        minutes=minutes,
    )
    _send_sms(settings, user.phone, text)


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
    row = _take_code(session, settings, user.id, "reset", code)
    if row is None:
        raise bad
    row.used_at = utcnow()
    session.add(row)
    _set_password(session, user, new_password)
    session.commit()
    return user


def _new_code(session: Session, settings: Settings, user_id: int, purpose: str) -> str:
    """A fresh 6-digit code for ``purpose`` (it replaces the user's older ones); the
    caller commits and sends it."""
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


def _take_code(
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
        session.commit()
        return None
    row.used_at = utcnow()
    session.add(row)
    return row


def send_phone_code(session: Session, settings: Settings, user: User) -> None:
    """Text a 6-digit code to the profile's phone number to confirm it (rate-limited)."""
    if not user.phone:
        raise Invalid("Add a phone number first.", code="no_phone", details={"field": "phone"})
    if not sms_reset_available(settings):
        raise Invalid("This server cannot send SMS.", code="sms_unavailable")
    assert user.id is not None
    throttle.hit(session, settings, "phone_code", user.id)
    code = _new_code(session, settings, user.id, "phone")
    session.commit()
    minutes = int(SMS_CODE_TTL.total_seconds() // 60)
    text = translate(
        language(user.language),
        "Timely Push phone verification code: %(code)s (valid %(minutes)s min)",
        code=code,
        minutes=minutes,
    )
    _send_sms(settings, user.phone, text)


def confirm_phone(session: Session, settings: Settings, user: User, code: str) -> User:
    """Mark the phone number verified with the texted code (single use, expiring)."""
    assert user.id is not None
    if not user.phone or _take_code(session, settings, user.id, "phone", code) is None:
        raise Invalid(
            "The code is wrong or has expired.", code="invalid_code", details={"field": "code"}
        )
    user.phone_verified_at = utcnow()
    session.add(user)
    session.commit()
    return user


# --- profile ---------------------------------------------------------------------------------


def update_profile(session: Session, user: User, data: ProfileUpdate) -> User:
    """Apply the fields set in ``data``; a new email address must be verified again."""
    changes: dict[str, Any] = data.model_dump(exclude_unset=True)
    if "email" in changes:
        if changes["email"] is None:
            raise Invalid("Enter your email address.", details={"field": "email"})
        email = clean_email(changes.pop("email"))
        if email != user.email:
            other = crud.get_user_by_email(session, email=email)
            if other is not None and other.id != user.id:
                raise Conflict(
                    "An account for %(email)s already exists.",
                    code="email_taken",
                    details={"field": "email"},
                    params={"email": email},
                )
            user.email = email
            user.email_verified_at = None
    if "timezone" in changes:
        tz = (changes["timezone"] or "").strip()
        try:
            ZoneInfo(tz)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise Invalid(
                "Unknown time zone “%(tz)s” (use a name like Asia/Shanghai).",
                code="invalid_timezone",
                details={"field": "timezone"},
                params={"tz": tz},
            ) from exc
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
    if "phone" in changes:
        changes["phone"] = _clean_phone(changes["phone"])
        if changes["phone"] != user.phone:
            user.phone_verified_at = None  # a new number is confirmed by a code again
    if changes.get("webhook_url"):
        url = normalize_url(changes["webhook_url"], field="webhook_url")
        run_sync(guard(_settings(), url, field="webhook_url"))
        changes["webhook_url"] = url
        user.webhook_disabled_at = None
    elif "webhook_url" in changes:
        changes["webhook_url"] = None
    for field in ("language", "push_mode"):
        if field in changes and changes[field] is None:
            changes.pop(field)
    for field in (
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
        session.commit()
    except IntegrityError as exc:
        session.rollback()
        raise Conflict("That email address is taken.", code="email_taken") from exc
    session.refresh(user)
    return user


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
    session.commit()
    return secret


# --- API tokens ------------------------------------------------------------------------------


def issue_token(session: Session, user: User, *, name: str) -> tuple[str, ApiToken]:
    """A new bearer token for a device: (plaintext, shown once; the stored row, hashed)."""
    if user.id is None:
        raise NotFound("No such user.")
    name = "".join(ch for ch in (name or "") if ch.isprintable())
    plaintext = new_token("tp")
    row = ApiToken(
        user_id=user.id,
        name=(name or "device").strip()[:100] or "device",
        token_hash=hash_token(plaintext),
        expires_at=utcnow() + timedelta(days=_settings().api_token_days),
    )
    session.add(row)
    session.commit()
    session.refresh(row)
    return plaintext, row


def list_tokens(session: Session, user: User) -> list[ApiToken]:
    """The user's tokens that still work, newest first."""
    return list(
        session.exec(
            select(ApiToken)
            .where(ApiToken.user_id == user.id, col(ApiToken.revoked_at).is_(None))
            .order_by(col(ApiToken.created_at).desc(), col(ApiToken.id).desc())
        )
    )


def get_token(session: Session, user: User, token_id: int) -> ApiToken:
    """One of the user's active tokens; NotFound for other users' or revoked tokens."""
    row = session.get(ApiToken, token_id)
    if row is None or row.user_id != user.id or row.revoked_at is not None:
        raise NotFound("No such token.", code="token_not_found")
    return row


def refresh_token(session: Session, user: User, token_id: int) -> ApiToken:
    """Give one of the user's tokens a full lifetime again from now (it must still work:
    an expired token is dead, its device logs in again)."""
    row = get_token(session, user, token_id)
    now = utcnow()
    if row.expires_at is not None and row.expires_at <= now:
        raise NotFound("No such token.", code="token_not_found")
    row.expires_at = now + timedelta(days=_settings().api_token_days)
    session.add(row)
    session.commit()
    return row


def revoke_token(session: Session, user: User, token_id: int) -> ApiToken:
    """Revoke one of the user's tokens; NotFound for other users' or revoked tokens."""
    row = get_token(session, user, token_id)
    row.revoked_at = utcnow()
    session.add(row)
    session.commit()
    return row


def user_for_token(session: Session, token: str) -> User | None:
    """The active user a bearer token belongs to, or None (unknown, revoked, expired)."""
    if not token:
        return None
    found = session.exec(
        select(ApiToken, User)
        .join(User, col(User.id) == ApiToken.user_id)
        .where(ApiToken.token_hash == hash_token(token))
    ).first()
    if found is None:
        return None
    row, user = found
    now = utcnow()
    if row.revoked_at is not None or not user.is_active:
        return None
    if row.expires_at is not None and row.expires_at <= now:
        return None
    if row.last_used_at is None or now - row.last_used_at >= TOKEN_TOUCH_INTERVAL:
        row.last_used_at = now
        session.add(row)
        session.commit()
    return user


# --- plumbing --------------------------------------------------------------------------------


def _user_from_payload(session: Session, payload: object) -> User | None:
    if not isinstance(payload, dict) or not isinstance(payload.get("uid"), int):
        return None
    user = session.get(User, payload["uid"])
    if user is None or not user.is_active:
        return None
    return user


def _link(settings: Settings, path: str, token: str, *, fragment: bool = False) -> str:
    sep = "#" if fragment else "?"
    return f"{settings.base_url.rstrip('/')}{path}{sep}{urlencode({'token': token})}"


def _settings() -> Settings:
    from app.core.config import get_settings

    return get_settings()


def _send_template(settings: Settings, user: User, template: str, **context: object) -> None:
    """Render an account email template (verify, reset) and hand it to the mailer."""
    from app.services.mailer import render_account_email

    subject, text, html = render_account_email(template, user.language, **context)
    _send_email(settings, user.email, subject, text, html)


def _send_email(
    settings: Settings, to: str, subject: str, text: str, html: str | None = None
) -> None:
    """Send an account email now (SMTP when configured, else a logged warning)."""
    from app.services.mailer import send_account_email

    send_account_email(settings, to, subject, text, html)


def _send_sms(settings: Settings, phone: str, text: str) -> None:
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
