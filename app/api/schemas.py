"""Request and response bodies specific to the API (the model families live in app.models)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import Query
from pydantic import AliasChoices, BaseModel, Field, StrictBool

from app.models import MatchPublic

MAX_ID = 2**31 - 1


class RegisterRequest(BaseModel):
    """Sign-up: email, password and optionally the interface language and the device's time
    zone (an IANA name; one the zone database does not know is ignored, and the account
    keeps China's time in Chinese, UTC in English)."""

    email: str = Field(max_length=320, examples=["alice@example.com"])
    password: str = Field(min_length=8, max_length=256, examples=["correct horse battery"])
    language: Literal["zh", "en"] | None = Field(default=None, examples=["zh"])
    timezone: str | None = Field(default=None, max_length=64, examples=["Europe/London"])


class TokenRequest(BaseModel):
    """Log-in credentials: the OAuth2 password form, or the same fields as JSON (``email`` may
    stand for ``username``)."""

    username: str = Field(
        max_length=320,
        validation_alias=AliasChoices("username", "email"),
        examples=["alice@example.com"],
    )
    password: str = Field(max_length=256, examples=["correct horse battery"])
    device_name: str = Field(default="device", max_length=100, examples=["Pixel 8"])
    grant_type: Literal["password"] | None = None


class TokenResponse(BaseModel):
    """An issued API token and when it expires."""

    access_token: str = Field(description="Bearer token; shown once, store it on the device.")
    token_type: Literal["bearer"] = "bearer"  # noqa: S105 (the OAuth2 token type)
    token_id: int
    name: str
    expires_at: datetime | None = Field(
        default=None, description="When the token stops working (null: until revoked)."
    )

    model_config = {
        "json_schema_extra": {
            "examples": [
                {"access_token": "tp_3Zk…", "token_type": "bearer", "token_id": 7, "name": "Pixel"}
            ]
        }
    }


class VerifyRequest(BaseModel):
    """The token of an email-confirmation link."""

    token: str = Field(max_length=2000, description="The token from the emailed link.")


class PhoneConfirm(BaseModel):
    """The code sent by SMS to confirm a phone number."""

    code: str = Field(max_length=12, description="The 6-digit code texted to the phone.")


class ResetRequest(BaseModel):
    """Ask for a password reset by email or SMS."""

    email: str = Field(max_length=320, examples=["alice@example.com"])


class ResetConfirm(BaseModel):
    """Set a new password with the token of a reset link."""

    token: str = Field(max_length=2000)
    new_password: str = Field(min_length=8, max_length=256)


class SmsResetConfirm(BaseModel):
    """Set a new password with the code sent by SMS."""

    email: str = Field(max_length=320)
    code: str = Field(min_length=6, max_length=6, pattern=r"^\d{6}$", examples=["042917"])
    new_password: str = Field(min_length=8, max_length=256)


class AccountDeletion(BaseModel):
    """Delete the account: the current password confirms it."""

    password: str = Field(max_length=256, description="The current password, to confirm.")


class PasswordChange(BaseModel):
    """Change the password: the current one and the new one."""

    current_password: str = Field(max_length=256)
    new_password: str = Field(min_length=8, max_length=256)


class Accepted(BaseModel):
    """The request was taken; the work happens in the background."""

    status: Literal["accepted"] = "accepted"
    message: str


class WebhookSecret(BaseModel):
    """A new webhook signing secret, shown once."""

    secret: str = Field(description="Shown once: sign-verify webhook deliveries with it.")


class MatchPage(BaseModel):
    """One page of the feed; pass ``next_cursor`` as ``cursor`` for the next page."""

    items: list[MatchPublic]
    next_cursor: str | None = None


class MatchUpdate(BaseModel):
    """Mark one message read or unread."""

    read: bool = Field(description="true = mark read, false = mark unread")


class BulkRequest(BaseModel):
    """One action on many messages."""

    ids: list[Annotated[int, Field(ge=1, le=MAX_ID)]] = Field(
        max_length=500, examples=[[101, 102, 103]]
    )
    action: Literal["read", "unread", "delete"]


class BulkResult(BaseModel):
    """What a bulk action changed."""

    changed: int = Field(description="How many of the given messages changed.")


class ChannelTestResult(BaseModel):
    """What a test message through one channel did."""

    ok: bool = Field(description="The channel accepted the message.")
    error: str | None = Field(default=None, description="Why it did not, when it did not.")


class FeedLinks(BaseModel):
    """The secret Atom feed URLs (anyone with a link can read the feed; rotate to revoke)."""

    messages: str = Field(description="Atom feed of all the caller's messages.")
    concerns: dict[int, str] = Field(description="Atom feed of each concern, by concern id.")


class FeedbackRequest(BaseModel):
    """The caller's verdict on a message; the concern's model retrains from it next visit."""

    relevant: StrictBool | None = Field(
        description="true = relevant (👍), false = not relevant (👎), null = clear the verdict",
        examples=[False],
    )


class LearnedTerm(BaseModel):
    """A word the concern's model learned, with its weight."""

    term: str
    weight: float = Field(description="The model's weight for the term (higher = stronger).")


class LearnedTerms(BaseModel):
    """What the concern's model learned, and what the user did about it."""

    terms: list[LearnedTerm] = Field(description="Strongest learned terms, strongest first.")
    blocked: list[str] = Field(description="Terms the user removed; never used again.")
    synonyms: list[str] = Field(description="The concern's synonyms (promoted terms land here).")
    feedback: int = Field(description="How many verdicts the user gave on its messages.")


TOTAL_HEADER = "X-Total-Count"
WithTotal = Annotated[
    bool,
    Query(
        description="true: also count everything the query matches, in the "
        "`X-Total-Count` response header (costs one more query)"
    ),
]
TOTAL_COUNT: dict[int | str, dict[str, Any]] = {
    200: {
        "headers": {
            TOTAL_HEADER: {
                "description": "With `with_total=true`: how many items the query matches in all",
                "schema": {"type": "integer"},
            }
        }
    }
}
