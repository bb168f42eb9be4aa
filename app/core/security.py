"""Password hashing (argon2), opaque tokens stored hashed, signed one-time links."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

_hasher = PasswordHasher()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    return _hasher.check_needs_rehash(password_hash)


def new_token(prefix: str = "tp") -> str:
    """An opaque bearer token; only its hash is stored."""
    return f"{prefix}_{secrets.token_urlsafe(32)}"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def constant_time_equal(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


def sign(secret_key: str, salt: str, payload: object) -> str:
    return URLSafeTimedSerializer(secret_key, salt=salt).dumps(payload)


def unsign(secret_key: str, salt: str, token: str, max_age: int) -> object | None:
    """The payload of a signed token, or None when forged or expired."""
    signed = unsign_dated(secret_key, salt, token, max_age)
    return None if signed is None else signed[0]


def unsign_dated(
    secret_key: str, salt: str, token: str, max_age: int
) -> tuple[object, datetime] | None:
    """The payload of a signed token and when it was signed (UTC), or None when forged or
    expired."""
    try:
        payload, at = URLSafeTimedSerializer(secret_key, salt=salt).loads(
            token, max_age=max_age, return_timestamp=True
        )
    except (BadSignature, SignatureExpired):
        return None
    return payload, at.astimezone(UTC)


_CLOCK_SLACK = timedelta(seconds=2)
"""A token's timestamp counts whole seconds: a row made in the second it was signed in is
not younger than it."""


def predates(created_at: datetime, signed_at: datetime) -> bool:
    """Whether a row existed when a link naming it was signed. A link names its row by id,
    and a database may hand a deleted row's id to a new one (SQLite does): the new row, made
    after the link, is not the one it names."""
    if created_at.tzinfo is None:
        created_at = created_at.replace(tzinfo=UTC)
    return created_at <= signed_at + _CLOCK_SLACK
