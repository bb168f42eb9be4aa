"""Concerns ("关注"): a seed URL plus keywords, owned by one user, crawled through a shared Site.

Keyword rules (``normalize_keywords``): a string is split on commas and list punctuation —
``,`` ``，`` ``、`` ``;`` ``；`` and line breaks — but not on spaces, so English phrases such
as "machine learning" stay one keyword; each keyword is NFKC-folded (full-width letters and
digits become ASCII), inner whitespace collapsed and trimmed; duplicates are dropped
case-insensitively, keeping the first spelling.
"""

from __future__ import annotations

import logging
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from app.core.config import Settings, get_settings
from app.models import (
    PUSH_MODES,
    SCOPES,
    STRATEGIES,
    Concern,
    ConcernCreate,
    ConcernPublic,
    ConcernUpdate,
    CrawlRun,
    Site,
    User,
    concerns_query,
    sites_query,
    utcnow,
)
from app.services import sites
from app.services.errors import Conflict, Invalid, NotFound
from app.services.urlcheck import check_seed_url

logger = logging.getLogger(__name__)

MAX_KEYWORDS = 20
MAX_KEYWORD_CHARS = 50
MAX_CONCERNS_PER_USER = 200
MAX_PARAMS = 20
_SPLIT = re.compile(r"[,，、;；\n\r]+")
_SPACES = re.compile(r"\s+")


def normalize_keywords(
    value: str | Sequence[str] | None, *, field: str = "keywords", allow_empty: bool = False
) -> list[str]:
    """The cleaned keyword list, or Invalid with a message naming the problem."""
    if value is None:
        items: Iterable[str] = []
    elif isinstance(value, str):
        items = [value]
    else:
        items = value
    result: list[str] = []
    seen: set[str] = set()
    for item in items:
        if not isinstance(item, str):
            raise Invalid("Enter the words as text.", details={"field": field})
        for raw in _SPLIT.split(unicodedata.normalize("NFKC", item)):
            word = _SPACES.sub(" ", raw).strip().strip("\"'“”‘’")
            if any(unicodedata.category(ch) == "Cc" for ch in word):
                raise Invalid(
                    "The words cannot contain control characters.", details={"field": field}
                )
            if not word:
                continue
            if len(word) > MAX_KEYWORD_CHARS:
                raise Invalid(
                    "“%(word)s…” is longer than %(n)s characters; use shorter keywords.",
                    code="keyword_too_long",
                    details={"field": field},
                    params={"word": word[:20], "n": MAX_KEYWORD_CHARS},
                )
            folded = word.casefold()
            if folded not in seen:
                seen.add(folded)
                result.append(word)
    if not result and not allow_empty:
        raise Invalid(
            "Enter at least one keyword (separate several with commas).",
            code="no_keywords",
            details={"field": field},
        )
    if len(result) > MAX_KEYWORDS:
        raise Invalid(
            "At most %(n)s keywords per concern (%(given)s given).",
            code="too_many_keywords",
            details={"field": field},
            params={"n": MAX_KEYWORDS, "given": len(result)},
        )
    return result


def _check_choices(strategy: str | None, scope: str | None, push_mode: str | None) -> None:
    if strategy is not None and strategy not in STRATEGIES:
        raise Invalid(
            "Unknown strategy “%(name)s”; choose one from the list.",
            details={"field": "strategy", "choices": list(STRATEGIES)},
            params={"name": strategy},
        )
    if scope is not None and scope not in SCOPES:
        raise Invalid("Choose the scope: host, domain or any.", details={"field": "scope"})
    if push_mode is not None and push_mode not in PUSH_MODES:
        raise Invalid(
            "Choose when to push: instant, digest, both or off.", details={"field": "push_mode"}
        )


def _check_params(params: dict[str, float]) -> dict[str, float]:
    if len(params) > MAX_PARAMS:
        raise Invalid(
            "At most %(n)s strategy parameters.",
            details={"field": "params"},
            params={"n": MAX_PARAMS},
        )
    for name, value in params.items():
        bad_name = not name or len(name) > 40 or not name.isprintable()
        if bad_name or math.isnan(value) or abs(value) > 1e9:
            raise Invalid(
                "Bad strategy parameter “%(name)s”.",
                details={"field": "params"},
                params={"name": name},
            )
    return dict(params)


