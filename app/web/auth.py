"""Account pages: register, verify the email address, log in / out, forgotten password
(emailed link, or SMS code when an SMS provider is configured), reset password.

The views only translate between HTTP and the account services (``app.services.auth``,
``verification``, ``password_reset``); the rules live there.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from app.core.config import get_settings
from app.models import ProfileUpdate
from app.services import auth, password_reset, profile, verification
from app.services.errors import ServiceError
from app.web import i18n
from app.web.csrf import csrf_protect
from app.web.forms import errors_for, kept, message, read_form, safe_next, with_retry_after
from app.web.sessions import LANG_KEY, CurrentUser, Db, MaybeUser, flash, login, logout
from app.web.templating import redirect, render

logger = logging.getLogger(__name__)

router = APIRouter(dependencies=[Depends(csrf_protect)], include_in_schema=False)


def _ip(request: Request) -> str:
    return request.client.host if request.client else ""


@router.get("/")
def home(user: MaybeUser) -> Response:
    return redirect("/messages" if user else "/login")


@router.get("/lang/{code}")
def switch_language(request: Request, code: str, next: str | None = None) -> Response:
    """Remember the visitor's language choice (profiles keep theirs in Settings)."""
    if code in i18n.LANGUAGES:
        request.session[LANG_KEY] = code
    return redirect(safe_next(next, "/"))


# --- register and verify ---------------------------------------------------------------------


@router.get("/register")
def register_form(request: Request, user: MaybeUser) -> Response:
    if user:
        return redirect("/messages")
    return render(request, "auth/register.html", {"form": {}, "errors": {}})


@router.post("/register")
async def register(request: Request, db: Db) -> Response:
    values = await read_form(request)
    if values.get("password", "") != values.get("password2", ""):
        errors = {"password2": message(request, None, "The two passwords differ.")}
        return render(
            request,
            "auth/register.html",
            {"form": kept(values), "errors": errors},
            status_code=422,
        )
    lang = i18n.negotiate_request(request)
    try:
        user = await run_in_threadpool(
            auth.register_user,
            db,
            email=values.get("email", ""),
            password=values.get("password", ""),
            language=lang,
            ip=_ip(request),
            timezone=values.get("timezone") or None,
        )
    except ServiceError as exc:
        page = render(
            request,
            "auth/register.html",
            {
                "form": kept(values),
                "errors": errors_for(request, None, exc, fields=("email", "password")),
            },
            status_code=exc.status,
        )
        return with_retry_after(page, exc)
    login(request, user, db)
    try:
        await run_in_threadpool(verification.send_verification_email, get_settings(), user)
        flash(request, "We sent a verification link to %(email)s.", "success", email=user.email)
    except Exception:  # the account exists; the user can ask for another mail
        logger.exception("sending the verification email failed")
        flash(request, "The verification email could not be sent; try again later.", "error")
    return redirect("/concerns")


@router.get(verification.VERIFY_PATH)
async def verify_email(request: Request, db: Db, user: MaybeUser, token: str = "") -> Response:
    try:
        verified = await run_in_threadpool(verification.verify_email, db, get_settings(), token)
    except ServiceError:
        return render(
            request,
            "auth/notice.html",
            {
                "heading": message(request, user, "Verification failed"),
                "message": message(
                    request, user, "This verification link is invalid or has expired."
                ),
                "link": "/settings" if user else "/login",
                "link_text": message(request, user, "Continue"),
            },
            user=user,
            status_code=400,
        )
    return render(
        request,
        "auth/notice.html",
        {
            "heading": message(request, verified, "Email verified"),
            "message": message(
                request, verified, "Thank you, %(email)s is confirmed.", email=verified.email
            ),
            "link": "/concerns" if user else "/login",
            "link_text": message(request, verified, "Continue"),
        },
        user=user,
    )


