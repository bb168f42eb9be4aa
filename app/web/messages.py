""" "My messages" (我的消息): the feed of matches with filters, search, read state, soft
delete, bulk actions and keyset paging — and, for every match, why it matched.

Queries and rules live in ``app.services.matches``; this module turns query strings into
its arguments and its rows into what the templates show.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, cast
from urllib.parse import urlencode, urlsplit

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from app.core.config import get_settings
from app.core.i18n import N_
from app.models import Match, User
from app.services import account_messages, delivery_actions, push_channels
from app.services import feedback as feedback_svc
from app.services import matches as svc
from app.services.errors import NotFound, ServiceError
from app.web import failures
from app.web.csrf import csrf_protect
from app.web.forms import errors_for, message, read_form, read_list, safe_next
from app.web.sessions import CurrentUser, Db, PageNotFound, flash
from app.web.templating import redirect, render, user_zone
from push import clean_title, site_area, site_suffixes, summary

logger = logging.getLogger(__name__)

router = APIRouter(
    prefix="/messages", dependencies=[Depends(csrf_protect)], include_in_schema=False
)

PAGE_SIZE = 20

# the relevance scorer's place names (crawler.relevance: title / meta / anchor / body), mapped
# to the catalogue's names; older or other shapes use the longer spellings
_PLACES = {
    "title": N_("title"),
    "meta": N_("meta keywords"),
    "meta_keywords": N_("meta keywords"),
    "anchor": N_("anchor text"),
    "anchors": N_("anchor text"),
    "body": N_("body text"),
    "text": N_("body text"),
    "description": N_("description"),
    "url": N_("URL"),
    "section": N_("section"),
}


@dataclass
class Place:
    """Where on the page the terms were found, and that place's share of the score."""

    name: str
    terms: list[str] = field(default_factory=list)
    part: float | None = None
    """This place's share of the score, when the scorer reported it."""


@dataclass
class Why:
    """Why a message was pushed, ready for the page."""

    keywords: list[str]
    places: list[Place]
    score: float
    threshold: float | None = None
    method: str | None = None
    learned: list[str] = field(default_factory=list)
    """Learned terms that fired (the model's own words, not the user's)."""
    probability: float | None = None
    """The judgment model's probability that the page is on topic (model decisions)."""
    kind: str | None = None
    """The page kind the judgment saw: "item" (an article) or "hub" (a section page)."""
    kind_evidence: list[str] = field(default_factory=list)
    feedback: int = 0
    """How many of the user's verdicts had shaped the model when it decided."""
    site_area: float | None = None
    """How close the page sits to the topic's pages on its site (1: as close as they are)."""


@dataclass
class Item:
    """One message of the feed as the page shows it."""

    id: int
    concern_id: int
    title: str
    url: str
    snippet: str
    score: float
    read: bool
    created_at: datetime
    host: str
    concern_label: str
    terms: list[str] = field(default_factory=list)
    why: Why | None = None
    feedback: int | None = None
    """The user's verdict: 1 relevant, -1 not relevant, None not given."""
    raw_title: str = ""


def _terms(value: Any) -> list[str]:
    """The keywords inside one "where" entry (a list of terms, a {term: count} map, …)."""
    if isinstance(value, dict):
        return [str(k) for k, v in value.items() if v]
    if isinstance(value, list | tuple | set):
        return [str(v) for v in value if isinstance(v, str | int)]
    return []


def _read_hits(hits: Iterable[Any], place: Callable[[object], Place | None]) -> list[str]:
    """Record each hit's term at its places; return the learned terms listed as hits."""
    learned_hits: list[str] = []
    for hit in hits:
        if isinstance(hit, dict) and hit.get("learned") and str(hit.get("term", "")).strip():
            learned_hits.append(str(hit["term"]))  # shown as learned, not as a keyword hit
            continue
        if isinstance(hit, dict) and isinstance(hit.get("where"), dict):
            for key, count in hit["where"].items():
                p = place(key) if count else None
                if p is not None and str(hit.get("term", "")) not in p.terms:
                    p.terms.append(str(hit.get("term", "")))
    return learned_hits


