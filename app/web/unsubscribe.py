"""One-click unsubscribe (RFC 8058), no login: ``GET/POST /unsubscribe/{token}``.

GET shows a confirmation button (link scanners in mail systems fetch GET links, so GET alone
never unsubscribes); POST — the button, or the mail client's ``List-Unsubscribe-Post`` — turns
notification email off. The signed token is the only credential: no session, no CSRF token
(a mail client's one-click POST has neither). The pages speak the language of the user the
token names, and the confirmation offers to subscribe again
(``POST /unsubscribe/{token}/resubscribe``).
"""

from __future__ import annotations

import logging
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from app.core.config import get_settings
from app.models import User
from app.services.delivery_actions import resubscribe, unsubscribe, unsubscribe_user
from app.web import i18n
from app.web.sessions import Db
from app.web.templating import redirect, render

logger = logging.getLogger(__name__)

router = APIRouter(tags=["unsubscribe"], include_in_schema=False)


def _page(
    request: Request, user: User | None, state: str, token: str, status: int = 200
) -> Response:
    lang = user.language if user is not None and user.language in i18n.LANGUAGES else None
    response = render(
        request,
        "unsubscribe.html",
        {"state": state, "token": token, "email": user.email if user else ""},
        lang=lang,
        status_code=status,
    )
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@router.get("/unsubscribe/{token}")
def confirm_unsubscribe(request: Request, db: Db, token: str, again: bool = False) -> Response:
    """The button that unsubscribes (GET alone changes nothing), or — once unsubscribed —
    the confirmation with the button that subscribes again."""
    user = unsubscribe_user(db, get_settings(), token)
    if user is None:
        return _page(request, None, "invalid", token, status=400)
    if user.email_enabled:
        return _page(request, user, "resubscribed" if again else "confirm", token)
    return _page(request, user, "done", token)


async def one_click(request: Request) -> bool:
    """Whether this POST is a mail client's RFC 8058 one-click (``List-Unsubscribe=One-Click``)."""
    return b"List-Unsubscribe=One-Click" in await request.body()


@router.post("/unsubscribe/{token}")
def do_unsubscribe(
    request: Request, db: Db, token: str, mail_client: Annotated[bool, Depends(one_click)]
) -> Response:
    """Unsubscribe the user the signed token names (no login). A mail client's one-click POST
    gets the page itself; the button in the browser is redirected to the GET page
    (post/redirect/get)."""
    user = unsubscribe(db, get_settings(), token)
    if user is None:
        return _page(request, None, "invalid", token, status=400)
    db.commit()  # before the redirect: the browser's next GET must see it
    if mail_client:
        return _page(request, user, "done", token)
    return redirect(f"/unsubscribe/{token}")


@router.post("/unsubscribe/{token}/resubscribe")
def do_resubscribe(request: Request, db: Db, token: str) -> Response:
    """Turn notification email back on (the same signed token)."""
    user = resubscribe(db, get_settings(), token)
    if user is None:
        return _page(request, None, "invalid", token, status=400)
    db.commit()
    return redirect(f"/unsubscribe/{token}?again=1")
