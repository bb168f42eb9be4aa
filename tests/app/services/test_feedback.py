"""Feedback that teaches: verdicts, the labelled pages the model retrains from, signed email
links, and learned terms removed or promoted by the user."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session

from app.core.config import get_settings
from app.models import Concern, ConcernCreate, Match, Page, utcnow
from app.services import concerns, feedback
from app.services.errors import NotFound
from crawler.judgment import Example
from tests.factories import add_match, make_account


@pytest.fixture
def two_users(session: Session, allow_test_hosts: None):  # type: ignore[no-untyped-def]
    alice = make_account(session)
    bob = make_account(session, "bob@example.com")
    ca = concerns.create_concern(
        session, alice, ConcernCreate(seed_url="news.example.com", keywords="足球"), probe=False
    )
    cb = concerns.create_concern(
        session, bob, ConcernCreate(seed_url="news.example.com", keywords="足球"), probe=False
    )
    return alice, bob, ca, cb


def _describe(session: Session, match_id: int, description: str, excerpt: str) -> None:
    match = session.get(Match, match_id)
    assert match is not None
    page = session.get(Page, match.page_id)
    assert page is not None
    page.description, page.excerpt = description, excerpt
    session.add(page)
    session.commit()


def test_feedback_examples_are_the_concerns_labelled_pages_newest_first(
    session: Session, two_users
) -> None:  # type: ignore[no-untyped-def]
    alice, bob, ca, cb = two_users
    liked_url, disliked_url = "https://news.example.com/a/1", "https://news.example.com/a/2"
    liked = add_match(session, ca, 1, title="中超联赛开幕", url=liked_url)
    disliked = add_match(session, ca, 2, title="彩票开奖公告", url=disliked_url)
    add_match(session, ca, 3, title="没有评价的新闻")
    other = add_match(session, cb, 4, title="别人的关注")
    _describe(session, liked.id, "足球赛事", "恒大主场获胜")  # type: ignore[arg-type]
    _describe(session, disliked.id, "", "本期中奖号码")  # type: ignore[arg-type]
    feedback.set_feedback(session, alice, disliked.id, False)  # type: ignore[arg-type]
    session.commit()
    feedback.set_feedback(session, alice, liked.id, True)  # type: ignore[arg-type]
    feedback.set_feedback(session, bob, other.id, True)  # type: ignore[arg-type]
    session.commit()
    # the 👎 came first: make its time unambiguously older
    disliked.feedback_at = utcnow() - timedelta(hours=1)
    session.add(disliked)
    session.commit()

    examples = feedback.feedback_examples(session, ca.id)  # type: ignore[arg-type]
    # each verdict names its page: a verdict is on that page, not on every page of its title
    assert examples == [
        Example(title="中超联赛开幕", text="足球赛事 恒大主场获胜", label=True, url=liked_url),
        Example(title="彩票开奖公告", text="本期中奖号码", label=False, url=disliked_url),
    ]
    assert feedback.feedback_examples(session, ca.id, limit=1) == examples[:1]  # type: ignore[arg-type]
    assert [e.title for e in feedback.feedback_examples(session, cb.id)] == ["别人的关注"]  # type: ignore[arg-type]


def test_a_cleared_verdict_no_longer_teaches(session: Session, two_users) -> None:  # type: ignore[no-untyped-def]
    alice, _bob, ca, _cb = two_users
    m = add_match(session, ca, 1, title="中超")
    feedback.set_feedback(session, alice, m.id, True)  # type: ignore[arg-type]
    session.commit()
    assert len(feedback.feedback_examples(session, ca.id)) == 1  # type: ignore[arg-type]
    cleared = feedback.set_feedback(session, alice, m.id, None)  # type: ignore[arg-type]
    session.commit()
    assert cleared.feedback is None and cleared.feedback_at is None
    assert feedback.feedback_examples(session, ca.id) == []  # type: ignore[arg-type]


def test_another_users_message_cannot_be_judged(session: Session, two_users) -> None:  # type: ignore[no-untyped-def]
    alice, _bob, _ca, cb = two_users
    theirs = add_match(session, cb, 1)
    with pytest.raises(NotFound):
        feedback.set_feedback(session, alice, theirs.id, False)  # type: ignore[arg-type]
    session.rollback()
    session.refresh(theirs)
    assert theirs.feedback is None


def test_signed_tokens_name_one_message_and_refuse_forgery(session: Session, two_users) -> None:  # type: ignore[no-untyped-def]
    settings = get_settings()
    token = feedback.feedback_token(settings.effective_secret_key(), 42)
    verdict = feedback.read_token(settings, token)
    assert verdict is not None and (verdict.match_id, verdict.value) == (42, -1)
    assert (
        feedback.read_token(settings, token[:-2] + ("AA" if token[-2:] != "AA" else "BB")) is None
    )
    assert feedback.read_token(settings, feedback.feedback_token("another-key", 42)) is None
    assert feedback.feedback_url(settings, 42).startswith(
        settings.base_url.rstrip("/") + "/feedback/"
    )


def _learned(session: Session, concern: Concern, terms: dict[str, float]) -> None:
    concern.learned_terms = terms
    session.add(concern)
    session.commit()


def test_block_removes_a_learned_term_for_good(session: Session, two_users) -> None:  # type: ignore[no-untyped-def]
    alice, _bob, ca, _cb = two_users
    _learned(session, ca, {"中超": 0.9, "彩票": 0.7, "恒大": 0.5})
    assert [t.term for t in feedback.learned_terms(ca)] == ["中超", "彩票", "恒大"]
    updated = feedback.block_term(session, alice, ca.id, "彩票")  # type: ignore[arg-type]
    session.commit()
    session.refresh(updated)
    assert updated.blocked_terms == ["彩票"]
    assert updated.learned_terms == {"中超": 0.9, "恒大": 0.5}
    assert "彩票" not in updated.synonyms
    with pytest.raises(NotFound):  # no longer a learned term
        feedback.block_term(session, alice, ca.id, "彩票")  # type: ignore[arg-type]


def test_promote_makes_a_learned_term_a_synonym(session: Session, two_users) -> None:  # type: ignore[no-untyped-def]
    alice, _bob, ca, _cb = two_users
    _learned(session, ca, {"中超": 0.9, "恒大": 0.5})
    updated = feedback.promote_term(session, alice, ca.id, "中超")  # type: ignore[arg-type]
    session.commit()
    session.refresh(updated)
    assert updated.synonyms == ["中超"]
    assert updated.learned_terms == {"恒大": 0.5}
    assert updated.blocked_terms == []
    assert [t.term for t in feedback.learned_terms(updated)] == ["恒大"]


def test_learned_terms_fall_back_to_the_models_positive_weights(
    session: Session, two_users
) -> None:  # type: ignore[no-untyped-def]
    alice, bob, ca, _cb = two_users
    ca.model_state = {"weights": {"足球": 2.0, "中超": 1.2, "广告": -0.8, "恒大": 0.4}}
    ca.blocked_terms = ["恒大"]
    session.add(ca)
    session.commit()
    # the user's own keyword, negative weights and blocked terms are not "learned"
    assert [(t.term, t.weight) for t in feedback.learned_terms(ca)] == [("中超", 1.2)]
    feedback.promote_term(session, alice, ca.id, "中超")  # type: ignore[arg-type]
    session.commit()
    assert feedback.learned_terms(ca) == []
    with pytest.raises(NotFound):  # someone else's concern
        feedback.block_term(session, bob, ca.id, "中超")  # type: ignore[arg-type]


def test_a_link_never_acts_on_a_message_made_after_it(session: Session, two_users) -> None:  # type: ignore[no-untyped-def]
    """A link names its message by id, and SQLite hands a deleted row's id to the next one: a
    message younger than the link is not the one it named (another user's, perhaps)."""
    _alice, _bob, ca, cb = two_users
    settings = get_settings()
    old = add_match(session, ca, 1)
    token = feedback.feedback_token(settings.effective_secret_key(), old.id)
    verdict = feedback.read_token(settings, token)
    assert verdict is not None and feedback.signed_match(session, verdict).id == old.id
    reused = old.id
    session.delete(old)
    session.commit()
    later = add_match(session, cb, 2, created_at=utcnow() + timedelta(seconds=30))
    later.id = reused  # what SQLite does with the freed id (made explicit here)
    session.add(later)
    session.commit()
    with pytest.raises(NotFound):
        feedback.apply_signed(session, verdict)
    session.rollback()
    session.refresh(later)
    assert later.feedback is None
