"""Account data functions shared by the CLI and the account services: the one stored form of
an email address, looking an account up by it, and creating a verified account from the shell.
Every other table is read and written by the use case that owns it, in ``app.services``."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from app.core.security import hash_password
from app.models import User, utcnow


class CrudError(Exception):
    """A data rule refused the change (duplicate, missing, invalid)."""


def normalize_email(email: str) -> str:
    """The one stored form of an address (email-validator's normalisation, lowercased), the
    same everywhere: sign-up, login, the CLI, profile changes."""
    from email_validator import EmailNotValidError, validate_email

    try:
        info = validate_email((email or "").strip(), check_deliverability=False)
    except EmailNotValidError as exc:
        raise CrudError(f"not an email address: {email!r} ({exc})") from exc
    return info.normalized.lower()


def get_user_by_email(session: Session, *, email: str) -> User | None:
    return session.exec(select(User).where(User.email == normalize_email(email))).first()


def create_user(session: Session, *, email: str, password: str, verified: bool = False) -> User:
    if len(password) < 8:
        raise CrudError("password must be at least 8 characters")
    email = normalize_email(email)
    if get_user_by_email(session, email=email) is not None:
        raise CrudError(f"an account for {email} already exists")
    user = User(
        email=email,
        password_hash=hash_password(password),
        email_verified_at=utcnow() if verified else None,
    )
    session.add(user)
    try:
        session.flush()
    except IntegrityError as exc:
        session.rollback()
        raise CrudError(f"an account for {email} already exists") from exc
    session.refresh(user)
    return user