def _read_where(where: object, parts: object, place: Callable[[object], Place | None]) -> None:
    """Record a ``{place: terms}`` map's terms and a ``{place: share}`` map's shares."""
    if isinstance(where, dict):
        for key, value in where.items():
            p = place(key) if value else None
            if p is not None:
                p.terms += [t for t in _terms(value) if t not in p.terms]
    if isinstance(parts, dict):
        for key, value in parts.items():
            if isinstance(value, int | float) and value > 0:
                p = place(key)
                if p is not None:
                    p.part = float(value)


def _places(info: dict[str, Any]) -> tuple[list[Place], list[str]]:
    """Where the keywords were found, by place (from ``hits``, ``where`` and ``parts``), and the
    learned terms listed among the hits."""
    places: dict[str, Place] = {}

    def place(key: object) -> Place | None:
        name = _PLACES.get(str(key).lower())
        if name is None:
            return None
        return places.setdefault(name, Place(name))

    learned_hits = _read_hits(info.get("hits") or [], place)
    _read_where(info.get("where"), info.get("parts"), place)
    return list(places.values()), learned_hits


def explain(match: Match) -> Why:
    """Why ``match`` matched: its keywords, where they were found, the score.

    Reads the crawler's relevance explanation — ``hits`` (``[{term, where: {place: n}}]``)
    and ``parts`` (``{place: share of the score}``) — and also a simpler ``where`` map
    (``{place: terms}``) when that is what was stored.
    """
    info = match.explanation if isinstance(match.explanation, dict) else {}
    places, learned_hits = _places(info)
    threshold = info.get("threshold")
    method = info.get("method")
    raw_learned = info.get("learned")
    learned = [t for t in raw_learned or () if isinstance(t, str)]
    if not isinstance(raw_learned, list):
        learned = []
    learned += [t for t in learned_hits if t not in learned]
    probability = info.get("probability")
    if not isinstance(probability, int | float):
        probability = match.probability
    kind = info.get("kind") if isinstance(info.get("kind"), str) else None
    evidence = info.get("kind_evidence")
    verdicts = info.get("feedback")
    keywords = list(match.matched_keywords)
    if method == "model":
        # the model's words that fired are stored with the keyword hits (the feed highlights
        # both); shown as keywords, they would read as the user's own
        keywords = [k for k in keywords if k not in learned]
    return Why(
        keywords=keywords,
        places=places,
        score=float(match.score),
        threshold=float(threshold) if isinstance(threshold, int | float) else None,
        method=str(method) if isinstance(method, str) else None,
        learned=learned,
        probability=float(probability) if isinstance(probability, int | float) else None,
        kind=kind or (match.kind if method == "model" else None),
        kind_evidence=[str(e) for e in evidence] if isinstance(evidence, list) else [],
        feedback=verdicts if isinstance(verdicts, int) and verdicts > 0 else 0,
        site_area=site_area(info),
    )


def _suffixes(matches: Iterable[Match]) -> dict[str, frozenset[str]]:
    """Per host, the site-name suffixes that recur across these matches' titles."""
    by_host: dict[str, list[str]] = {}
    for m in matches:
        by_host.setdefault(urlsplit(m.url).hostname or "", []).append(m.title)
    return {host: site_suffixes(titles) for host, titles in by_host.items()}


def _item(
    match: Match, labels: dict[int, str], suffixes: dict[str, frozenset[str]] | None = None
) -> Item:
    """The message as shown: the headline without the site's name, a summary that does not
    repeat it (the stored title stays whole: search reads it)."""
    assert match.id is not None
    host = urlsplit(match.url).hostname or ""
    title = clean_title(match.title, (suffixes or {}).get(host, ())) if match.title else ""
    return Item(
        id=match.id,
        concern_id=match.concern_id,
        title=title,
        url=match.url,
        snippet=summary(match.snippet, match.title, 300, headline=title),
        raw_title=match.title,
        score=float(match.score),
        read=match.read_at is not None,
        created_at=match.created_at,
        host=host,
        concern_label=labels.get(match.concern_id, ""),
        terms=list(match.matched_keywords),
        why=explain(match),
        feedback=match.feedback,
    )


