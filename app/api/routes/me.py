"""``/api/v1/me``: the caller's profile, push preferences, webhook secret and password."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Body, Request, status

from app.api.deps import CurrentUser, SessionDep, SettingsDep
from app.api.errors import responses
from app.api.schemas import (
    Accepted,
    AccountDeletion,
    ChannelTestResult,
    PasswordChange,
    PhoneConfirm,
    WebhookSecret,
)
from app.models import ProfileUpdate, UserPublic
from app.services import account_data, auth, delivery_actions, profile, verification

router = APIRouter(prefix="/me", tags=["me"], responses=responses(401, 422))

_PROFILE_EXAMPLES = {
    "digest": {
        "summary": "Daily digest at 08:30 Beijing time, quiet at night",
        "value": {
            "timezone": "Asia/Shanghai",
            "language": "zh",
            "push_mode": "digest",
            "digest_time": "08:30",
            "quiet_start": "22:00",
            "quiet_end": "07:00",
        },
    },
    "webhook": {
        "summary": "Instant pushes to a webhook",
        "value": {
            "push_mode": "instant",
            "webhook_enabled": True,
            "webhook_url": "https://hooks.example.com/timelypush",
        },
    },
}


@router.get("", summary="The caller's profile")
def read_me(user: CurrentUser) -> UserPublic:
    return UserPublic.model_validate(user)


@router.patch("", responses=responses(403, 409), summary="Change profile and push preferences")
def update_me(
    request: Request,
    user: CurrentUser,
    session: SessionDep,
    settings: SettingsDep,
    body: ProfileUpdate = Body(openapi_examples=_PROFILE_EXAMPLES),  # type: ignore[arg-type]
) -> UserPublic:
    """A new ``email`` takes ``current_password`` and must be verified again; the old address
    is told of the change."""
    old_email = user.email
    updated = profile.update_profile(
        session, user, body, ip=request.client.host if request.client else None
    )
    session.commit()
    if updated.email != old_email:
        profile.tell_old_address(settings, updated, old_email)
    return UserPublic.model_validate(updated)


@router.get("/export", summary="Everything stored for the caller, as JSON")
def export_me(user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    return account_data.export_user(session, user)


@router.delete(
    "",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=responses(403, 429),
    summary="Delete the account and all its data (the password confirms)",
)
def delete_me(
    body: AccountDeletion, request: Request, user: CurrentUser, session: SessionDep
) -> None:
    account_data.delete_account(
        session,
        user,
        password=body.password,
        ip=request.client.host if request.client else None,
    )
    session.commit()


@router.post(
    "/phone/code",
    status_code=status.HTTP_202_ACCEPTED,
    responses=responses(429),
    summary="Text a code to the profile's phone number (SMS pushes need a verified number)",
)
def send_phone_code(user: CurrentUser, session: SessionDep, settings: SettingsDep) -> Accepted:
    verification.send_phone_code(session, settings, user)
    return Accepted(message="A code is on its way to the phone number of the profile.")


@router.post("/phone/confirm", summary="Confirm the phone number with the texted code")
def confirm_phone(
    body: PhoneConfirm, user: CurrentUser, session: SessionDep, settings: SettingsDep
) -> UserPublic:
    confirmed = verification.confirm_phone(session, settings, user, body.code)
    session.commit()
    return UserPublic.model_validate(confirmed)


@router.post(
    "/webhook-secret",
    summary="Rotate the webhook signing secret (returned once)",
)
def rotate_webhook_secret(user: CurrentUser, session: SessionDep) -> WebhookSecret:
    secret = profile.rotate_webhook_secret(session, user)
    session.commit()
    return WebhookSecret(secret=secret)


@router.post(
    "/password",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=responses(403, 429),
    summary="Change the password (every API token and web session ends: log in again)",
)
def change_password(
    body: PasswordChange, request: Request, user: CurrentUser, session: SessionDep
) -> None:
    auth.change_password(
        session,
        user,
        current_password=body.current_password,
        new_password=body.new_password,
        ip=request.client.host if request.client else None,
    )
    session.commit()


@router.post(
    "/test/{channel}",
    responses=responses(429),
    summary="Send a test message now to the profile's address for a channel",
)
def send_test_message(
    channel: Literal["email", "webhook", "sms"],
    user: CurrentUser,
    session: SessionDep,
    settings: SettingsDep,
) -> ChannelTestResult:
    result = delivery_actions.send_channel_test(session, settings, user, channel)
    return ChannelTestResult(ok=result.ok, error=None if result.ok else result.error)
