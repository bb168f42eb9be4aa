"""Sign-up, login and passwords: the stored form of an email address, registration, login
with throttling, checking and changing the password, and ending every session of a user.

The functions flush; the caller (a request, a command) commits.
"""

from __future__ import annotations

import logging
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from email_validator import EmailNotValidError, validate_email
from sqlalchemy import delete, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app.core.config import Settings, get_settings
from app.core.security import hash_password, needs_rehash, verify_password
from app.models import ApiToken, User, WebSession, utcnow
from app.services import throttle
from app.services.errors import Conflict, Invalid, Unauthorized, WrongPassword

logger = logging.getLogger(__name__)

LANGUAGES = ("zh", "en")
MIN_PASSWORD = 8
MAX_PASSWORD = 256

_DUMMY_HASH = hash_password("timing-equaliser-not-a-password")


# --- validation ------------------------------------------------------------------------------


def clean_email(email: str) -> str:
    """The one stored form of an address (email-validator's normalisation, lowercased), the
    same everywhere: sign-up, login, the CLI, profile changes; Invalid with the reason."""
    try:
        info = validate_email((email or "").strip(), check_deliverability=False)
    except EmailNotValidError as exc:
        raise Invalid(
            "Enter a valid email address.",
            code="invalid_email",
            details={"field": "email", "reason": str(exc)},
        ) from exc
    return info.normalized.lower()


def normalize_email(email: str) -> str:
    """The form an address is stored and looked up in (``clean_email`` when it is valid);
    never raises, so a login with a malformed address is just a wrong login."""
    try:
        return clean_email(email)
    except Invalid:
        # no NUL or lone surrogate reaches a query (PostgreSQL refuses NUL in text)
        text = (email or "").replace("\x00", "").encode("utf-8", "replace").decode()
        return text.strip().lower()


def get_user_by_email(session: Session, *, email: str) -> User | None:
    """The account with this address (in any spelling ``normalize_email`` maps to it)."""
    return session.exec(select(User).where(User.email == normalize_email(email))).first()


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


# --- registration and login ------------------------------------------------------------------


def known_zone(name: str | None) -> str | None:
    """``name`` (stripped) if the time zone database knows it (``Europe/London``), else
    None."""
    name = (name or "").strip()
    if not name or len(name) > 64:
        return None
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None
    return name


def register_user(
    session: Session,
    *,
    email: str,
    password: str,
    language: str | None = None,
    ip: str | None = None,
    verified: bool = False,
    timezone: str | None = None,
) -> User:
    """Create an account, unverified unless ``verified`` (the administrator's ``timelypush
    user create``); Conflict when the address is taken. A sign-up from the web or the API
    (``ip`` given) counts against the "register_ip" limit. ``timezone`` is the browser's
    (the sign-up form sends it); one the zone database does not know is ignored, and the
    account then keeps China's time in Chinese, UTC in English."""
    email = clean_email(email)
    check_password(password)
    if language is not None and language not in LANGUAGES:
        raise Invalid("Choose Chinese (zh) or English (en).", details={"field": "language"})
    if ip is not None:
        throttle.hit(session, get_settings(), "register_ip", ip)
    if get_user_by_email(session, email=email) is not None:
        raise Conflict(
            "An account for %(email)s already exists.",
            code="email_taken",
            details={"field": "email"},
            params={"email": email},
        )
    language = language or "zh"
    user = User(
        email=email,
        password_hash=hash_password(password),
        language=language,
        timezone=known_zone(timezone) or ("Asia/Shanghai" if language == "zh" else "UTC"),
        email_verified_at=utcnow() if verified else None,
    )
    session.add(user)
    try:
        session.flush()
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
    settings = get_settings()
    _count_password_attempt(session, settings, address, ip)
    user = session.exec(select(User).where(User.email == address)).first()
    ok = verify_password(user.password_hash if user else _DUMMY_HASH, password)
    if user is None or not ok or not user.is_active:
        raise Unauthorized("Wrong email or password.", code="bad_credentials")
    _password_was_right(session, settings, address, ip)
    if needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)
        session.add(user)
    session.flush()
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


# --- passwords -------------------------------------------------------------------------------


def check_current_password(
    session: Session, user: User, password: str, *, ip: str | None = None
) -> None:
    """WrongPassword unless ``password`` is the user's (throttled like a login)."""
    settings = get_settings()
    _count_password_attempt(session, settings, user.email, ip)
    if not verify_password(user.password_hash, password):
        raise WrongPassword(
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
    set_password(session, user, new_password)
    session.flush()


def set_password(session: Session, user: User, new_password: str) -> None:
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