@router.post("/verify/resend")
async def resend_verification(request: Request, db: Db, user: CurrentUser) -> Response:
    try:
        sent = await run_in_threadpool(verification.resend_verification, db, get_settings(), user)
        if sent:
            flash(request, "We sent a verification link to %(email)s.", "success", email=user.email)
    except ServiceError:
        raise  # a rate limit: the 429 page says how long to wait
    except Exception:
        logger.exception("sending the verification email failed")
        flash(request, "The verification email could not be sent; try again later.", "error")
    return redirect("/settings")


# --- log in and out --------------------------------------------------------------------------


@router.get("/login")
def login_form(request: Request, user: MaybeUser, next: str | None = None) -> Response:
    if user:
        return redirect(safe_next(next))
    return render(request, "auth/login.html", {"form": {}, "errors": {}, "next": next})


@router.post("/login")
async def login_submit(request: Request, db: Db) -> Response:
    values = await read_form(request)
    try:
        user = await run_in_threadpool(
            auth.authenticate,
            db,
            email=values.get("email", ""),
            password=values.get("password", ""),
            ip=_ip(request),
        )
    except ServiceError as exc:
        errors = errors_for(request, None, exc)
        page = render(
            request,
            "auth/login.html",
            {
                "form": kept(values),
                "errors": {"form": next(iter(errors.values()))},
                "next": values.get("next"),
            },
            status_code=exc.status,
        )
        return with_retry_after(page, exc)
    chosen = request.session.get(LANG_KEY)
    if chosen in i18n.LANGUAGES and chosen != user.language:
        # the language the visitor picked on the way in is the account's from now on (else
        # the pages went back to the account's old language the moment they logged in)
        try:
            await run_in_threadpool(
                profile.update_profile, db, user, ProfileUpdate(language=chosen)
            )
            db.commit()
        except ServiceError:  # the rest of the profile needs fixing first: keep its language
            db.rollback()
    login(request, user, db)
    return redirect(safe_next(values.get("next")))


@router.post("/logout")
def logout_submit(request: Request, db: Db) -> Response:
    logout(request, db)
    flash(request, "You are logged out.", "info")
    return redirect("/login")


# --- forgotten password ----------------------------------------------------------------------


def _forgot(
    request: Request, values: dict[str, str], errors: dict[str, str], status: int = 200
) -> HTMLResponse:
    sms = password_reset.sms_reset_available(get_settings())
    mail = password_reset.email_reset_available(get_settings())
    return render(
        request,
        "auth/forgot.html",
        {"form": kept(values), "errors": errors, "sms_enabled": sms, "email_enabled": mail},
        status_code=status,
    )


FORGOT_SENT_KEY = "forgot_sent"


@router.get("/forgot")
def forgot_form(request: Request) -> Response:
    return _forgot(request, {}, {})


async def _ask_for_reset(
    request: Request, db: Db, ask: Callable[..., None]
) -> tuple[dict[str, str], Response | None]:
    """Run a reset request (by email link or by SMS code) from the forgot form: the form's
    values, and the form again with the error when the request was refused."""
    values = await read_form(request)
    try:
        await run_in_threadpool(
            ask, db, get_settings(), email=values.get("email", ""), ip=_ip(request)
        )
    except ServiceError as exc:
        errors = errors_for(request, None, exc, fields=())
        return values, with_retry_after(_forgot(request, values, errors, exc.status), exc)
    return values, None


@router.post("/forgot")
async def forgot_submit(request: Request, db: Db) -> Response:
    values, refused = await _ask_for_reset(request, db, password_reset.request_password_reset)
    if refused is not None:
        return refused
    request.session[FORGOT_SENT_KEY] = values.get("email", "")
    return redirect("/forgot/sent")  # post/redirect/get: a reload sends no second mail


@router.get("/forgot/sent")
def forgot_sent(request: Request) -> Response:
    email = request.session.get(FORGOT_SENT_KEY)
    if not isinstance(email, str):
        return redirect("/forgot")
    return render(
        request,
        "auth/notice.html",
        {
            "heading": message(request, None, "Check your email"),
            "message": message(
                request,
                None,
                "If an account exists for %(email)s, we sent it a link to choose a new password. "
                "The link works once and expires in one hour.",
                email=email,
            ),
            "link": "/login",
            "link_text": message(request, None, "Back to log in"),
        },
    )


