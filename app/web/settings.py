"""Profile and settings: email, phone, time zone, language, push preferences (channels,
instant / daily digest / both, quiet hours), webhook URL and its signing secret (shown once,
rotatable), API tokens (list, revoke).
"""

from __future__ import annotations

import logging

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from app.core.config import get_settings
from app.models import CHANNELS, PUSH_MODES, ProfileUpdate, User
from app.services import accounts, delivery
from app.services.errors import NotFound, ServiceError
from app.web.csrf import csrf_protect
from app.web.forms import errors_for, kept, message, read_form
from app.web.sessions import CurrentUser, Db, PageNotFound, flash, login
from app.web.templating import redirect, render

logger = logging.getLogger(__name__)

router = APIRouter(
    prefix="/settings", dependencies=[Depends(csrf_protect)], include_in_schema=False
)

FIELDS = (
    "current_password",
    "password",
    "email",
    "phone",
    "timezone",
    "digest_time",
    "quiet_start",
    "quiet_end",
    "webhook_url",
)
TIMEZONES = (
    "Asia/Shanghai",
    "Asia/Hong_Kong",
    "Asia/Taipei",
    "Asia/Singapore",
    "Asia/Tokyo",
    "Asia/Seoul",
    "Asia/Kolkata",
    "Europe/London",
    "Europe/Paris",
    "Europe/Berlin",
    "Europe/Moscow",
    "America/New_York",
    "America/Chicago",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "Australia/Sydney",
    "UTC",
)


def _page(
    request: Request,
    db: Db,
    user: User,
    *,
    form: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
    new_secret: str | None = None,
    status: int = 200,
) -> Response:
    zones = list(TIMEZONES)
    if user.timezone not in zones:
        zones.insert(0, user.timezone)
    return render(
        request,
        "settings.html",
        {
            "form": form or {},
            "errors": errors or {},
            "new_secret": new_secret,
            "tokens": accounts.list_tokens(db, user),
            "timezones": zones,
            "push_modes": PUSH_MODES,
        },
        user=user,
        status_code=status,
    )


SHOW_SECRET_KEY = "show_webhook_secret"  # noqa: S105 (a session flag, not a secret)


@router.get("")
def settings_page(request: Request, db: Db, user: CurrentUser) -> Response:
    """The settings; right after a rotation (once) the new webhook secret, never cached."""
    if request.session.pop(SHOW_SECRET_KEY, False) and user.webhook_secret:
        response = _page(request, db, user, new_secret=user.webhook_secret)
        response.headers["Cache-Control"] = "no-store"
        return response
    return _page(request, db, user)


async def _update(
    request: Request, db: Db, user: User, data: ProfileUpdate, values: dict[str, str], done: str
) -> Response:
    try:
        await run_in_threadpool(accounts.update_profile, db, user, data)
    except ServiceError as exc:
        db.rollback()
        return _page(
            request,
            db,
            user,
            form=kept(values),
            errors=errors_for(request, user, exc, fields=FIELDS),
            status=exc.status,
        )
    flash(request, done, "success")
    return redirect("/settings")


@router.post("/profile")
async def save_profile(request: Request, db: Db, user: CurrentUser) -> Response:
    values = await read_form(request)
    data = ProfileUpdate(
        email=values.get("email", ""),
        phone=values.get("phone", ""),
        timezone=values.get("timezone", user.timezone),
        language=values.get("language", user.language),
    )
    old_email = user.email
    response = await _update(request, db, user, data, values, "Profile saved.")
    if response.status_code == 303 and user.email != old_email:
        try:
            await run_in_threadpool(accounts.send_verification_email, get_settings(), user)
            flash(request, "We sent a verification link to {email}.", "success", email=user.email)
        except Exception:
            logger.exception("sending the verification email failed")
    return response


@router.post("/push")
async def save_push(request: Request, db: Db, user: CurrentUser) -> Response:
    values = await read_form(request)
    data = ProfileUpdate(
        push_mode=values.get("push_mode", user.push_mode),
        digest_time=values.get("digest_time", user.digest_time),
        quiet_start=values.get("quiet_start", ""),
        quiet_end=values.get("quiet_end", ""),
        email_enabled=bool(values.get("email_enabled")),
        sms_enabled=bool(values.get("sms_enabled")),
        webhook_enabled=bool(values.get("webhook_enabled")),
        digest_when_empty=bool(values.get("digest_when_empty")),
    )
    return await _update(request, db, user, data, values, "Push preferences saved.")


@router.post("/webhook")
async def save_webhook(request: Request, db: Db, user: CurrentUser) -> Response:
    values = await read_form(request)
    data = ProfileUpdate(webhook_url=values.get("webhook_url", "").strip())
    return await _update(request, db, user, data, values, "Webhook saved.")


@router.post("/password")
async def change_password(request: Request, db: Db, user: CurrentUser) -> Response:
    """A new password; other browsers are logged out, this one gets a fresh session."""
    values = await read_form(request)
    if values.get("password", "") != values.get("password2", ""):
        errors = {"password2": message(request, user, "The two passwords differ.")}
        return _page(request, db, user, errors=errors, status=422)
    try:
        await run_in_threadpool(
            accounts.change_password,
            db,
            user,
            current_password=values.get("current_password", ""),
            new_password=values.get("password", ""),
        )
    except ServiceError as exc:
        db.rollback()
        errors = errors_for(request, user, exc, fields=FIELDS)
        if exc.code == "bad_credentials":
            errors = {"current_password": message(request, user, "The current password is wrong.")}
        return _page(request, db, user, errors=errors, status=exc.status)
    login(request, user)
    flash(request, "Password changed.", "success")
    return redirect("/settings")


@router.post("/test/{channel}")
async def test_channel(request: Request, db: Db, user: CurrentUser, channel: str) -> Response:
    """Send a test message to the profile's address for one channel, now."""
    if channel not in CHANNELS:
        raise PageNotFound
    result = await run_in_threadpool(delivery.send_channel_test, db, get_settings(), user, channel)
    if result.ok:
        flash(request, "Test message sent.", "success")
    else:
        flash(request, "The test failed: {error}", "error", error=result.error or "")
    return redirect("/settings")


@router.post("/webhook/rotate")
def rotate_secret(request: Request, db: Db, user: CurrentUser) -> Response:
    """A new secret, then back to the settings page (post/redirect/get: reloading it does not
    rotate again), which shows the secret on that one view only; the session carries a flag,
    never the secret."""
    accounts.rotate_webhook_secret(db, user)
    request.session[SHOW_SECRET_KEY] = True
    return redirect("/settings#webhook")


@router.post("/tokens/{token_id}/revoke")
def revoke_token(request: Request, db: Db, user: CurrentUser, token_id: int) -> Response:
    try:
        accounts.revoke_token(db, user, token_id)
    except NotFound as exc:
        raise PageNotFound from exc
    flash(request, "Token revoked.", "info")
    return redirect("/settings")
