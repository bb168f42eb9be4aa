"""Rows the crawler would write, made directly through the models (to simulate a crawl)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlmodel import Session

from app.models import Concern, ConcernCreate, CrawlRun, Match, Page, User, utcnow


def make_concern(
    db: Session,
    user: User,
    seed: str = "http://127.0.0.1:9/sports/",
    keywords: str = "足球, 中超",
    **fields: Any,
) -> Concern:
    from app.services import concerns

    data = ConcernCreate(seed_url=seed, keywords=keywords, **fields)
    return concerns.create_concern(db, user, data, probe=False)


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
    url = url or f"https://sports.example.com/news/{concern.id}-{n}.html"
    page = Page(
        canonical_url=url, final_url=url, title=title or f"足球新闻 {n}", excerpt="国足今晚迎战对手"
    )
    db.add(page)
    db.flush()
    assert concern.id is not None and page.id is not None
    match = Match(
        concern_id=concern.id,
        page_id=page.id,
        user_id=concern.owner_id,
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
        url=url,
        snippet=snippet or f"中超第{n}轮：国足今晚迎战对手，足球迷关注。",
        created_at=utcnow() - timedelta(minutes=age_minutes),
    )
    db.add(match)
    db.commit()
    db.refresh(match)
    return match


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