@router.post("/forgot/sms")
async def forgot_sms_submit(request: Request, db: Db) -> Response:
    values, refused = await _ask_for_reset(request, db, password_reset.request_sms_reset)
    if refused is not None:
        return refused
    flash(request, "If the account has a phone number, we sent it a code.", "info")
    return redirect(f"{password_reset.RESET_PATH}/sms?email={values.get('email', '')}")


@router.get(password_reset.RESET_PATH)
def reset_form(request: Request, db: Db, token: str = "") -> Response:
    """The new-password form, or at once the page saying the link no longer works. A link's
    token usually comes in the fragment, which only the page's script sees: it asks
    ``/reset-password/check`` before the reader types anything."""
    ctx = {"form": {}, "errors": {}, "token": token, "action": password_reset.RESET_PATH}
    if token and not password_reset.reset_link_works(db, get_settings(), token):
        return render(request, "auth/reset.html", {**ctx, "invalid": True}, status_code=400)
    return render(request, "auth/reset.html", ctx)


@router.post(password_reset.RESET_PATH + "/check")
async def reset_check(request: Request, db: Db) -> Response:
    """Whether the token of a link still works (the token in the body, never in an URL)."""
    token = (await read_form(request)).get("token", "")
    works = await run_in_threadpool(password_reset.reset_link_works, db, get_settings(), token)
    return JSONResponse({"valid": works}, headers={"Cache-Control": "no-store"})


@router.post(password_reset.RESET_PATH)
async def reset_submit(request: Request, db: Db) -> Response:
    values = await read_form(request)
    ctx = {
        "form": kept(values),
        "token": values.get("token", ""),
        "action": password_reset.RESET_PATH,
    }
    if values.get("password", "") != values.get("password2", ""):
        ctx["errors"] = {"password2": message(request, None, "The two passwords differ.")}
        return render(request, "auth/reset.html", ctx, status_code=422)
    try:
        await run_in_threadpool(
            password_reset.reset_password,
            db,
            get_settings(),
            token=values.get("token", ""),
            new_password=values.get("password", ""),
        )
    except ServiceError as exc:
        ctx["errors"] = errors_for(request, None, exc, fields=("password",))
        return render(request, "auth/reset.html", ctx, status_code=exc.status)
    logout(request, db)
    flash(request, "Your password is changed. Please log in.", "success")
    return redirect("/login")


@router.get(password_reset.RESET_PATH + "/sms")
def reset_sms_form(request: Request, email: str = "") -> Response:
    return render(
        request,
        "auth/reset.html",
        {
            "form": {"email": email},
            "errors": {},
            "sms": True,
            "action": password_reset.RESET_PATH + "/sms",
        },
    )


@router.post(password_reset.RESET_PATH + "/sms")
async def reset_sms_submit(request: Request, db: Db) -> Response:
    values = await read_form(request)
    ctx = {"form": kept(values), "sms": True, "action": password_reset.RESET_PATH + "/sms"}
    if values.get("password", "") != values.get("password2", ""):
        ctx["errors"] = {"password2": message(request, None, "The two passwords differ.")}
        return render(request, "auth/reset.html", ctx, status_code=422)
    try:
        await run_in_threadpool(
            password_reset.reset_password_with_code,
            db,
            get_settings(),
            email=values.get("email", ""),
            code=values.get("code", ""),
            new_password=values.get("password", ""),
        )
    except ServiceError as exc:
        errors = errors_for(request, None, exc, fields=("password", "code"))
        if exc.code == "invalid_code":
            errors = {"code": errors.pop("form", "")} | errors
        ctx["errors"] = errors
        return render(request, "auth/reset.html", ctx, status_code=exc.status)
    logout(request, db)
    flash(request, "Your password is changed. Please log in.", "success")
    return redirect("/login")