def create_concern(
    session: Session,
    user: User,
    data: ConcernCreate,
    *,
    probe: bool = True,
    settings: Settings | None = None,
) -> Concern:
    """Validate and save a new concern, attach its shared site and schedule a visit now.

    The seed URL gets https:// when it has no scheme, must pass the SSRF guard and (with
    ``probe``) answer a HEAD/GET; each failure is an Invalid with a message for the user.
    """
    settings = settings or get_settings()
    keywords = normalize_keywords(data.keywords)
    exclude = normalize_keywords(data.exclude, field="exclude", allow_empty=True)
    synonyms = normalize_keywords(data.synonyms, field="synonyms", allow_empty=True)
    _check_choices(data.strategy, data.scope, data.push_mode)
    params = _check_params(data.params)
    too_many = Invalid(
        "You already have %(n)s concerns; delete some first.",
        code="too_many_concerns",
        params={"n": MAX_CONCERNS_PER_USER},
    )
    if _concern_count(session, user) >= MAX_CONCERNS_PER_USER:
        raise too_many  # early, before the URL is probed
    seed_url = check_seed_url(settings, data.seed_url, probe_it=probe)
    assert user.id is not None
    concern = Concern(
        owner_id=user.id,
        seed_url=seed_url,
        keywords=keywords,
        exclude=exclude,
        synonyms=synonyms,
        strategy=data.strategy,
        params=params,
        scope=data.scope,
        priority=data.priority,
        max_pages=data.max_pages,
        push_mode=data.push_mode,
        enabled=data.enabled,
        scorer=data.scorer,
        sensitivity=data.sensitivity,
    )
    # the limit holds under parallel requests: PostgreSQL serialises this user's creations
    # on the user row; SQLite's single writer holds from the insert to the commit, so the
    # count after our own insert sees every other committed one
    session.exec(select(User.id).where(User.id == user.id).with_for_update()).first()
    _check_new(session, user.id, seed_url, data.scope, keywords)
    session.add(concern)
    session.flush()
    if _concern_count(session, user) > MAX_CONCERNS_PER_USER:
        session.rollback()
        raise too_many
    site = sites.attach_site(session, concern)
    if concern.enabled:
        sites.check_now(session, site)
    session.flush()
    session.refresh(concern)
    logger.info("concern %s of user %s on site %s", concern.id, user.id, site.id)
    return concern


def _check_new(
    session: Session,
    owner_id: int,
    seed_url: str,
    scope: str,
    keywords: Sequence[str],
    *,
    other_than: int | None = None,
) -> None:
    """Conflict when the user already watches the same site (the same seed and scope, as the
    crawl sees it: ``https://a.cn`` and ``https://a.cn/`` are one) for the same keywords, in
    any order and case: a second such concern would only push every page twice."""
    key = sites.scope_key(seed_url, scope)
    words = {k.casefold() for k in keywords}
    same = session.exec(
        select(Concern.id, Concern.keywords)
        .join(Site, col(Site.id) == col(Concern.site_id))
        .where(Concern.owner_id == owner_id, Site.scope_key == key)
    )
    for concern_id, their in same:
        if concern_id != other_than and {k.casefold() for k in their} == words:
            raise Conflict(
                "You already watch this site for these keywords (concern %(id)s).",
                code="duplicate_concern",
                details={"field": "keywords", "concern_id": concern_id},
                params={"id": concern_id},
            )


def _check_changed(session: Session, concern: Concern, changes: dict[str, Any]) -> None:
    """``_check_new`` for an edit that changes the concern's site or keywords."""
    after = {k: changes.get(k, getattr(concern, k)) for k in ("seed_url", "scope", "keywords")}
    if any(after[k] != getattr(concern, k) for k in after):
        _check_new(
            session,
            concern.owner_id,
            after["seed_url"],
            after["scope"],
            after["keywords"],
            other_than=concern.id,
        )


def _concern_count(session: Session, user: User) -> int:
    return int(
        session.exec(
            select(func.count()).select_from(Concern).where(Concern.owner_id == user.id)
        ).one()
    )


def list_concerns(session: Session, user: User) -> list[Concern]:
    """The user's concerns, newest first."""
    return list(
        session.exec(
            concerns_query()
            .where(Concern.owner_id == user.id)
            .order_by(col(Concern.created_at).desc(), col(Concern.id).desc())
        )
    )


def get_concern(session: Session, user: User, concern_id: int) -> Concern:
    """The user's concern; NotFound for a missing one or someone else's."""
    concern = session.get(Concern, concern_id)
    if concern is None or concern.owner_id != user.id:
        raise NotFound("No such concern.", code="concern_not_found")
    return concern


def update_concern(
    session: Session,
    user: User,
    concern_id: int,
    data: ConcernUpdate,
    *,
    probe: bool = True,
    settings: Settings | None = None,
) -> Concern:
    """Apply the fields set in ``data`` to the user's concern (``apply_update``)."""
    return apply_update(
        session, get_concern(session, user, concern_id), data, probe=probe, settings=settings
    )


