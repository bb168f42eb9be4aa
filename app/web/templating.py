"""Jinja2 rendering for the web pages: every page gets the user, the CSRF token and its
language's gettext catalogue.

Templates live in ``templates/web/``. Autoescaping is on. Texts go through ``jinja2.ext.i18n``
(``{{ _("Log in") }}``, ``{{ _("%(n)s unread", n=3) }}``, ``{% trans %}``): one environment
per language, each with its catalogue installed (new-style gettext: parameters are escaped).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import jinja2
from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates
from markupsafe import Markup, escape

from app.core.resources import data_path
from app.models import User
from app.web import csrf, i18n
from app.web.sessions import pop_flashes

logger = logging.getLogger(__name__)


def _templates(lang: str) -> Jinja2Templates:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_path("templates") / "web")),
        autoescape=True,
        extensions=["jinja2.ext.i18n"],
    )
    env.install_gettext_translations(i18n.translations(lang), newstyle=True)  # type: ignore[attr-defined]
    return Jinja2Templates(env=env)


templates = {lang: _templates(lang) for lang in i18n.LANGUAGES}


def request_language(request: Request, user: User | None) -> str:
    """Profile language, else the visitor's explicit choice, else Accept-Language (zh)."""
    if user is not None and user.language in i18n.LANGUAGES:
        return user.language
    chosen = request.session.get("lang")
    if isinstance(chosen, str) and chosen in i18n.LANGUAGES:
        return chosen
    return i18n.negotiate(request.headers.get("accept-language"))


def user_zone(user: User | None) -> ZoneInfo:
    try:
        return ZoneInfo(user.timezone if user else "Asia/Shanghai")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def highlight(text: str, terms: list[str]) -> Markup:
    """``text`` escaped, with every occurrence of ``terms`` wrapped in <mark>."""
    if not text:
        return Markup("")
    lowered = text.lower()
    spans: list[tuple[int, int]] = []
    for term in sorted({t for t in terms if t}, key=len, reverse=True):
        needle = term.lower()
        start = lowered.find(needle)
        while start != -1:
            end = start + len(needle)
            if all(end <= s or start >= e for s, e in spans):
                spans.append((start, end))
            start = lowered.find(needle, end)
    spans.sort()
    out: list[str] = []
    pos = 0
    for s, e in spans:
        out.append(str(escape(text[pos:s])))
        out.append(f"<mark>{escape(text[s:e])}</mark>")
        pos = e
    out.append(str(escape(text[pos:])))
    return Markup("".join(out))  # noqa: S704 (every piece above is escaped)


def render(
    request: Request,
    name: str,
    context: dict[str, Any] | None = None,
    *,
    user: User | None = None,
    status_code: int = 200,
    lang: str | None = None,
) -> HTMLResponse:
    """Render ``templates/web/<name>`` in the request's language (or ``lang``, when a page
    knows whose it is without a login, as the unsubscribe and feedback pages do)."""
    lang = lang if lang in i18n.LANGUAGES else request_language(request, user)
    zone = user_zone(user)

    def t(key: str, **params: Any) -> str:
        return i18n.translate(lang, key, **params)

    def localtime(value: datetime | None, fmt: str = "%Y-%m-%d %H:%M") -> str:
        if value is None:
            return "—"
        return value.astimezone(zone).strftime(fmt)

    ctx: dict[str, Any] = {
        "lang": lang,
        "user": user,
        "csrf_token": csrf.token(request),
        "flashes": [
            {"category": f.get("category", "info"), "text": t(f["key"], **f.get("params", {}))}
            for f in pop_flashes(request)
        ],
        "localtime": localtime,
        "highlight": highlight,
        "path": request.url.path,
        "unread_count": getattr(request.state, "unread_count", None),
    }
    ctx.update(context or {})
    return templates[lang].TemplateResponse(request, name, ctx, status_code=status_code)


def redirect(url: str) -> RedirectResponse:
    """303 See Other: the browser follows with GET (post/redirect/get)."""
    return RedirectResponse(url, status_code=303)
