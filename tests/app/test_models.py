"""The uniqueness rules the business depends on are enforced by the database itself."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from app.models import Concern, Delivery, Match, Page, Site, User


def _user(session: Session, email: str = "a@example.com") -> User:
    user = User(email=email, password_hash="x")
    session.add(user)
    session.commit()
    return user


def _concern(session: Session, user: User) -> Concern:
    site = Site(scope_key="host:example.com", seed_url="https://example.com/")
    session.add(site)
    session.commit()
    concern = Concern(owner_id=user.id, site_id=site.id, seed_url=site.seed_url, keywords=["足球"])
    session.add(concern)
    session.commit()
    return concern


def test_duplicate_canonical_page_refused(session: Session) -> None:
    session.add(Page(canonical_url="https://example.com/a", final_url="https://example.com/a"))
    session.commit()
    session.add(Page(canonical_url="https://example.com/a", final_url="https://example.com/b"))
    with pytest.raises(IntegrityError):
        session.commit()
    session.rollback()
    assert len(session.exec(select(Page)).all()) == 1


def test_duplicate_match_per_concern_and_page_refused(session: Session) -> None:
    user = _user(session)
    concern = _concern(session, user)
    page = Page(canonical_url="https://example.com/a", final_url="https://example.com/a")
    session.add(page)
    session.commit()
    session.add(Match(concern_id=concern.id, page_id=page.id, user_id=user.id, fingerprint="f1"))
    session.commit()
    session.add(Match(concern_id=concern.id, page_id=page.id, user_id=user.id, fingerprint="f2"))
    with pytest.raises(IntegrityError):
        session.commit()
    session.rollback()


def test_reprint_with_same_fingerprint_matches_once(session: Session) -> None:
    user = _user(session)
    concern = _concern(session, user)
    a = Page(canonical_url="https://example.com/a", final_url="https://example.com/a")
    b = Page(canonical_url="https://mirror.example.org/a", final_url="https://mirror.example.org/a")
    session.add_all([a, b])
    session.commit()
    session.add(Match(concern_id=concern.id, page_id=a.id, user_id=user.id, fingerprint="same"))
    session.commit()
    session.add(Match(concern_id=concern.id, page_id=b.id, user_id=user.id, fingerprint="same"))
    with pytest.raises(IntegrityError):
        session.commit()
    session.rollback()


def test_duplicate_delivery_key_refused(session: Session) -> None:
    user = _user(session)
    session.add(Delivery(idempotency_key="u1:email:m1", user_id=user.id, channel="email"))
    session.commit()
    session.add(Delivery(idempotency_key="u1:email:m1", user_id=user.id, channel="email"))
    with pytest.raises(IntegrityError):
        session.commit()
    session.rollback()


def test_duplicate_email_refused(session: Session) -> None:
    _user(session, "x@example.com")
    session.add(User(email="x@example.com", password_hash="y"))
    with pytest.raises(IntegrityError):
        session.commit()
    session.rollback()


def test_timestamps_come_back_timezone_aware_utc(session: Session) -> None:
    user = _user(session)
    session.expire_all()
    loaded = session.get(User, user.id)
    assert loaded is not None
    assert loaded.created_at.tzinfo is not None
    assert loaded.created_at.utcoffset() == UTC.utcoffset(None)


def test_naive_datetime_refused(session: Session) -> None:
    session.add(
        User(email="n@example.com", password_hash="x", email_verified_at=datetime(2026, 1, 1))
    )
    with pytest.raises(Exception, match="naive datetime"):
        session.commit()
    session.rollback()


def test_the_app_offers_exactly_the_crawlers_choices() -> None:
    """Strategy names, scorers, sensitivities and page kinds come from the crawler: a strategy
    added there is offered here, and no value here is one the crawler does not know."""
    from app import models
    from crawler import HUB, ITEM, SENSITIVITY, CrawlConfig
    from crawler.relevance import METHODS
    from crawler.strategies import STRATEGIES as CRAWLER_STRATEGIES

    assert sorted(models.STRATEGIES) == sorted(CRAWLER_STRATEGIES)
    assert models.DEFAULT_STRATEGY == CrawlConfig().strategy == models.STRATEGIES[0]
    assert set(models.SCORERS) == {"model", *METHODS}
    assert set(models.SENSITIVITIES) == set(SENSITIVITY)
    assert {str(kind) for kind in models.PageKind} == {ITEM, HUB}
