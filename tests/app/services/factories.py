"""Rows the crawler would write (pages, matches, runs), for feed and report tests."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session

from app.models import Concern, CrawlRun, Match, Page, utcnow


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
    url = url or f"https://news.example.com/a/{concern.id}/{n}"
    page = Page(canonical_url=url, final_url=url, site_id=concern.site_id, title=title)
    session.add(page)
    session.flush()
    assert page.id is not None and concern.id is not None
    match = Match(
        concern_id=concern.id,
        page_id=page.id,
        user_id=concern.owner_id,
        fingerprint=f"fp{concern.id}-{n}",
        score=1.5,
        matched_keywords=keywords if keywords is not None else list(concern.keywords[:1]),
        explanation={"terms": {"title": keywords or []}},
        title=title or f"Story {n}",
        url=url,
        snippet=snippet,
        created_at=created_at or utcnow() - timedelta(minutes=1000 - n),
    )
    session.add(match)
    session.commit()
    session.refresh(match)
    return match


def add_run(session: Session, site_id: int, fetched: int, matched: int, **extra: Any) -> CrawlRun:
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
