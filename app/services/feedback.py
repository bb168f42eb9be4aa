"""Feedback that teaches: the user's verdict on a message (👍 relevant / 👎 not relevant),
the labelled pages the next visit retrains the concern's model from, signed "not relevant"
links for email, and what the model learned — each learned term removable (blocked for good)
or promotable to a synonym.

Services flush; the request edge commits.
"""

from __future__ import annotations

import logging
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from app.core.config import Settings
from app.core.security import predates, sign, unsign_dated
from app.models import Concern, Match, Page, User, utcnow
from app.services.concerns import get_concern, normalize_keywords
from app.services.errors import Invalid, NotFound
from app.services.matches import get_match
from crawler.judgment import Example, Judge
from crawler.profile import TopicProfile

logger = logging.getLogger(__name__)

RELEVANT = 1
NOT_RELEVANT = -1
FEEDBACK_SALT = "feedback"
FEEDBACK_MAX_AGE = 365 * 86400
"""Links in mail keep working for a year."""
SHOWN_TERMS = 20
EXAMPLE_TEXT_CHARS = 8000


# --- verdicts --------------------------------------------------------------------------------


def verdict_value(relevant: bool | None) -> int | None:
    return None if relevant is None else (RELEVANT if relevant else NOT_RELEVANT)


def record(match: Match, relevant: bool | None) -> bool:
    """Store the verdict on ``match``; False when it was already that (nothing changes)."""
    value = verdict_value(relevant)
    if match.feedback == value:
        return False
    match.feedback = value
    match.feedback_at = None if value is None else utcnow()
    return True


def set_feedback(session: Session, user: User, match_id: int, relevant: bool | None) -> Match:
    """The user's verdict on their message: True relevant, False not relevant, None cleared."""
    return judge(session, get_match(session, user, match_id), relevant)


def judge(session: Session, match: Match, relevant: bool | None) -> Match:
    """``set_feedback`` on a match the caller loaded as the user's."""
    if record(match, relevant):
        session.add(match)
        session.flush()
        logger.info("feedback %s on match %s", match.feedback, match.id)
    return match


def feedback_count(session: Session, concern_id: int) -> int:
    """How many verdicts the user gave on the concern's messages."""
    rows = session.exec(
        select(Match.id).where(Match.concern_id == concern_id, col(Match.feedback).is_not(None))
    )
    return len(rows.all())


def feedback_examples(session: Session, concern_id: int, limit: int = 500) -> list[Example]:
    """The concern's labelled pages, newest verdict first, for retraining its model.

    A message the user deleted after judging it still teaches: the verdict stays.
    """
    stmt = (
        select(Page, Match.feedback)
        .join(Page, col(Page.id) == col(Match.page_id))
        .where(Match.concern_id == concern_id, col(Match.feedback).is_not(None))
        .order_by(col(Match.feedback_at).desc(), col(Match.id).desc())
        .limit(max(0, limit))
    )
    out = []
    for page, value in session.exec(stmt):
        text = " ".join(part for part in (page.description, page.excerpt) if part)
        out.append(
            Example(
                title=page.title,
                text=text[:EXAMPLE_TEXT_CHARS],
                label=(value or 0) > 0,
                url=page.final_url,
            )
        )
    return out


# --- signed "not relevant" links -------------------------------------------------------------


def feedback_token(secret_key: str, match_id: int, relevant: bool = False) -> str:
    """A signed token naming one message and one verdict (for links in email)."""
    return sign(secret_key, FEEDBACK_SALT, {"m": match_id, "v": verdict_value(relevant)})


def feedback_url(settings: Settings, match_id: int, secret_key: str | None = None) -> str:
    """The "not relevant" link of a message: a confirmation page, no login needed."""
    token = feedback_token(secret_key or settings.effective_secret_key(), match_id)
    return f"{settings.base_url.rstrip('/')}/feedback/{token}"


@dataclass(frozen=True)
class SignedVerdict:
    """The message and the verdict (1 or -1) a signed feedback link carries."""

    match_id: int
    value: int
    signed_at: datetime


def read_token(settings: Settings, token: str) -> SignedVerdict | None:
    """The message and verdict a link names, or None when the signature does not hold."""
    signed = unsign_dated(settings.effective_secret_key(), FEEDBACK_SALT, token, FEEDBACK_MAX_AGE)
    if signed is None:
        return None
    payload, signed_at = signed
    if not isinstance(payload, dict):
        return None
    match_id, value = payload.get("m"), payload.get("v")
    if not isinstance(match_id, int) or value not in (RELEVANT, NOT_RELEVANT):
        return None
    return SignedVerdict(match_id=match_id, value=value, signed_at=signed_at)


def signed_match(session: Session, verdict: SignedVerdict) -> Match:
    """The (not deleted) message a valid link names; NotFound otherwise (also when the
    message under that id is younger than the link: the one it named was deleted, and its id
    given to another user's message)."""
    match = session.get(Match, verdict.match_id)
    if (
        match is None
        or match.deleted_at is not None
        or not predates(match.created_at, verdict.signed_at)
    ):
        raise NotFound("This message no longer exists.", code="match_not_found")
    return match


