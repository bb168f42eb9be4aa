"""Test data for every test package: users, accounts, concerns, pages and matches, crawl runs.

Rows are written through the models the way the product writes them; ``make_account`` and
``make_concern`` go through the services (a real password hash, a concern with its site).
"""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session

from app.models import Concern, ConcernCreate, CrawlRun, Match, Page, User, utcnow

PASSWORD = "password123"
"""The password of accounts made by :func:`make_account` unless a test gives another."""

_seq = itertools.count(1)


def make_account(
    session: Session, email: str = "alice@example.com", password: str = PASSWORD, **fields: Any
) -> User:
    """An account as sign-up makes it (unverified, real password hash), with ``fields`` set;
    committed."""
    from app.services import auth

    user = auth.register_user(session, email=email, password=password)
    session.commit()
    if fields:
        for key, value in fields.items():
            setattr(user, key, value)
        session.add(user)
        session.commit()
        session.refresh(user)
    return user


def make_user(session: Session, **kw: Any) -> User:
    """A user row ready to be pushed to: both addresses confirmed, UTC, instant pushes;
    flushed, not committed. For an account that logs in, use :func:`make_account`."""
    n = next(_seq)
    values: dict[str, Any] = {
        "email": f"user{n}@example.org",
        "password_hash": "x",
        "timezone": "UTC",
        "language": "zh",
        "push_mode": "instant",
        "email_verified_at": utcnow(),
        "phone_verified_at": utcnow(),
    }
    values.update(kw)
    user = User(**values)
    session.add(user)
    session.flush()
    return user


def add_concern(session: Session, user: User, **kw: Any) -> Concern:
    """A concern row written directly (no site, no probe), flushed."""
    assert user.id is not None
    values: dict[str, Any] = {
        "seed_url": "https://news.example.cn/",
        "keywords": ["新能源", "补贴"],
        "owner_id": user.id,
    }
    values.update(kw)
    concern = Concern(**values)
    session.add(concern)
    session.flush()
    return concern


def make_matches(
    session: Session, concern: Concern, count: int, *, created_at: datetime | None = None
) -> list[Match]:
    """``count`` pages and matches of a 新能源 notice, flushed."""
    assert concern.id is not None
    out = []
    for _ in range(count):
        n = next(_seq)
        url = f"https://news.example.cn/article/{n}"
        page = Page(canonical_url=url, final_url=url, title=f"新能源汽车补贴第{n}号通知")
        session.add(page)
        session.flush()
        assert page.id is not None
        match = Match(
            concern_id=concern.id,
            page_id=page.id,
            user_id=concern.owner_id,
            fingerprint=f"fp{n}",
            score=0.8,
            matched_keywords=["新能源", "补贴"],
            title=page.title,
            url=url,
            snippet="财政部发布新能源汽车购置补贴的最新通知，自明年起实施。",
            created_at=created_at or utcnow(),
        )
        session.add(match)
        out.append(match)
    session.flush()
    return out


def make_concern(
    db: Session,
    user: User,
    seed: str = "http://127.0.0.1:9/sports/",
    keywords: str = "足球, 中超",
    **fields: Any,
) -> Concern:
    """A concern made through the concern service (its site too), without probing the seed;
    committed."""
    from app.services import concerns

    data = ConcernCreate(seed_url=seed, keywords=keywords, **fields)
    concern = concerns.create_concern(db, user, data, probe=False)
    db.commit()
    return concern