def apply_update(
    session: Session,
    concern: Concern,
    data: ConcernUpdate,
    *,
    probe: bool = True,
    settings: Settings | None = None,
) -> Concern:
    """Apply the fields set in ``data`` to a concern the caller loaded as the user's; a new
    seed or scope moves the concern to its site."""
    changes: dict[str, Any] = data.model_dump(exclude_unset=True)
    for field in (
        "strategy", "scope", "priority", "max_pages", "enabled", "params", "scorer", "sensitivity"
    ):  # fmt: skip
        if field in changes and changes[field] is None:
            changes.pop(field)
    _check_choices(changes.get("strategy"), changes.get("scope"), changes.get("push_mode"))
    if "keywords" in changes:
        changes["keywords"] = normalize_keywords(changes["keywords"])
    for field in ("exclude", "synonyms"):
        if field in changes:
            changes[field] = normalize_keywords(changes[field], field=field, allow_empty=True)
    if "params" in changes:
        changes["params"] = _check_params(changes["params"])
    if changes.get("seed_url") is not None:
        new_seed = changes["seed_url"].strip()
        if new_seed != concern.seed_url:
            changes["seed_url"] = check_seed_url(
                settings or get_settings(), new_seed, probe_it=probe
            )
        else:
            changes.pop("seed_url")
    else:
        changes.pop("seed_url", None)
    moved = ("seed_url" in changes and changes["seed_url"] != concern.seed_url) or (
        "scope" in changes and changes["scope"] != concern.scope
    )
    _check_changed(session, concern, changes)
    if "keywords" in changes and changes["keywords"] != concern.keywords:
        # learned from the old topic: its terms, and the model they came from (the next visit
        # would start from it, and the dashboard shows its weights when no terms are kept)
        concern.learned_terms = {}
        concern.model_state = {}
    concern.sqlmodel_update(changes)
    concern.updated_at = utcnow()
    session.add(concern)
    if moved:
        site = sites.attach_site(session, concern)
        if concern.enabled:
            sites.check_now(session, site)
    session.flush()
    session.refresh(concern)
    return concern


def set_enabled(session: Session, user: User, concern_id: int, enabled: bool) -> Concern:
    return enable(session, get_concern(session, user, concern_id), enabled)


def enable(session: Session, concern: Concern, enabled: bool) -> Concern:
    """Crawl for a concern the caller loaded as the user's, or stop (its matches stay)."""
    concern.enabled = enabled
    concern.updated_at = utcnow()
    session.add(concern)
    session.flush()
    session.refresh(concern)
    return concern


def pause_concern(session: Session, user: User, concern_id: int) -> Concern:
    """Stop crawling for this concern (its matches stay)."""
    return set_enabled(session, user, concern_id, False)


def resume_concern(session: Session, user: User, concern_id: int) -> Concern:
    """Crawl for this concern again."""
    return set_enabled(session, user, concern_id, True)


def delete_concern(session: Session, user: User, concern_id: int) -> None:
    """Delete the user's concern (``remove``)."""
    remove(session, get_concern(session, user, concern_id))


def remove(session: Session, concern: Concern) -> None:
    """Delete a concern the caller loaded as the user's and (by cascade) its matches; the
    shared site stays."""
    session.delete(concern)
    session.flush()


def to_public(session: Session, concerns: Sequence[Concern]) -> list[ConcernPublic]:
    """Public views with the site's next visit time and revisit level (one query for sites)."""
    site_ids = {c.site_id for c in concerns if c.site_id is not None}
    by_id: dict[int, Site] = {}
    if site_ids:
        for site in session.exec(sites_query().where(col(Site.id).in_(site_ids))):
            assert site.id is not None
            by_id[site.id] = site
    running: dict[int, Any] = {}
    if site_ids:
        stmt = (
            select(col(CrawlRun.site_id), func.max(CrawlRun.started_at))
            .where(col(CrawlRun.site_id).in_(site_ids), col(CrawlRun.status) == "running")
            .group_by(col(CrawlRun.site_id))
        )
        running = {int(site_id): started for site_id, started in session.exec(stmt)}
    result = []
    for concern in concerns:
        shared = by_id.get(concern.site_id) if concern.site_id is not None else None
        result.append(
            ConcernPublic.model_validate(
                concern,
                update={
                    "next_visit_at": shared.next_visit_at if shared else None,
                    "revisit_level": shared.level if shared else None,
                    "crawling_since": running.get(shared.id or 0) if shared else None,
                },
            )
        )
    return result


def concern_public(session: Session, concern: Concern) -> ConcernPublic:
    return to_public(session, [concern])[0]
