"""The feed: keyset paging, filters, search, read state, soft delete, bulk; crawl reports."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session

from app.models import ConcernCreate, utcnow
from app.services import concerns, matches, runs
from app.services.errors import Invalid, NotFound
from tests.factories import add_match, add_run, make_account


@pytest.fixture
def two_users(session: Session, allow_test_hosts: None):  # type: ignore[no-untyped-def]
    alice = make_account(session)
    bob = make_account(session, "bob@example.com")
    ca = concerns.create_concern(
        session, alice, ConcernCreate(seed_url="news.example.com", keywords="芯片,AI"), probe=False
    )
    cb = concerns.create_concern(
        session, bob, ConcernCreate(seed_url="news.example.com", keywords="AI"), probe=False
    )
    return alice, bob, ca, cb


def test_pages_walk_the_whole_feed_newest_first_without_gaps(session: Session, two_users) -> None:  # type: ignore[no-untyped-def]
    alice, _bob, ca, cb = two_users
    same_time = utcnow() - timedelta(hours=1)
    made = [add_match(session, ca, i, created_at=same_time if i < 4 else None) for i in range(12)]
    add_match(session, cb, 99)
    seen: list[int] = []
    cursor = None
    for _ in range(10):
        page, cursor = matches.list_matches(session, alice, cursor=cursor, limit=5)
        seen.extend(m.id for m in page)  # type: ignore[misc]
        if cursor is None:
            break
    expected = sorted(made, key=lambda m: (m.created_at, m.id), reverse=True)
    assert seen == [m.id for m in expected]


def test_filters(session: Session, two_users) -> None:  # type: ignore[no-untyped-def]
    alice, _bob, ca, cb = two_users
    m1 = add_match(session, ca, 1, title="新款芯片发布", keywords=["芯片"])
    m2 = add_match(
        session,
        ca,
        2,
        snippet="An AI model 100% open",
        keywords=["AI"],
        url="https://blog.example.com/post",
    )
    m3 = add_match(session, ca, 3, title="Other", keywords=["AI", "芯片"])

    def ids(**kw):  # type: ignore[no-untyped-def]
        return {m.id for m in matches.list_matches(session, alice, **kw)[0]}

    assert ids(keyword="芯片") == {m1.id, m3.id}
    assert ids(keyword="AI") == {m2.id, m3.id}
    assert ids(site="blog.example.com") == {m2.id}
    assert ids(site="news.example.com") == {m1.id, m3.id}
    assert ids(q="芯片") == {m1.id}
    assert ids(q="100%") == {m2.id}
    assert ids(q="_") == set()
    assert ids(concern_id=cb.id) == set()
    assert ids(since=m2.created_at) == {m2.id, m3.id}
    assert ids(until=m2.created_at) == {m1.id}
    matches.mark_read(session, alice, m1.id)  # type: ignore[arg-type]
    assert ids(unread=True) == {m2.id, m3.id}
    assert ids(unread=False) == {m1.id}
    with pytest.raises(Invalid):
        matches.list_matches(session, alice, cursor="garbage!")


def test_read_state_soft_delete_and_isolation(session: Session, two_users) -> None:  # type: ignore[no-untyped-def]
    alice, bob, ca, _cb = two_users
    m = add_match(session, ca, 1)
    assert m.id is not None
    assert matches.to_public(m).read is False
    assert matches.to_public(matches.mark_read(session, alice, m.id)).read is True
    assert matches.unread_count(session, alice) == 0
    assert matches.to_public(matches.mark_unread(session, alice, m.id)).read is False
    for call in (
        lambda: matches.get_match(session, bob, m.id),
        lambda: matches.mark_read(session, bob, m.id),
        lambda: matches.delete_match(session, bob, m.id),
    ):
        with pytest.raises(NotFound):
            call()
    matches.delete_match(session, alice, m.id)
    with pytest.raises(NotFound):
        matches.get_match(session, alice, m.id)
    assert matches.list_matches(session, alice)[0] == []


def test_bulk_touches_only_own_matches(session: Session, two_users) -> None:  # type: ignore[no-untyped-def]
    alice, bob, ca, cb = two_users
    mine = [add_match(session, ca, i) for i in range(3)]
    theirs = add_match(session, cb, 9)
    ids = [m.id for m in mine] + [theirs.id]
    assert matches.bulk(session, alice, ids, "read") == 3  # type: ignore[arg-type]
    assert matches.unread_count(session, bob) == 1
    assert matches.bulk(session, alice, ids, "unread") == 3  # type: ignore[arg-type]
    assert matches.bulk(session, alice, ids[:2], "delete") == 2  # type: ignore[arg-type]
    assert len(matches.list_matches(session, alice)[0]) == 1
    assert len(matches.list_matches(session, bob)[0]) == 1
    with pytest.raises(Invalid):
        matches.bulk(session, alice, ids, "explode")  # type: ignore[arg-type]


def test_runs_of_the_concern_site_and_harvest_series(
    session: Session, allow_test_hosts: None
) -> None:  # type: ignore[no-untyped-def]
    alice = make_account(session)
    ca = concerns.create_concern(
        session, alice, ConcernCreate(seed_url="solo.example.com", keywords="AI"), probe=False
    )
    add_run(session, ca.site_id, 100, 10, stats={"harvest": [[10, 0.1], [20, 0.2]]})
    add_run(session, ca.site_id, 50, 0)
    got = runs.list_runs(session, alice, ca.id)
    assert [r.pages_fetched for r in got] == [50, 100]
    series = runs.harvest_series(session, alice, ca.id)
    assert [p.harvest_rate for p in series] == [0.1, 0.0]
    assert series[0].series == [[10, 0.1], [20, 0.2]]


def test_a_shared_site_shows_each_user_only_their_own_runs_and_counts(
    session: Session, two_users
) -> None:  # type: ignore[no-untyped-def]
    alice, bob, ca, cb = two_users
    start = utcnow()
    before = add_run(
        session,
        ca.site_id,
        80,
        8,
        started_at=start - timedelta(days=2),
        finished_at=start - timedelta(days=2) + timedelta(minutes=1),
    )
    run = add_run(
        session,
        ca.site_id,
        100,
        7,
        started_at=start,
        finished_at=start + timedelta(minutes=1),
        stats={"matches": 7, "harvest": [[10, 0.5]], "elapsed_s": 3.0},
    )
    for i in range(2):
        add_match(session, ca, i, created_at=start + timedelta(seconds=10 + i))
    for i in range(5):
        add_match(session, cb, i, created_at=start + timedelta(seconds=20 + i))
    [mine] = runs.list_runs(session, alice, ca.id)  # the run from before her concern is not hers
    assert mine.id == run.id and before.id != run.id
    assert mine.pages_matched == 2 and mine.stats == {"elapsed_s": 3.0, "harvest_rate": 0.02}
    [theirs] = runs.list_runs(session, bob, cb.id)
    assert theirs.pages_matched == 5
    [point] = runs.harvest_series(session, alice, ca.id)
    assert point.pages_matched == 2 and point.series == []
    with pytest.raises(NotFound):
        runs.list_runs(session, bob, ca.id)
    session.refresh(run)
    assert run.pages_matched == 7  # the stored run is untouched


def test_public_views_page_exactly_like_the_orm_feed(session: Session, two_users) -> None:  # type: ignore[no-untyped-def]
    alice, _bob, ca, _cb = two_users
    for i in range(7):
        add_match(session, ca, i, keywords=["AI"] if i % 2 else ["芯片"])
    matches.mark_read(session, alice, 3)
    middle = utcnow() - timedelta(minutes=1000 - 3)
    for filters in (
        {},
        {"keyword": "AI"},
        {"keyword": " 芯片 "},
        {"unread": True},
        {"unread": False},
        {"concern_id": ca.id},
        {"since": middle},
        {"until": middle.replace(tzinfo=None), "keyword": "AI", "unread": True},
        {"q": "story"},
    ):
        cursor_a = cursor_b = None
        for _ in range(5):
            rows, cursor_a = matches.list_matches(
                session, alice, cursor=cursor_a, limit=2, **filters
            )
            views, cursor_b = matches.list_match_views(
                session, alice.id, cursor=cursor_b, limit=2, **filters
            )
            assert [v.id for v in views] == [m.id for m in rows]
            assert [v.read for v in views] == [m.read_at is not None for m in rows]
            assert views == [matches.to_public(m) for m in rows]
            assert cursor_a == cursor_b
            if cursor_a is None:
                break