def make_match(
    db: Session,
    concern: Concern,
    n: int = 0,
    *,
    title: str | None = None,
    keywords: tuple[str, ...] = ("足球",),
    age_minutes: int = 0,
    url: str | None = None,
    snippet: str | None = None,
) -> Match:
    """A football story matched with a keyword-position explanation, committed."""
    url = url or f"https://sports.example.com/news/{concern.id}-{n}.html"
    page = Page(
        canonical_url=url, final_url=url, title=title or f"足球新闻 {n}", excerpt="国足今晚迎战对手"
    )
    return _store_match(
        db,
        concern,
        page,
        fingerprint=f"fp-{concern.id}-{n}",
        score=0.85 + n / 1000,
        matched_keywords=list(keywords),
        explanation={  # crawler.relevance's shape
            "method": "kp",
            "score": 1.25,
            "parts": {"title": 0.5, "meta": 0.75, "anchor": 0.0},
            "hits": [
                {"term": k, "weight": 1.0, "learned": False, "where": {"title": 1, "meta": 1}}
                for k in keywords
            ],
            "learned": [],
        },
        title=title or f"足球新闻 {n}",
        snippet=snippet or f"中超第{n}轮：国足今晚迎战对手，足球迷关注。",
        created_at=utcnow() - timedelta(minutes=age_minutes),
    )


def make_run(
    db: Session,
    concern: Concern,
    fetched: int,
    matched: int,
    *,
    hours_ago: int = 0,
    error: str | None = None,
    status: str = "ok",
    harvest: list[list[int]] | None = None,
) -> CrawlRun:
    """A finished crawl run of the concern's site, committed."""
    assert concern.site_id is not None
    started = utcnow() - timedelta(hours=hours_ago)
    run = CrawlRun(
        site_id=concern.site_id,
        strategy=concern.strategy,
        status=status,
        started_at=started,
        finished_at=started + timedelta(minutes=3),
        pages_fetched=fetched,
        pages_new=fetched // 2,
        pages_matched=matched,
        errors=1 if error else 0,
        error=error,
        stats={"harvest": harvest or []},
    )
    db.add(run)
    db.commit()
    db.refresh(run)
    return run


def add_match(
    session: Session,
    concern: Concern,
    n: int,
    *,
    title: str = "",
    snippet: str = "",
    keywords: list[str] | None = None,
    url: str | None = None,
    created_at: datetime | None = None,
) -> Match:
    """A page and a match ``n`` minutes apart from the others (newer for larger ``n``),
    committed."""
    url = url or f"https://news.example.com/a/{concern.id}/{n}"
    page = Page(canonical_url=url, final_url=url, site_id=concern.site_id, title=title)
    return _store_match(
        session,
        concern,
        page,
        fingerprint=f"fp{concern.id}-{n}",
        score=1.5,
        matched_keywords=keywords if keywords is not None else list(concern.keywords[:1]),
        explanation={"terms": {"title": keywords or []}},
        title=title or f"Story {n}",
        snippet=snippet,
        created_at=created_at or utcnow() - timedelta(minutes=1000 - n),
    )


def _store_match(session: Session, concern: Concern, page: Page, **fields: Any) -> Match:
    """Store ``page`` and a match of it for the concern's owner; committed."""
    session.add(page)
    session.flush()
    assert concern.id is not None and page.id is not None
    match = Match(
        concern_id=concern.id,
        page_id=page.id,
        user_id=concern.owner_id,
        url=page.canonical_url,
        **fields,
    )
    session.add(match)
    session.commit()
    session.refresh(match)
    return match


def add_run(session: Session, site_id: int, fetched: int, matched: int, **extra: Any) -> CrawlRun:
    """A finished crawl run of a site, committed."""
    run = CrawlRun(
        site_id=site_id,
        strategy="topic-pagerank",
        status="done",
        pages_fetched=fetched,
        pages_matched=matched,
        **extra,
    )
    session.add(run)
    session.commit()
    session.refresh(run)
    return run


def digest_matches(session: Session, count: int, **user: Any) -> tuple[datetime, list[Match]]:
    """A digest reader (``make_user`` fields) with ``count`` matches made in the digest window
    that is due now: (now, the matches)."""
    from app.services.delivery_policy import due_digest

    now = utcnow().replace(microsecond=0)
    reader = make_user(session, push_mode="digest", **user)
    concern = add_concern(session, reader)
    _day, _start, end = due_digest(reader, now)
    return now, make_matches(session, concern, count, created_at=end - timedelta(hours=1))
