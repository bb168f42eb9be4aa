"""Turn outbox rows into channel messages (email, webhook JSON, SMS text).

Content is rebuilt from the rows the delivery names, so a retry after a crash sends the same
message with the same id (Message-ID / webhook-id) derived from the idempotency key.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import or_
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from app.core.config import Settings
from app.core.i18n import translate
from app.core.security import sign
from app.models import APPRISE, Concern, Delivery, Match, User, concerns_query
from app.services.channels import renderer
from app.services.feedback import NOT_RELEVANT, feedback_url
from push import (
    DigestItem,
    Message,
    build_digest,
    clean_title,
    envelope,
    explain_why,
    fit_sms,
    keyword_fields,
    language,
    shorten,
    site_suffixes,
    stable_id,
    summary,
)

logger = logging.getLogger(__name__)

UNSUBSCRIBE_SALT = "unsubscribe"
SNIPPET_CHARS = 240
APPRISE_MAX_ITEMS = 20
"""A chat message lists at most this many pages (the rest: "N more" and the dashboard)."""


def unsubscribe_token(secret_key: str, user_id: int) -> str:
    """A signed token naming the user; it never expires on its own (links in old mail work)."""
    return sign(secret_key, UNSUBSCRIBE_SALT, {"u": user_id, "c": "email"})


def unsubscribe_url(settings: Settings, user_id: int, secret_key: str | None = None) -> str:
    token = unsubscribe_token(secret_key or settings.effective_secret_key(), user_id)
    return f"{settings.base_url.rstrip('/')}/unsubscribe/{token}"


def concern_label(concern: Concern | None) -> str:
    if concern is None:
        return "—"
    host = urlsplit(concern.seed_url).hostname or concern.seed_url
    words = ", ".join(concern.keywords[:5])
    return f"{host} · {words}" if words else host


@dataclass(frozen=True)
class MatchView:
    """The columns of a match a message shows (loaded without ORM overhead)."""

    id: int
    concern_id: int
    user_id: int
    title: str
    url: str
    snippet: str
    score: float
    matched_keywords: list[str]
    created_at: datetime
    explanation: dict[str, Any] | None = None


@dataclass
class Loaded:
    """Everything the rows of one batch refer to, loaded with a few IN queries (matches and
    concerns only of the batch's users; ``Composer.items`` checks each row's own)."""

    users: dict[int, User]
    matches: dict[int, MatchView]
    concerns: dict[int, Concern]


_MATCH_COLUMNS = (
    col(Match.id),
    col(Match.concern_id),
    col(Match.user_id),
    col(Match.title),
    col(Match.url),
    col(Match.snippet),
    col(Match.score),
    col(Match.matched_keywords),
    col(Match.created_at),
    col(Match.explanation),
)


def load(session: Session, rows: Sequence[Delivery]) -> Loaded:
    user_ids = {r.user_id for r in rows}
    match_ids: set[int] = set()
    for r in rows:
        match_ids.update(r.match_ids or ([] if r.match_id is None else [r.match_id]))
    users = {u.id: u for u in session.exec(select(User).where(col(User.id).in_(user_ids))) if u.id}
    matches: dict[int, MatchView] = {}
    ids = sorted(match_ids)
    for i in range(0, len(ids), 900):
        q = sa_select(*_MATCH_COLUMNS).where(
            col(Match.id).in_(ids[i : i + 900]),
            col(Match.user_id).in_(user_ids),
            col(Match.deleted_at).is_(None),
            # a message the user already said is not relevant (in the dashboard, the API or
            # an earlier email's link) is not sent again in a digest or a grouped email
            or_(col(Match.feedback).is_(None), col(Match.feedback) != NOT_RELEVANT),
        )
        for values in session.connection().execute(q):
            view = MatchView(*values)
            matches[view.id] = view
    concern_ids = {m.concern_id for m in matches.values()}
    concerns = {
        c.id: c
        for c in session.exec(
            concerns_query().where(
                col(Concern.id).in_(concern_ids), col(Concern.owner_id).in_(user_ids)
            )
        )
        if c.id
    }
    return Loaded(users, matches, concerns)


class Composer:
    """Builds the :class:`push.Message` of a delivery row."""

    def __init__(self, settings: Settings, loaded: Loaded) -> None:
        self.settings = settings
        self.loaded = loaded
        self.base = settings.base_url.rstrip("/")
        self.secret_key = settings.effective_secret_key()
        self._suffixes: dict[str, frozenset[str]] | None = None

    def suffixes(self, url: str) -> frozenset[str]:
        """The site-name suffixes that recur across this batch's titles from ``url``'s host."""
        if self._suffixes is None:
            by_host: dict[str, list[str]] = {}
            for m in self.loaded.matches.values():
                by_host.setdefault(urlsplit(m.url).hostname or "", []).append(m.title)
            self._suffixes = {host: site_suffixes(t) for host, t in by_host.items()}
        return self._suffixes.get(urlsplit(url).hostname or "", frozenset())

    def items(self, row: Delivery, lang: str) -> list[DigestItem]:
        ids = row.match_ids or ([] if row.match_id is None else [row.match_id])
        out = []
        for mid in ids:
            m = self.loaded.matches.get(mid)
            # ids are only references: a match goes into a message for its own user only
            # (a deleted row's id can come back as someone else's row on SQLite)
            if m is None or m.user_id != row.user_id:
                continue
            concern = self.loaded.concerns.get(m.concern_id)
            if concern is not None and concern.owner_id != row.user_id:
                concern = None
            title = clean_title(m.title or m.url, self.suffixes(m.url))
            text = summary(m.snippet, m.title, SNIPPET_CHARS, headline=title)
            out.append(
                DigestItem(
                    match_id=m.id,
                    concern_id=m.concern_id,
                    concern=concern_label(concern),
                    title=title,
                    url=m.url,
                    snippet=shorten(text, SNIPPET_CHARS),
                    why=explain_why(m.explanation, m.matched_keywords, m.score, lang),
                    created_at=m.created_at,
                    feedback_url=feedback_url(self.settings, m.id, self.secret_key),
                    feedback_text=translate(lang, "Not relevant? Tell us"),
                )
            )
        out.sort(key=lambda i: (i.created_at, i.match_id), reverse=True)
        return out

    def compose(self, row: Delivery) -> Message | None:
        """The message for ``row``, or None when there is nothing left to send."""
        user = self.loaded.users.get(row.user_id)
        if user is None or user.id is None:
            return None
        lang = language(user.language)
        mid = stable_id(row.idempotency_key)
        if row.kind == "webhook_gone":
            r = renderer().render(
                "webhook_gone",
                lang,
                url=user.webhook_url or row.target,
                settings_url=f"{self.base}/settings",
            )
            return Message(subject=r.subject, text=r.text, html=r.html, id=mid)
        items = self.items(row, lang)
        if row.channel == APPRISE:
            return self._apprise(row, user, lang, items, mid)
        if row.kind == "digest":
            return self._digest(row, user, lang, items, mid)
        if not items:
            return None
        if row.kind == "summary":
            label = concern_label(self.loaded.concerns.get(items[0].concern_id))
            if row.channel == "sms":
                return self._sms_summary(items, mid, lang, label)
            return self._email("summary", user, lang, mid, items=items, concern=label)
        if row.channel == "webhook":
            if len(items) > 1:
                return self._webhook_batch(items, mid)
            return self._webhook(items, mid, user)
        if row.channel == "sms":
            return self._sms(items, mid, lang)
        return self._email("instant", user, lang, mid, items=items)

    def _email(self, template: str, user: User, lang: str, mid: str, **ctx: object) -> Message:
        assert user.id is not None
        unsub = unsubscribe_url(self.settings, user.id, self.secret_key)
        r = renderer().render(
            template, lang, dashboard_url=f"{self.base}/", unsubscribe_url=unsub, **ctx
        )
        headers = {
            "List-Unsubscribe": f"<{unsub}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Auto-Submitted": "auto-generated",
        }
        return Message(subject=r.subject, text=r.text, html=r.html, headers=headers, id=mid)

    def _digest(
        self, row: Delivery, user: User, lang: str, items: list[DigestItem], mid: str
    ) -> Message | None:
        if not items and not user.digest_when_empty:
            return None
        digest = build_digest(items)
        return self._email("digest", user, lang, mid, digest=digest, date=row.digest_date or "")

    def _match_data(self, item: DigestItem) -> dict[str, object]:
        m = self.loaded.matches[item.match_id]
        return {
            "match_id": m.id,
            "concern_id": m.concern_id,
            "title": m.title,
            "url": m.url,
            "snippet": m.snippet,
            "score": m.score,
            **keyword_fields(m.matched_keywords, m.explanation),
            "why": item.why,
            # as the API writes times (``…Z``)
            "created_at": m.created_at.isoformat().replace("+00:00", "Z"),
        }

    def _webhook_batch(self, items: list[DigestItem], mid: str) -> Message:
        """``match.batch``: the matches of one grouping window, oldest first."""
        matches = [self._match_data(i) for i in reversed(items)]
        data = {"id": mid, "matches": matches, "dashboard_url": f"{self.base}/"}
        subject = f"{len(items)} matches"
        return Message(subject=subject, text=subject, id=mid, data=envelope("match.batch", data))

    def _webhook(self, items: Iterable[DigestItem], mid: str, user: User) -> Message:
        item = next(iter(items))
        data = {"id": mid, **self._match_data(item), "dashboard_url": f"{self.base}/"}
        return Message(
            subject=item.title, text=item.url, id=mid, data=envelope("match.created", data)
        )

    def _apprise(
        self, row: Delivery, user: User, lang: str, items: list[DigestItem], mid: str
    ) -> Message | None:
        """A chat / push message: a title and plain-text lines (title, link, why-line)."""
        if not items and not (row.kind == "digest" and user.digest_when_empty):
            return None
        if row.kind == "digest":
            date = row.digest_date or ""
            title = translate(
                lang, "Timely Push digest for %(date)s: %(n)s new", date=date, n=len(items)
            )
            if not items:
                title = translate(lang, "Timely Push %(date)s: nothing new", date=date)
        elif row.kind == "summary":
            label = concern_label(self.loaded.concerns.get(items[0].concern_id))
            title = translate(
                lang,
                "Timely Push: %(concern)s has %(n)s relevant pages now",
                concern=label,
                n=len(items),
            )
        elif len(items) == 1:
            title = items[0].title
        else:
            title = translate(lang, "Timely Push: %(n)s new matches", n=len(items))
        shown = items[:APPRISE_MAX_ITEMS]
        lines = [f"{i.title}\n{i.url}\n{i.why}" for i in shown]
        more = len(items) - len(shown)
        if more > 0:
            lines.append(translate(lang, "%(n)s more", n=more))
        lines.append(translate(lang, "Dashboard: %(url)s", url=f"{self.base}/"))
        return Message(subject=title, text="\n\n".join(lines), id=mid)

    def _sms(self, items: list[DigestItem], mid: str, lang: str) -> Message:
        if len(items) == 1:
            text = translate(lang, "Timely Push: %(title)s", title=items[0].title)
            link = items[0].url if len(items[0].url) <= 40 else f"{self.base}/"
        else:
            titles = translate(lang, "; ").join(i.title for i in items)
            text = translate(
                lang, "Timely Push: %(n)s new: %(titles)s", n=len(items), titles=titles
            )
            link = f"{self.base}/"
        return Message(subject=text, text=fit_sms(text, link), id=mid)

    def _sms_summary(self, items: list[DigestItem], mid: str, lang: str, label: str) -> Message:
        text = translate(
            lang,
            "Timely Push: %(concern)s has %(n)s relevant pages now (SMS)",
            concern=label,
            n=len(items),
        )
        return Message(subject=text, text=fit_sms(text, f"{self.base}/"), id=mid)


def channel_test_message(settings: Settings, channel: str, lang: str) -> Message:
    """A recognisable test message for ``channel``."""
    import secrets

    mid = "test_" + secrets.token_hex(12)
    r = renderer().render("test", lang)
    if channel == "webhook":
        data = envelope("test", {"id": mid, "message": r.text.strip()})
        return Message(subject=r.subject, text=r.text, id=mid, data=data)
    if channel == "sms":
        return Message(subject=r.subject, text=fit_sms(r.text), id=mid)
    if channel == APPRISE:
        return Message(subject=r.subject, text=r.text.strip(), id=mid)
    return Message(subject=r.subject, text=r.text, html=r.html, id=mid)
