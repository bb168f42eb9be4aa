"""``/api/v1/auth``: register, bearer tokens (OAuth2 password flow), email verification,
password reset by emailed link or SMS code."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response, status
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from app.api.deps import CurrentUser, OwnedToken, SessionDep, SettingsDep
from app.api.errors import responses
from app.api.schemas import (
    TOTAL_COUNT,
    TOTAL_HEADER,
    Accepted,
    RegisterRequest,
    ResetConfirm,
    ResetRequest,
    SmsResetConfirm,
    TokenRequest,
    TokenResponse,
    VerifyRequest,
    WithTotal,
)
from app.models import ApiTokenPublic, UserPublic
from app.services import auth, password_reset, tokens, verification

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
    body: RegisterRequest,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    response: Response,
) -> UserPublic:
    user = auth.register_user(
        session,
        email=body.email,
        password=body.password,
        language=body.language,
        ip=_ip(request) or "",
        timezone=body.timezone,
    )
    session.commit()
    response.headers["Location"] = "/api/v1/me"  # the new account, once logged in
    try:
        verification.send_verification_email(settings, user)
    except Exception:  # the account exists; the user can ask for the email again
        logger.exception("verification email to user %s failed", user.id)
    return UserPublic.model_validate(user)


async def token_request(request: Request) -> TokenRequest:
    """The credentials, from an OAuth2 password form or a JSON body (the same fields)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    raw: Any
    try:
        if kind == "application/json":
            raw = await request.json()
        else:
            raw = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
    except ValueError:
        raw = None
    if not isinstance(raw, dict):
        raise RequestValidationError(
            [{"type": "model_type", "loc": ("body",), "msg": "Send a JSON object or a form."}]
        )
    try:
        return TokenRequest.model_validate(raw)
    except ValidationError as exc:
        # never echo the submitted values back: one of them is a password
        errors = [
            {"type": e["type"], "loc": ("body", *e["loc"]), "msg": e["msg"]}
            for e in exc.errors(include_url=False)
        ]
        raise RequestValidationError(errors) from None


_TOKEN_SCHEMA = TokenRequest.model_json_schema()
_TOKEN_BODY = {
    "required": True,
    "content": {
        "application/x-www-form-urlencoded": {"schema": _TOKEN_SCHEMA},
        "application/json": {"schema": _TOKEN_SCHEMA},
    },
}


@router.post(
    "/token",
    responses=responses(401, 429),
    summary="Log in: OAuth2 password form or JSON → bearer token for this device",
    openapi_extra={"requestBody": _TOKEN_BODY},
)
def token(
    form: Annotated[TokenRequest, Depends(token_request)],
    request: Request,
    session: SessionDep,
) -> TokenResponse:
    ip = request.client.host if request.client else None
    user = auth.authenticate(session, email=form.username, password=form.password, ip=ip)
    plaintext, row = tokens.issue_token(session, user, name=form.device_name)
    session.commit()
    assert row.id is not None
    return TokenResponse(
        access_token=plaintext, token_id=row.id, name=row.name, expires_at=row.expires_at
    )


@router.get(
    "/tokens",
    responses={**responses(401), **TOTAL_COUNT},
    summary="The caller's active tokens (each with its expiry)",
)
def list_tokens(
    user: CurrentUser, session: SessionDep, response: Response, with_total: WithTotal = False
) -> list[ApiTokenPublic]:
    found = [ApiTokenPublic.model_validate(t) for t in tokens.list_tokens(session, user)]
    if with_total:
        response.headers[TOTAL_HEADER] = str(len(found))
    return found


@router.get("/tokens/{token_id}", responses=responses(401, 404), summary="One active token")
def get_token(token: OwnedToken) -> ApiTokenPublic:
    return ApiTokenPublic.model_validate(token)


@router.post(
    "/tokens/{token_id}/refresh",
    responses=responses(401, 404),
    summary="Extend a token's lifetime (TIMELYPUSH_API_TOKEN_DAYS from now)",
)
def refresh_token(token: OwnedToken, session: SessionDep) -> ApiTokenPublic:
    row = tokens.extend(session, token)
    session.commit()
    return ApiTokenPublic.model_validate(row)


@router.delete(
    "/tokens/{token_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=responses(401, 404),
    summary="Revoke a token (log a device out)",
)
def revoke_token(token: OwnedToken, session: SessionDep) -> None:
    tokens.revoke(session, token)
    session.commit()


@router.post("/verify", summary="Confirm the email address with the emailed token")
def verify(body: VerifyRequest, session: SessionDep, settings: SettingsDep) -> UserPublic:
    user = verification.verify_email(session, settings, body.token)
    session.commit()
    return UserPublic.model_validate(user)


@router.post(
    "/verify/resend",
    status_code=status.HTTP_202_ACCEPTED,
    responses=responses(401, 429),
    summary="Send the verification email again",
)
def resend_verification(user: CurrentUser, session: SessionDep, settings: SettingsDep) -> Accepted:
    verification.resend_verification(session, settings, user)
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
    password_reset.request_password_reset(session, settings, email=body.email, ip=_ip(request))
    return Accepted(message="If an account exists for this address, a reset link was sent.")


@router.post("/password-reset/confirm", summary="Set a new password with the emailed token")
def confirm_reset(body: ResetConfirm, session: SessionDep, settings: SettingsDep) -> UserPublic:
    user = password_reset.reset_password(
        session, settings, token=body.token, new_password=body.new_password
    )
    session.commit()
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
    password_reset.request_sms_reset(session, settings, email=body.email, ip=_ip(request))
    return Accepted(message="If the account has a phone number, a code was sent.")


@router.post("/password-reset/sms/confirm", summary="Set a new password with the SMS code")
def confirm_sms_reset(
    body: SmsResetConfirm, session: SessionDep, settings: SettingsDep
) -> UserPublic:
    user = password_reset.reset_password_with_code(
        session, settings, email=body.email, code=body.code, new_password=body.new_password
    )
    session.commit()
    return UserPublic.model_validate(user)