def _day(value: str | None, user: User, *, end: bool) -> datetime | None:
    """A date typed in the filter, as the UTC start of that local day (or of the next)."""
    if not value:
        return None
    day = date.fromisoformat(value)
    if end:
        day += timedelta(days=1)
    return datetime.combine(day, time(0), tzinfo=user_zone(user)).astimezone(UTC)


@dataclass
class Filters:
    """The feed's search conditions, from the query string."""

    q: str = ""
    concern: int | None = None
    keyword: str = ""
    site: str = ""
    since: str = ""
    until: str = ""
    unread: bool = False
    cursor: str = ""

    def query(self, **override: Any) -> str:
        values = {
            "q": self.q,
            "concern": self.concern or "",
            "keyword": self.keyword,
            "site": self.site,
            "since": self.since,
            "until": self.until,
            "unread": "1" if self.unread else "",
            "cursor": self.cursor,
        }
        values.update(override)
        return urlencode({k: v for k, v in values.items() if v not in ("", None)})

    @property
    def active(self) -> bool:
        return bool(
            self.q
            or self.concern
            or self.keyword
            or self.site
            or self.since
            or self.until
            or self.unread
        )


def _filters(request: Request) -> Filters:
    p = request.query_params
    concern = p.get("concern", "")
    return Filters(
        q=p.get("q", "").strip(),
        concern=int(concern) if concern.isdigit() else None,
        keyword=p.get("keyword", "").strip(),
        site=p.get("site", "").strip(),
        since=p.get("since", ""),
        until=p.get("until", ""),
        unread=p.get("unread") == "1",
        cursor=p.get("cursor", ""),
    )


@router.get("")
def message_list(request: Request, db: Db, user: CurrentUser) -> Response:
    f = _filters(request)
    labels = svc.concern_names(db, user)
    errors: dict[str, str] = {}
    rows: list[Match] = []
    next_cursor: str | None = None
    try:
        since = _day(f.since, user, end=False)
        until = _day(f.until, user, end=True)
    except ValueError:
        since = until = None
        errors["form"] = message(request, user, "Enter dates as YYYY-MM-DD.")
    if not errors:
        try:
            rows, next_cursor = svc.list_matches(
                db,
                user,
                concern_id=f.concern,
                keyword=f.keyword or None,
                site=f.site or None,
                since=since,
                until=until,
                q=f.q or None,
                unread=True if f.unread else None,
                cursor=f.cursor or None,
                limit=PAGE_SIZE,
            )
        except ServiceError as exc:
            errors = errors_for(request, user, exc, fields=())
    back = "/messages" + (f"?{f.query()}" if f.query() else "")
    suffixes = _suffixes(rows)
    return render(
        request,
        "messages/list.html",
        {
            "items": [_item(m, labels, suffixes) for m in rows],
            "filters": f,
            "filtered": f.active,
            "concerns": [{"id": k, "label": v} for k, v in labels.items()],
            "sms_available": account_messages.sms_available(get_settings()),
            "next_url": f"/messages?{f.query(cursor=next_cursor)}" if next_cursor else None,
            "first_url": f"/messages?{f.query(cursor='')}" if f.cursor else None,
            "back": back,
            "errors": errors,
        },
        user=user,
    )


def _owned(db: Db, user: User, match_id: int) -> Match:
    try:
        return svc.get_match(db, user, match_id)
    except NotFound as exc:
        raise PageNotFound from exc


