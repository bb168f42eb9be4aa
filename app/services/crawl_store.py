"""Writing one crawled page: the Page row, its Links, and each concern's Match — idempotently.

Every write tolerates being repeated (a site re-crawled, a killed worker's crawl resumed by
another): pages are upserted by ``canonical_url``, links and matches are inserted with
``ON CONFLICT DO NOTHING`` against the database's unique constraints (one match per
concern × page and per concern × content fingerprint). A page that is a near-duplicate
(simhash Hamming distance ≤ 3) of one the concern already matched is not matched again.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from app.models import Concern, Link, Match, Page, PageKind, utcnow

logger = logging.getLogger(__name__)

MAX_LINKS = 500
RECENT_MATCHES = 500
NEAR_DUP_BITS = 3


def _insert(session: Session) -> Any:
    return postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert


def _cut(value: str | None, n: int) -> str:
    return (value or "")[:n]


@dataclass
class ConcernScorer:
    """One concern's profile plus the fingerprints of its recent matches."""

    concern: Concern
    profile: Any  # crawler.TopicProfile
    method: str = "kp"
    recent_simhashes: list[int] = field(default_factory=list)
    judge: Any = None
    """The concern's judgment model (``crawler.Judge``) when it decides by the model."""

    def near_duplicate_of_match(self, simhash: int) -> bool:
        from crawler import near_duplicate

        if not simhash:
            return False
        return any(near_duplicate(simhash, s, NEAR_DUP_BITS) for s in self.recent_simhashes if s)


def load_recent_simhashes(session: Session, concern_id: int) -> list[int]:
    stmt = (
        select(Page.simhash)
        .join(Match, col(Match.page_id) == col(Page.id))
        .where(Match.concern_id == concern_id)
        .order_by(col(Match.id).desc())
        .limit(RECENT_MATCHES)
    )
    return [int(s) for s in session.exec(stmt) if s]


def page_key(page: Any) -> str:
    """The URL a crawled page is stored under (the crawler canonicalised it)."""
    return _cut(page.final_url or page.url, 2048)


def upsert_page(session: Session, page: Any, site_id: int) -> tuple[Page, bool, bool]:
    """Insert or refresh the Page row; returns (row, is_new, content_changed)."""
    key = page_key(page)
    now = utcnow()
    values = {
        "final_url": key,
        "site_id": site_id,
        "title": _cut(page.title, 1000),
        "meta_keywords": _cut(page.meta_keywords, 2000),
        "description": _cut(page.description, 4000),
        "excerpt": _cut(page.text, 1000),
        "content_hash": _cut(page.content_hash, 64),
        "simhash": int(page.simhash or 0),
        "status": int(page.status or 200),
        "last_seen_at": now,
    }
    row = session.exec(select(Page).where(col(Page.canonical_url) == key)).first()
    if row is None:
        stmt = (
            _insert(session)(Page)
            .values(canonical_url=key, first_seen_at=now, **values)
            .on_conflict_do_nothing(index_elements=["canonical_url"])
            .returning(col(Page.id))
        )
        inserted = session.exec(stmt).scalar_one_or_none() is not None
        row = session.exec(select(Page).where(col(Page.canonical_url) == key)).one()
        return row, inserted, inserted
    changed = bool(page.content_hash) and page.content_hash != row.content_hash
    for name, value in values.items():
        setattr(row, name, value)
    session.add(row)
    session.flush()
    return row, False, changed


def insert_links(session: Session, page_id: int, links: Sequence[Any]) -> None:
    rows = []
    seen: set[str] = set()
    for link in links[:MAX_LINKS]:
        url = _cut(link.url, 2048)
        if url and url not in seen:
            seen.add(url)
            rows.append({"src_page_id": page_id, "dst_url": url, "anchor": _cut(link.anchor, 500)})
    if rows:
        stmt = _insert(session)(Link).values(rows).on_conflict_do_nothing()
        session.exec(stmt)


def _snippet(page: Any) -> str:
    """The description, else the article's first sentences; never the title again.
    ``page`` is a crawled page (its main text) or a stored one (its excerpt)."""
    from push import summary

    title = page.title or ""
    text = getattr(page, "text", None) or getattr(page, "excerpt", "") or ""
    return summary(page.description or "", title, 300) or summary(text, title, 300)


def match_page(
    session: Session,
    row: Page,
    page: Any,
    scorers: Sequence[ConcernScorer],
    *,
    anchor: str = "",
) -> list[Match]:
    """Score ``page`` for every concern; insert the new matches (never twice). ``anchor``: the
    text of the links that led to it, which the judgment reads as the crawl's own does."""
    from crawler import score_page

    created: list[Match] = []
    for scorer in scorers:
        concern = scorer.concern
        if scorer.judge is not None:
            judgment = scorer.judge.judge(page, anchor=anchor)
            if not judgment.relevant:
                continue
            score, terms, explanation = judgment.probability, judgment.terms, judgment.explanation
            probability: float | None = judgment.probability
        else:
            rel = score_page(page, scorer.profile, method=scorer.method, params=concern.params)
            if not rel.matched or page.kind != PageKind.ITEM:
                continue
            score, terms, explanation, probability = rel.score, rel.terms, rel.explanation, None
        match = _insert_match(
            session, scorer, row, page, score, terms, explanation, probability, page.kind
        )
        if match is not None:
            created.append(match)
    return created


def judge_rest(session: Session, scorers: Sequence[ConcernScorer]) -> list[Match]:
    """The end of a visit: each model refits on the whole visit and re-judges the items it
    did not push; those it pushes now become matches (still at most one per concern × page)."""
    created: list[Match] = []
    for scorer in scorers:
        if scorer.judge is None:
            continue
        for url, judgment in scorer.judge.finish():
            row = session.exec(select(Page).where(col(Page.canonical_url) == url)).first()
            if row is None:
                continue
            match = _insert_match(
                session,
                scorer,
                row,
                row,
                judgment.probability,
                judgment.terms,
                {**judgment.explanation, "decided": "end of visit"},
                judgment.probability,
                judgment.kind,
            )
            if match is not None:
                created.append(match)
    return created


def _insert_match(
    session: Session,
    scorer: ConcernScorer,
    row: Page,
    page: Any,
    score: float,
    terms: Sequence[str],
    explanation: dict[str, Any],
    probability: float | None,
    kind: str,
) -> Match | None:
    """Insert one concern's match for a stored page (never twice, never a near-duplicate)."""
    concern = scorer.concern
    if session.get(Concern, concern.id) is None:
        return None  # deleted while its site is read (the visit drops it at its next checkpoint)
    simhash = int(page.simhash or 0)
    if scorer.near_duplicate_of_match(simhash):
        logger.debug("concern %s: %s is a near-duplicate, skipped", concern.id, row.final_url)
        return None
    snippet = _snippet(page)
    stmt = (
        _insert(session)(Match)
        .values(
            concern_id=concern.id,
            page_id=row.id,
            user_id=concern.owner_id,
            fingerprint=_cut(page.content_hash or f"url:{row.id}", 64),
            score=float(score),
            matched_keywords=list(terms)[:50],
            explanation=explanation,
            title=_cut(page.title or row.final_url, 1000),
            url=row.final_url,
            snippet=snippet,
            created_at=utcnow(),
            probability=probability,
            kind=kind,
        )
        .on_conflict_do_nothing()
        .returning(col(Match.id))
    )
    new_id = session.exec(stmt).scalar_one_or_none()
    if new_id is None:
        return None
    if simhash:
        scorer.recent_simhashes.insert(0, simhash)
    return session.get(Match, new_id)
