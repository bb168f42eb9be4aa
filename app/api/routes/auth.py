"""``/api/v1/auth``: register, bearer tokens (OAuth2 password flow), email verification,
password reset by emailed link or SMS code."""

from __future__ import annotations

import logging
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request, status
from fastapi.security import OAuth2PasswordRequestForm

from app.api.deps import CurrentUser, OwnedToken, SessionDep, SettingsDep
from app.api.errors import responses
from app.api.schemas import (
    Accepted,
    RegisterRequest,
    ResetConfirm,
    ResetRequest,
    SmsResetConfirm,
    TokenResponse,
    VerifyRequest,
)
from app.models import ApiTokenPublic, UserPublic
from app.services import accounts

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/auth", tags=["auth"], responses=responses(422))


def _ip(request: Request) -> str | None:
    return request.client.host if request.client else None


@router.post(
    "/register",
    status_code=status.HTTP_201_CREATED,
    responses=responses(409, 429),
    summary="Create an account (a verification email is sent)",
)
def register(
    body: RegisterRequest, request: Request, session: SessionDep, settings: SettingsDep
) -> UserPublic:
    user = accounts.register_user(
        session,
        email=body.email,
        password=body.password,
        language=body.language,
        ip=_ip(request) or "",
    )
    try:
        accounts.send_verification_email(settings, user)
    except Exception:  # the account exists; the user can ask for the email again
        logger.exception("verification email to user %s failed", user.id)
    return UserPublic.model_validate(user)


@router.post(
    "/token",
    responses=responses(401, 429),
    summary="Log in: OAuth2 password form → bearer token for this device",
)
def token(
    form: Annotated[OAuth2PasswordRequestForm, Depends()],
    request: Request,
    session: SessionDep,
    device_name: Annotated[str, Form(max_length=100)] = "device",
) -> TokenResponse:
    ip = request.client.host if request.client else None
    user = accounts.authenticate(session, email=form.username, password=form.password, ip=ip)
    plaintext, row = accounts.issue_token(session, user, name=device_name)
    assert row.id is not None
    return TokenResponse(access_token=plaintext, token_id=row.id, name=row.name)


@router.get("/tokens", responses=responses(401), summary="The caller's active tokens")
def list_tokens(user: CurrentUser, session: SessionDep) -> list[ApiTokenPublic]:
    return [ApiTokenPublic.model_validate(t) for t in accounts.list_tokens(session, user)]


@router.get("/tokens/{token_id}", responses=responses(401, 404), summary="One active token")
def get_token(token: OwnedToken) -> ApiTokenPublic:
    return ApiTokenPublic.model_validate(token)


@router.post(
    "/tokens/{token_id}/refresh",
    responses=responses(401, 404),
    summary="Extend a token's lifetime (TIMELYPUSH_API_TOKEN_DAYS from now)",
)
def refresh_token(token: OwnedToken, user: CurrentUser, session: SessionDep) -> ApiTokenPublic:
    assert token.id is not None
    return ApiTokenPublic.model_validate(accounts.refresh_token(session, user, token.id))


@router.delete(
    "/tokens/{token_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=responses(401, 404),
    summary="Revoke a token (log a device out)",
)
def revoke_token(token: OwnedToken, user: CurrentUser, session: SessionDep) -> None:
    assert token.id is not None
    accounts.revoke_token(session, user, token.id)


@router.post("/verify", summary="Confirm the email address with the emailed token")
def verify(body: VerifyRequest, session: SessionDep, settings: SettingsDep) -> UserPublic:
    return UserPublic.model_validate(accounts.verify_email(session, settings, body.token))


@router.post(
    "/verify/resend",
    status_code=status.HTTP_202_ACCEPTED,
    responses=responses(401, 429),
    summary="Send the verification email again",
)
def resend_verification(user: CurrentUser, session: SessionDep, settings: SettingsDep) -> Accepted:
    accounts.resend_verification(session, settings, user)
    return Accepted(message="If the address is not verified yet, a new link is on its way.")


@router.post(
    "/password-reset",
    status_code=status.HTTP_202_ACCEPTED,
    responses=responses(429),
    summary="Email a single-use password-reset link",
)
def request_reset(
    body: ResetRequest, request: Request, session: SessionDep, settings: SettingsDep
) -> Accepted:
    accounts.request_password_reset(session, settings, email=body.email, ip=_ip(request))
    return Accepted(message="If an account exists for this address, a reset link was sent.")


@router.post("/password-reset/confirm", summary="Set a new password with the emailed token")
def confirm_reset(body: ResetConfirm, session: SessionDep, settings: SettingsDep) -> UserPublic:
    user = accounts.reset_password(
        session, settings, token=body.token, new_password=body.new_password
    )
    return UserPublic.model_validate(user)


@router.post(
    "/password-reset/sms",
    status_code=status.HTTP_202_ACCEPTED,
    responses=responses(429),
    summary="Text a 6-digit reset code to the account's phone",
)
def request_sms_reset(
    body: ResetRequest, request: Request, session: SessionDep, settings: SettingsDep
) -> Accepted:
    accounts.request_sms_reset(session, settings, email=body.email, ip=_ip(request))
    return Accepted(message="If the account has a phone number, a code was sent.")


@router.post("/password-reset/sms/confirm", summary="Set a new password with the SMS code")
def confirm_sms_reset(
    body: SmsResetConfirm, session: SessionDep, settings: SettingsDep
) -> UserPublic:
    user = accounts.reset_password_with_code(
        session, settings, email=body.email, code=body.code, new_password=body.new_password
    )
    return UserPublic.model_validate(user)
