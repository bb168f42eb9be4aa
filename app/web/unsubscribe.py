"""One-click unsubscribe (RFC 8058), no login: ``GET/POST /unsubscribe/{token}``.

GET shows a confirmation button (link scanners in mail systems fetch GET links, so GET alone
never unsubscribes); POST — the button, or the mail client's ``List-Unsubscribe-Post`` — turns
notification email off.
"""

from __future__ import annotations

from html import escape

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from app.core.config import get_settings
from app.core.db import session_scope
from app.services.delivery import unsubscribe

router = APIRouter(tags=["unsubscribe"])

_PAGE = """<!doctype html><html lang="zh-CN"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width"><title>{title}</title></head>
<body style="font-family:sans-serif;max-width:560px;margin:48px auto;padding:0 16px;">
{body}</body></html>"""

_INVALID = "<p>退订链接无效或已过期。<br>This unsubscribe link is invalid or expired.</p>"


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(_PAGE.format(title=escape(title), body=body), status_code=status)


@router.get("/unsubscribe/{token}", response_class=HTMLResponse)
def confirm_unsubscribe(token: str) -> HTMLResponse:
    """A page with one button that unsubscribes."""
    body = (
        "<h1>退订邮件通知 · Unsubscribe</h1>"
        "<p>点击按钮后将不再收到及时推的通知邮件和每日摘要。<br>"
        "Click to stop Timely Push notification emails and daily digests.</p>"
        f'<form method="post" action="/unsubscribe/{escape(token)}">'
        '<button type="submit" style="padding:8px 16px;">退订 · Unsubscribe</button></form>'
    )
    return _page("退订 · Unsubscribe", body)


@router.post("/unsubscribe/{token}", response_class=HTMLResponse)
def do_unsubscribe(token: str) -> HTMLResponse:
    """Unsubscribe the user the signed token names (one-click, no login)."""
    with session_scope() as session:
        user = unsubscribe(session, get_settings(), token)
        if user is None:
            return _page("退订 · Unsubscribe", _INVALID, status=400)
        email = user.email
    body = (
        f"<p>{escape(email)} 已退订通知邮件。可随时在设置中重新开启。<br>"
        f"{escape(email)} will no longer get notification emails. "
        "You can turn them back on in your settings.</p>"
    )
    return _page("已退订 · Unsubscribed", body)
