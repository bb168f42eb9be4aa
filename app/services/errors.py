"""The service exception tree. The REST API and the web pages map these to responses.

::

    ServiceError                 (code, message, details)
    ├── NotFound         404     missing, or owned by someone else (never tell which)
    ├── Conflict         409     a uniqueness rule (email taken, …)
    ├── Invalid          422     input a user can fix (bad URL, too many keywords, …)
    ├── Throttled        429     too many attempts; ``retry_after`` seconds
    └── Unauthorized     401     wrong credentials, bad or expired token

Messages are written for the person who sees them: the first argument is a message id of the
translation catalogue (English, ``%(name)s`` placeholders filled from ``params``), translated
where the error is shown (``app.core.i18n``); ``message`` is the English text. ``code`` is a
stable machine-readable identifier, ``details`` optional structured context (the field in
error, …).
"""

from __future__ import annotations

from typing import Any, ClassVar

from app.core.i18n import translate


class ServiceError(Exception):
    """Base of every error a use case reports to its caller."""

    status: ClassVar[int] = 400
    default_code: ClassVar[str] = "error"

    def __init__(
        self,
        msgid: str,
        *,
        code: str | None = None,
        details: dict[str, Any] | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        self.msgid = msgid
        self.params: dict[str, Any] = params or {}
        try:
            self.message = msgid % self.params
        except (KeyError, TypeError, ValueError):
            self.message = msgid
        super().__init__(self.message)
        self.code = code or self.default_code
        self.details: dict[str, Any] = details or {}

    def text(self, lang: str) -> str:
        """The message in ``lang`` (``zh`` or ``en``)."""
        return translate(lang, self.msgid, **self.params)


class NotFound(ServiceError):
    """Missing, or someone else's (the answer never tells which)."""

    status = 404
    default_code = "not_found"


class Conflict(ServiceError):
    """A uniqueness rule refused the change."""

    status = 409
    default_code = "conflict"


class Invalid(ServiceError):
    """Input the user can fix."""

    status = 422
    default_code = "invalid"


class Throttled(ServiceError):
    """Too many attempts; ``retry_after`` says how long to wait."""

    status = 429
    default_code = "throttled"

    def __init__(
        self,
        msgid: str,
        *,
        retry_after: int = 60,
        code: str | None = None,
        details: dict[str, Any] | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        minutes = max(1, (retry_after + 59) // 60)
        super().__init__(
            msgid,
            code=code,
            details={"retry_after": retry_after, **(details or {})},
            params={"minutes": minutes, **(params or {})},
        )
        self.retry_after = retry_after


class Unauthorized(ServiceError):
    """Wrong credentials, or a bad or expired token."""

    status = 401
    default_code = "unauthorized"


class WrongPassword(ServiceError):
    """The current password given to confirm a change is wrong. The caller is logged in (a
    401 would tell an app its session ended), so 403."""

    status = 403
    default_code = "bad_credentials"


__all__ = [
    "Conflict",
    "Invalid",
    "NotFound",
    "ServiceError",
    "Throttled",
    "Unauthorized",
    "WrongPassword",
]