def apply_signed(session: Session, verdict: SignedVerdict) -> Match:
    """Record the verdict of a confirmed email link (repeating it changes nothing)."""
    match = signed_match(session, verdict)
    if record(match, verdict.value > 0):
        session.add(match)
        session.flush()
        logger.info("feedback %s on match %s from an email link", match.feedback, match.id)
    return match


# --- what the model learned ------------------------------------------------------------------


@dataclass(frozen=True)
class LearnedTerm:
    """A learned word of a concern's model and its weight."""

    term: str
    weight: float


def _fold(term: str) -> str:
    return unicodedata.normalize("NFKC", term).casefold().strip()


def learned_terms(concern: Concern, n: int = SHOWN_TERMS) -> list[LearnedTerm]:
    """The model's strongest topic terms, strongest first: ``Concern.learned_terms`` (filled
    after each visit), else the positive weights of the stored model. Terms the user blocked
    or already uses as keywords or synonyms are left out."""
    source: dict[str, Any] = dict(concern.learned_terms or {})
    if not source:
        weights = (concern.model_state or {}).get("weights")
        source = dict(weights) if isinstance(weights, dict) else {}
    known = {_fold(t) for t in (*concern.blocked_terms, *concern.keywords, *concern.synonyms)}
    terms = [
        LearnedTerm(str(t), float(w))
        for t, w in source.items()
        if isinstance(w, int | float) and w > 0 and str(t).strip() and _fold(str(t)) not in known
    ]
    terms.sort(key=lambda lt: (-lt.weight, lt.term))
    return terms[:n]


@dataclass(frozen=True, slots=True)
class Sparse:
    """The last visits read ``items`` pages and only ``printing`` printed the concern's words
    clearly: fewer than the ``need`` the model learns from."""

    items: int
    printing: int
    need: int


def sparse_words(concern: Concern) -> Sparse | None:
    """Why nothing was learned, when the reason is the site's words: the stored state has no
    model, its pages are enough to learn from (``min_items``), but fewer than
    ``min_positives`` of them could be a fit's first positives — they print the keywords or
    synonyms clearly (title, URL, breadcrumb, meta keywords, or again and again in the text;
    the judgment's own count, ``Judge.first_positives``). Such a concern pushes only those
    few pages: the topic's other pages never say its words. None otherwise."""
    state = concern.model_state or {}
    if state.get("weights") or not state.get("history"):
        return None
    profile = TopicProfile.from_keywords(
        concern.keywords, concern.synonyms, concern.exclude, params=concern.params
    )
    judge = Judge(profile, params=concern.params, state=state, blocked=concern.blocked_terms)
    need, printing = int(judge.params["min_positives"]), judge.first_positives()
    if len(judge.seen) < judge.params["min_items"] or printing >= need:
        return None
    return Sparse(len(judge.seen), printing, need)


def _learned(concern: Concern, term: str) -> str:
    wanted = _fold(term)
    for lt in learned_terms(concern, n=10_000):
        if _fold(lt.term) == wanted:
            return lt.term
    raise NotFound(
        "This is not one of the concern's learned terms.",
        code="term_not_found",
        details={"field": "term"},
    )


def _forget(concern: Concern, term: str) -> None:
    concern.learned_terms = {t: w for t, w in concern.learned_terms.items() if t != term}
    concern.updated_at = utcnow()


def block_term(session: Session, user: User, concern_id: int, term: str) -> Concern:
    """Remove a learned term: the model never uses it again for this concern."""
    return block(session, get_concern(session, user, concern_id), term)


def block(session: Session, concern: Concern, term: str) -> Concern:
    """``block_term`` on a concern the caller loaded as the user's."""
    term = _learned(concern, term)
    concern.blocked_terms = [*concern.blocked_terms, term]
    _forget(concern, term)
    session.add(concern)
    session.flush()
    logger.info("concern %s: learned term blocked", concern.id)
    return concern


def restore_term(session: Session, user: User, concern_id: int, term: str) -> Concern:
    """Undo ``block_term``: the model may use the term again (from the next visit on)."""
    return restore(session, get_concern(session, user, concern_id), term)


def restore(session: Session, concern: Concern, term: str) -> Concern:
    """``restore_term`` on a concern the caller loaded as the user's."""
    wanted = _fold(term)
    kept = [t for t in concern.blocked_terms if _fold(t) != wanted]
    if len(kept) == len(concern.blocked_terms):
        raise NotFound(
            "This is not one of the concern's removed terms.",
            code="term_not_found",
            details={"field": "term"},
        )
    concern.blocked_terms = kept
    concern.updated_at = utcnow()
    session.add(concern)
    session.flush()
    logger.info("concern %s: removed term restored", concern.id)
    return concern


def promote_term(session: Session, user: User, concern_id: int, term: str) -> Concern:
    """Make a learned term one of the concern's synonyms (it then counts like a keyword)."""
    return promote(session, get_concern(session, user, concern_id), term)


def promote(session: Session, concern: Concern, term: str) -> Concern:
    """``promote_term`` on a concern the caller loaded as the user's."""
    term = _learned(concern, term)
    try:
        synonyms = normalize_keywords([*concern.synonyms, term], field="synonyms")
    except Invalid as exc:
        raise Invalid(exc.message, code=exc.code, details={"field": "term"}) from exc
    concern.synonyms = synonyms
    _forget(concern, term)
    session.add(concern)
    session.flush()
    logger.info("concern %s: learned term promoted to a synonym", concern.id)
    return concern