@router.get("/{match_id}")
def message_detail(request: Request, db: Db, user: CurrentUser, match_id: int) -> Response:
    match = _owned(db, user, match_id)
    if match.read_at is None:
        match = svc.mark_read(db, user, match_id)
        # the navigation badge, counted before this message was read (``page_user``)
        request.state.unread_count = svc.unread_count(db, user)
    item = _item(match, svc.concern_names(db, user))
    context = {
        "m": item,
        "deliveries": delivery_actions.match_deliveries(db, user, match_id),
        # a chat or push app is named as the user named it (its row is found by its URL)
        "channel_names": {c.url: c.name for c in push_channels.list_channels(db, user) if c.name},
        "resendable": RESENDABLE,
        "send_failure": failures.send_failure,
    }
    return render(request, "messages/detail.html", context, user=user)


RESENDABLE = frozenset({"sent", "failed", "dead"})
"""The deliveries "Send again" makes sense for: done, one way or the other (a pending or
sending row is still on its way)."""


async def _back(request: Request) -> str:
    values = await read_form(request)
    return safe_next(values.get("back"), "/messages")


@router.post("/bulk")
async def message_bulk(request: Request, db: Db, user: CurrentUser) -> Response:
    values = await read_form(request)
    ids = [int(v) for v in await read_list(request, "ids") if v.isdigit()]
    action = values.get("action", "")
    if not ids:
        flash(request, "Select at least one message.", "error")
    else:
        try:
            changed = svc.bulk(db, user, ids, cast(svc.BulkAction, action))
            flash(request, "%(n)s messages updated.", "success", n=changed)
        except ServiceError as exc:
            flash(
                request,
                "%(error)s",
                "error",
                error=errors_for(request, user, exc, fields=()).popitem()[1],
            )
    return redirect(safe_next(values.get("back"), "/messages"))


@router.post("/{match_id}/read")
async def message_read(request: Request, db: Db, user: CurrentUser, match_id: int) -> Response:
    _owned(db, user, match_id)
    svc.mark_read(db, user, match_id)
    return redirect(await _back(request))


@router.post("/{match_id}/unread")
async def message_unread(request: Request, db: Db, user: CurrentUser, match_id: int) -> Response:
    _owned(db, user, match_id)
    svc.mark_unread(db, user, match_id)
    return redirect(await _back(request))


_VERDICTS: dict[str, bool | None] = {"relevant": True, "not_relevant": False, "clear": None}
_THANKS = {
    True: N_("Marked relevant. The next visit learns from it."),
    False: N_("Marked not relevant. The next visit learns from it and pushes fewer pages like it."),
    None: N_("Verdict cleared."),
}


@router.post("/{match_id}/feedback")
async def message_feedback(request: Request, db: Db, user: CurrentUser, match_id: int) -> Response:
    """👍 / 👎 on a message (or clear it); the concern's model retrains from it next visit."""
    _owned(db, user, match_id)
    values = await read_form(request)
    verdict = values.get("verdict", "")
    if verdict not in _VERDICTS:
        flash(request, "Choose relevant or not relevant.", "error")
    else:
        feedback_svc.set_feedback(db, user, match_id, _VERDICTS[verdict])
        db.commit()  # before the redirect: the next page must see it
        flash(request, _THANKS[_VERDICTS[verdict]], "success")
    back = safe_next(values.get("back"), f"/messages/{match_id}")
    if back.startswith("/messages?") or back == "/messages":
        back += f"#m{match_id}"
    return redirect(back)


@router.post("/{match_id}/deliveries/{delivery_id}/resend")
def message_resend(
    request: Request, db: Db, user: CurrentUser, match_id: int, delivery_id: int
) -> Response:
    """Queue one delivery of this message again (a new message through the same channel)."""
    _owned(db, user, match_id)
    try:
        delivery_actions.resend_for_match(db, user, match_id, delivery_id)
    except NotFound as exc:
        raise PageNotFound from exc
    flash(request, "Queued to be sent again.", "success")
    return redirect(f"/messages/{match_id}")


@router.post("/{match_id}/delete")
async def message_delete(request: Request, db: Db, user: CurrentUser, match_id: int) -> Response:
    _owned(db, user, match_id)
    svc.delete_match(db, user, match_id)
    flash(request, "Message deleted.", "info")
    return redirect("/messages")
