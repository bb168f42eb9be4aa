"""Atom feeds (RFC 4287) of a user's messages and of each concern, at a secret per-user URL.

``/feed/{token}.atom`` lists the user's newest messages, ``/feed/{token}/concerns/{id}.atom``
one concern's. The token is random (32 bytes), created on first use and rotatable: a
rotated or wrong token finds nothing (the web edge answers 404), so a leaked link is
revoked by rotating. Each entry carries the page's title, link, snippet and the why-line.
"""

from __future__ import annotations

import logging
import re
import secrets
from datetime import datetime
from urllib.parse import urlsplit

from lxml import etree
from sqlmodel import Session, col, select

from app.core.config import Settings
from app.core.i18n import translate
from app.models import Concern, Match, User, concerns_query, utcnow
from app.services.delivery_compose import concern_label
from push import language, why

logger = logging.getLogger(__name__)

ATOM = "http://www.w3.org/2005/Atom"
ENTRIES = 50
TOKEN_BYTES = 32
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{16,64}")


def feed_token(session: Session, user: User) -> str:
    """The user's feed token, created (in the caller's transaction) on first use."""
    if not user.feed_token:
        user.feed_token = secrets.token_urlsafe(TOKEN_BYTES)
        session.add(user)
        session.flush()
    return user.feed_token


def rotate_feed_token(session: Session, user: User) -> str:
    """A new feed token: links with the old one stop working."""
    user.feed_token = secrets.token_urlsafe(TOKEN_BYTES)
    session.add(user)
    session.flush()
    logger.info("user %s rotated their feed link", user.id)
    return user.feed_token


def user_for_token(session: Session, token: str) -> User | None:
    if not TOKEN_SHAPE.fullmatch(token or ""):
        return None
    user = session.exec(select(User).where(User.feed_token == token)).first()
    if user is None or not user.is_active or not user.feed_token:
        return None
    return user if secrets.compare_digest(user.feed_token, token) else None


def feed_url(settings: Settings, token: str, concern_id: int | None = None) -> str:
    base = settings.base_url.rstrip("/")
    if concern_id is None:
        return f"{base}/feed/{token}.atom"
    return f"{base}/feed/{token}/concerns/{concern_id}.atom"


def _tag(settings: Settings, what: str) -> str:
    host = urlsplit(settings.base_url).hostname or "localhost"
    return f"tag:{host},2026:{what}"


def _sub(parent: etree._Element, name: str, text: str | None = None, **attrs: str) -> None:
    el = etree.SubElement(parent, f"{{{ATOM}}}{name}", attrs)
    if text is not None:
        el.text = text


def _stamp(when: datetime) -> str:
    return when.isoformat(timespec="seconds").replace("+00:00", "Z")


def build_feed(
    session: Session, settings: Settings, user: User, concern: Concern | None = None
) -> bytes:
    """The Atom document of the user's newest messages (of one concern when given)."""
    assert user.id is not None and user.feed_token
    lang = language(user.language)
    zh = lang == "zh"
    stmt = select(Match).where(Match.user_id == user.id, col(Match.deleted_at).is_(None))
    if concern is not None:
        stmt = stmt.where(Match.concern_id == concern.id)
    found = list(
        session.exec(
            stmt.order_by(col(Match.created_at).desc(), col(Match.id).desc()).limit(ENTRIES)
        )
    )
    concern_ids = {m.concern_id for m in found}
    concerns = {
        c.id: c for c in session.exec(concerns_query().where(col(Concern.id).in_(concern_ids)))
    }
    base = settings.base_url.rstrip("/")
    root = etree.Element(f"{{{ATOM}}}feed", nsmap={None: ATOM})
    root.set("{http://www.w3.org/XML/1998/namespace}lang", "zh-CN" if zh else "en")
    brand = translate(lang, "Timely Push")
    if concern is None:
        _sub(root, "id", _tag(settings, f"user/{user.id}"))
        _sub(root, "title", f"{brand} · {translate(lang, 'My messages')}")
        self_url = feed_url(settings, user.feed_token)
    else:
        _sub(root, "id", _tag(settings, f"user/{user.id}/concern/{concern.id}"))
        _sub(root, "title", f"{brand} · {concern_label(concern)}")
        self_url = feed_url(settings, user.feed_token, concern.id)
    _sub(
        root,
        "subtitle",
        translate(lang, "New relevant pages on the sites you follow"),
    )
    _sub(root, "updated", _stamp(found[0].created_at if found else utcnow()))
    _sub(root, "link", rel="self", type="application/atom+xml", href=self_url)
    _sub(root, "link", rel="alternate", type="text/html", href=f"{base}/messages")
    _sub(root, "generator", "Timely Push")
    author = etree.SubElement(root, f"{{{ATOM}}}author")
    _sub(author, "name", brand)
    for m in found:
        entry = etree.SubElement(root, f"{{{ATOM}}}entry")
        _sub(entry, "id", _tag(settings, f"match/{m.id}"))
        _sub(entry, "title", m.title or m.url)
        _sub(entry, "link", rel="alternate", type="text/html", href=m.url)
        _sub(entry, "link", rel="related", type="text/html", href=f"{base}/messages/{m.id}")
        _sub(entry, "updated", _stamp(m.created_at))
        _sub(entry, "published", _stamp(m.created_at))
        line = why(m.matched_keywords, m.score, lang)
        summary = f"{line}\n\n{m.snippet}" if m.snippet else line
        _sub(entry, "summary", summary, type="text")
        label = concern_label(concerns.get(m.concern_id))
        _sub(entry, "category", term=str(m.concern_id), label=label)
    return bytes(etree.tostring(root, xml_declaration=True, encoding="utf-8"))
