"""Rows for delivery tests: users, concerns, pages and matches."""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Any

from sqlmodel import Session

from app.models import Concern, Match, Page, User, utcnow

_seq = itertools.count(1)


def make_user(session: Session, **kw: Any) -> User:
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


def make_concern(session: Session, user: User, **kw: Any) -> Concern:
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
