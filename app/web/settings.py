"""Profile and settings: email, phone, time zone, language, push preferences (channels,
instant / daily digest / both, quiet hours), webhook URL and its signing secret (shown once,
rotatable), Apprise push channels (add, instant / digest, test, remove), the secret Atom feed
links (rotatable), API tokens (list, revoke).
"""

from __future__ import annotations

import functools
import json
import logging
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from app.core.config import get_settings
from app.core.i18n import LANGUAGES, N_
from app.models import (
    CHANNEL_MODES,
    CHANNELS,
    PUSH_MODES,
    ProfileUpdate,
    PushChannelCreate,
    PushChannelUpdate,
    User,
    utcnow,
)
from app.services import (
    account_data,
    auth,
    concerns,
    delivery_actions,
    feed,
    password_reset,
    profile,
    push_channels,
    tokens,
    verification,
)
from app.services.errors import NotFound, ServiceError, Throttled
from app.web import failures
from app.web.csrf import csrf_protect
from app.web.forms import (
    errors_for,
    kept,
    message,
    read_form,
    safe_next,
    validation_errors,
)
from app.web.sessions import CurrentUser, Db, PageNotFound, flash, login, logout
from app.web.templating import redirect, render, request_language

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
    "channel_name",
    "channel_url",
    "channel_mode",
)
CHANNEL_FIELDS = {"url": "channel_url", "name": "channel_name", "mode": "channel_mode"}
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
    settings = get_settings()
    feeds: list[tuple[str, str]] = []
    if user.feed_token:
        feeds = [
            (
                c.seed_url + " · " + ", ".join(c.keywords[:5]),
                feed.feed_url(settings, user.feed_token, c.id),
            )
            for c in concerns.list_concerns(db, user)
            if c.id is not None
        ]
    return render(
        request,
        "settings.html",
        {
            "form": form or {},
            "errors": errors or {},
            "new_secret": new_secret,
            "tokens": tokens.list_tokens(db, user),
            "now": utcnow(),
            "sms_available": password_reset.sms_reset_available(get_settings()),
            "timezones": zones,
            "push_modes": PUSH_MODES,
            "channels": [push_channels.public(c) for c in push_channels.list_channels(db, user)],
            "channel_modes": CHANNEL_MODES,
            "feed_url": feed.feed_url(settings, user.feed_token) if user.feed_token else None,
            "concern_feeds": feeds,
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
    request: Request,
    db: Db,
    user: User,
    fields: dict[str, Any],
    values: dict[str, str],
    done: str,
    *,
    shown_as: dict[str, str] | None = None,
) -> Response:
    """Save the profile ``fields`` validated with the API's ``ProfileUpdate`` (an error on a
    field named in ``shown_as`` is shown at the form's own input of that name)."""
    try:
        data = ProfileUpdate.model_validate(fields)
    except ValidationError as exc:
        errors = validation_errors(request, user, exc, ProfileUpdate, fields=FIELDS)
        return _page(request, db, user, form=kept(values), errors=errors, status=422)
    try:
        ip = request.client.host if request.client else None
        await run_in_threadpool(functools.partial(profile.update_profile, ip=ip), db, user, data)
    except ServiceError as exc:
        db.rollback()
        errors = errors_for(request, user, exc, fields=FIELDS)
        errors = {(shown_as or {}).get(k, k): v for k, v in errors.items()}
        return _page(request, db, user, form=kept(values), errors=errors, status=exc.status)
    flash(request, done, "success")
    return redirect("/settings")


@router.post("/language")
async def switch_language(request: Request, db: Db, user: CurrentUser) -> Response:
    """The header's language switch: the account's language, then back where it was."""
    values = await read_form(request)
    language = values.get("language", "")
    if language in LANGUAGES and language != user.language:
        await run_in_threadpool(profile.update_profile, db, user, ProfileUpdate(language=language))
        db.commit()
    return redirect(safe_next(values.get("next"), "/messages"))


@router.post("/profile")
async def save_profile(request: Request, db: Db, user: CurrentUser) -> Response:
    values = await read_form(request)
    fields = {
        "email": values.get("email", ""),
        "phone": values.get("phone", ""),
        "timezone": values.get("timezone", user.timezone),
        "language": values.get("language", user.language),
        "current_password": values.get("email_password") or None,
    }
    old_email = user.email
    response = await _update(
        request,
        db,
        user,
        fields,
        values,
        N_("Profile saved."),
        shown_as={"current_password": "email_password"},
    )
    if response.status_code == 303 and user.email != old_email:
        await run_in_threadpool(profile.tell_old_address, get_settings(), user, old_email)
        try:
            await run_in_threadpool(verification.send_verification_email, get_settings(), user)
            flash(request, "We sent a verification link to %(email)s.", "success", email=user.email)
        except Exception:
            logger.exception("sending the verification email failed")
    return response


@router.post("/push")
async def save_push(request: Request, db: Db, user: CurrentUser) -> Response:
    values = await read_form(request)
    fields = {
        "push_mode": values.get("push_mode", user.push_mode),
        "digest_time": values.get("digest_time", user.digest_time),
        "quiet_start": values.get("quiet_start", ""),
        "quiet_end": values.get("quiet_end", ""),
        "email_enabled": bool(values.get("email_enabled")),
        "sms_enabled": bool(values.get("sms_enabled")),
        "webhook_enabled": bool(values.get("webhook_enabled")),
        "digest_when_empty": bool(values.get("digest_when_empty")),
        "webhook_batch": bool(values.get("webhook_batch")),
    }
    if fields["webhook_enabled"] == user.webhook_enabled:
        # the form sends every box: a box left as it was does not turn a webhook that
        # answered 410 Gone back on (saving its URL does, or ticking the box again)
        fields.pop("webhook_enabled")
    return await _update(request, db, user, fields, values, N_("Push preferences saved."))


@router.post("/webhook")
async def save_webhook(request: Request, db: Db, user: CurrentUser) -> Response:
    values = await read_form(request)
    fields = {"webhook_url": values.get("webhook_url", "").strip()}
    return await _update(request, db, user, fields, values, N_("Webhook saved."))


@router.post("/password")
async def change_password(request: Request, db: Db, user: CurrentUser) -> Response:
    """A new password; other browsers are logged out, this one gets a fresh session."""
    values = await read_form(request)
    if values.get("password", "") != values.get("password2", ""):
        errors = {"password2": message(request, user, "The two passwords differ.")}
        return _page(request, db, user, errors=errors, status=422)
    try:
        await run_in_threadpool(
            auth.change_password,
            db,
            user,
            current_password=values.get("current_password", ""),
            new_password=values.get("password", ""),
            ip=request.client.host if request.client else None,
        )
    except ServiceError as exc:
        db.rollback()
        errors = errors_for(request, user, exc, fields=FIELDS)
        if exc.code == "bad_credentials":
            errors = {"current_password": message(request, user, "The current password is wrong.")}
        return _page(request, db, user, errors=errors, status=exc.status)
    login(request, user, db)
    flash(request, "Password changed.", "success")
    return redirect("/settings")


@router.get("/export")
def export_data(db: Db, user: CurrentUser) -> Response:
    """Download everything stored for the user as one JSON file."""
    data = account_data.export_user(db, user)
    body = json.dumps(data, ensure_ascii=False, indent=2)
    return Response(
        body,
        media_type="application/json",
        headers={"Content-Disposition": 'attachment; filename="timelypush-export.json"'},
    )


@router.post("/delete")
async def delete_account(request: Request, db: Db, user: CurrentUser) -> Response:
    """Delete the account after the password; the browser is logged out."""
    values = await read_form(request)
    try:
        await run_in_threadpool(
            account_data.delete_account,
            db,
            user,
            password=values.get("delete_password", ""),
            ip=request.client.host if request.client else None,
        )
    except Throttled:
        raise
    except ServiceError as exc:
        db.rollback()
        errors = {"delete_password": message(request, user, "The current password is wrong.")}
        return _page(request, db, user, errors=errors, status=exc.status)
    logout(request, db)
    flash(request, "Your account and all its data are deleted.", "info")
    return redirect("/login")


@router.post("/phone/code")
async def phone_code(request: Request, db: Db, user: CurrentUser) -> Response:
    """Text a verification code to the profile's phone number."""
    try:
        await run_in_threadpool(verification.send_phone_code, db, get_settings(), user)
    except Throttled:
        raise
    except ServiceError as exc:
        return _page(request, db, user, errors=errors_for(request, user, exc, fields=FIELDS))
    flash(request, "We texted a code to %(phone)s.", "success", phone=user.phone or "")
    return redirect("/settings#phone-code")


@router.post("/phone/confirm")
async def phone_confirm(request: Request, db: Db, user: CurrentUser) -> Response:
    values = await read_form(request)
    try:
        await run_in_threadpool(
            verification.confirm_phone, db, get_settings(), user, values.get("code", "")
        )
    except ServiceError as exc:
        errors = errors_for(request, user, exc, fields=(*FIELDS, "code"))
        return _page(request, db, user, errors=errors, status=exc.status)
    flash(request, "Your phone number is verified.", "success")
    return redirect("/settings")


@router.post("/test/{channel}")
async def test_channel(request: Request, db: Db, user: CurrentUser, channel: str) -> Response:
    """Send a test message to the profile's address for one channel, now."""
    if channel not in CHANNELS:
        raise PageNotFound
    result = await run_in_threadpool(
        delivery_actions.send_channel_test, db, get_settings(), user, channel
    )
    if result.ok:
        flash(request, "Test message sent.", "success")
    else:
        logger.info("a test message to the user's %s failed: %s", channel, result.error)
        reason = failures.send_text(request_language(request, user), result.error)
        flash(request, "The test failed: %(error)s", "error", error=reason)
    return redirect("/settings")


@router.post("/webhook/rotate")
def rotate_secret(request: Request, db: Db, user: CurrentUser) -> Response:
    """A new secret, then back to the settings page (post/redirect/get: reloading it does not
    rotate again), which shows the secret on that one view only; the session carries a flag,
    never the secret."""
    profile.rotate_webhook_secret(db, user)
    request.session[SHOW_SECRET_KEY] = True
    return redirect("/settings#webhook")


@router.post("/tokens/{token_id}/refresh")
def refresh_token(request: Request, db: Db, user: CurrentUser, token_id: int) -> Response:
    try:
        tokens.refresh_token(db, user, token_id)
        flash(request, "Token extended.", "success")
    except ServiceError:
        raise PageNotFound from None
    return redirect("/settings#tokens")


@router.post("/tokens/{token_id}/revoke")
def revoke_token(request: Request, db: Db, user: CurrentUser, token_id: int) -> Response:
    try:
        tokens.revoke_token(db, user, token_id)
    except NotFound as exc:
        raise PageNotFound from exc
    flash(request, "Token revoked.", "info")
    return redirect("/settings")


@router.post("/channels")
async def add_channel(request: Request, db: Db, user: CurrentUser) -> Response:
    """Add an Apprise push channel after the URL guard has checked where it sends."""
    values = await read_form(request)
    fields = {
        "name": values.get("channel_name", ""),
        "url": values.get("channel_url", ""),
        "mode": values.get("channel_mode", "instant"),
    }
    try:
        data = PushChannelCreate.model_validate(fields)
    except ValidationError as exc:
        errors = validation_errors(
            request, user, exc, PushChannelCreate, fields=FIELDS, aliases=CHANNEL_FIELDS
        )
        return _page(request, db, user, form=kept(values), errors=errors, status=422)
    try:
        await run_in_threadpool(push_channels.add_channel, db, get_settings(), user, data)
        db.commit()
    except ServiceError as exc:
        db.rollback()
        errors = errors_for(request, user, exc, fields=FIELDS, aliases=CHANNEL_FIELDS)
        return _page(request, db, user, form=kept(values), errors=errors, status=exc.status)
    flash(request, "Push channel added.", "success")
    return redirect("/settings#channels")


@router.post("/channels/{channel_id}/mode")
async def channel_mode(request: Request, db: Db, user: CurrentUser, channel_id: int) -> Response:
    values = await read_form(request)
    data = PushChannelUpdate(mode=values.get("mode", ""), enabled=bool(values.get("enabled")))
    try:
        push_channels.update_channel(db, user, channel_id, data)
        db.commit()
    except NotFound as exc:
        raise PageNotFound from exc
    except ServiceError as exc:
        db.rollback()
        errors = errors_for(request, user, exc, fields=FIELDS, aliases=CHANNEL_FIELDS)
        return _page(request, db, user, errors=errors, status=exc.status)
    flash(request, "Push channel saved.", "success")
    return redirect("/settings#channels")


@router.post("/channels/{channel_id}/delete")
def remove_channel(request: Request, db: Db, user: CurrentUser, channel_id: int) -> Response:
    try:
        push_channels.remove_channel(db, user, channel_id)
        db.commit()
    except NotFound as exc:
        raise PageNotFound from exc
    flash(request, "Push channel removed.", "info")
    return redirect("/settings#channels")


@router.post("/channels/{channel_id}/test")
async def test_push_channel(
    request: Request, db: Db, user: CurrentUser, channel_id: int
) -> Response:
    try:
        channel = push_channels.get_channel(db, user, channel_id)
    except NotFound as exc:
        raise PageNotFound from exc
    result = await run_in_threadpool(push_channels.send_test_message, get_settings(), user, channel)
    if result.ok:
        flash(request, "Test message sent.", "success")
    else:
        logger.info("a test message to push channel %s failed: %s", channel_id, result.error)
        reason = failures.send_text(request_language(request, user), result.error)
        flash(request, "The test failed: %(error)s", "error", error=reason)
    return redirect("/settings#channels")


@router.post("/feed/rotate")
def rotate_feed(request: Request, db: Db, user: CurrentUser) -> Response:
    """Create the feed links, or replace them: the old links stop working."""
    had = bool(user.feed_token)
    feed.rotate_feed_token(db, user)
    db.commit()
    flash(
        request,
        N_("New feed links made; the old ones no longer work.") if had else N_("Feed links made."),
        "success",
    )
    return redirect("/settings#feeds")
