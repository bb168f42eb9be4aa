"""Instant pushes without the flood: a burst of matches becomes one email / one SMS, and the
first visit of a new concern sends one "what is on the site now" summary — counted on a real
SMTP sink and HTTP receivers on loopback. Webhooks stay one event per match."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session

from app.core.config import get_settings
from app.models import Concern, User, utcnow
from app.services import delivery
from tests.app.loopback_site import NewsSite, make_concerns
from tests.factories import add_concern, make_matches, make_user
from tests.push import fixtures
from tests.push.fixtures import drain, rows
from tests.push.servers import HttpReceiver, SmtpSink

sink, hook, push_env = fixtures.sink, fixtures.hook, fixtures.push_env
WINDOW = timedelta(seconds=120)


@pytest.fixture
def grouped(push_env: SmtpSink, monkeypatch: pytest.MonkeyPatch) -> SmtpSink:
    monkeypatch.setenv("TIMELYPUSH_PUSH_GROUP_SECONDS", str(WINDOW.total_seconds()))
    monkeypatch.setenv("TIMELYPUSH_CRAWL_DELAY", "0")
    monkeypatch.setenv("TIMELYPUSH_REVISIT_POLICY", "seed")
    get_settings.cache_clear()
    return push_env


@pytest.fixture
def sms(monkeypatch: pytest.MonkeyPatch) -> HttpReceiver:
    server = HttpReceiver()
    url = server.url.replace("http://", "json://") + "/sms/{phone}"
    monkeypatch.setenv("TIMELYPUSH_SMS_PROVIDER", "apprise")
    monkeypatch.setenv("TIMELYPUSH_APPRISE_SMS_URL", url)
    get_settings.cache_clear()
    yield server
    server.close()


def test_a_burst_of_matches_is_one_email_and_one_sms(
    session: Session, grouped: SmtpSink, hook: HttpReceiver, sms: HttpReceiver
) -> None:
    user = make_user(
        session,
        phone="+8613800138000",
        sms_enabled=True,
        webhook_enabled=True,
        webhook_url=hook.url + "/hook",
    )
    concern = add_concern(session, user)
    start = utcnow()
    found = []
    for _ in range(22):  # one page after another, as a crawl stores them
        found += make_matches(session, concern, 1)
        delivery.enqueue_for_matches(session, found[-1:])
        session.commit()

    drain(utcnow())
    assert grouped.messages == [] and sms.requests == []  # the window is still open
    assert hook.requests  # webhooks go at once

    drain(utcnow() + WINDOW + timedelta(seconds=1))
    [mail] = grouped.messages
    assert mail["Subject"] == "[及时推] 22 条新内容"
    text = mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert all(m.title in text for m in found)
    [message] = sms.requests
    assert message.path == "/sms/+8613800138000"
    assert "22 条新内容" in message.json()["message"]
    assert len({r.headers["webhook-id"] for r in hook.requests}) == 22  # one event per match
    assert {r.status for r in rows(session)} == {"sent"}

    # a later match opens a new window: one more mail, not a resend of the old ones
    later = start + timedelta(minutes=10)
    found += make_matches(session, concern, 1)
    delivery.enqueue_for_matches(session, found[-1:])
    session.commit()
    drain(later + WINDOW + timedelta(seconds=1))
    assert len(grouped.messages) == 2
    assert grouped.messages[1]["Subject"] == f"[及时推] {found[-1].title}"


def test_without_a_window_each_match_is_its_own_email(session: Session, push_env: SmtpSink) -> None:
    user = make_user(session)
    concern = add_concern(session, user)
    for _ in range(3):
        delivery.enqueue_for_matches(session, make_matches(session, concern, 1))
        session.commit()
        drain()
    assert len(push_env.messages) == 3


def test_first_visit_of_a_new_concern_is_one_summary(
    engine: object, grouped: SmtpSink, hook: HttpReceiver, sms: HttpReceiver
) -> None:
    from app.services.crawling import crawl_site

    site_server = NewsSite(articles=44)  # 22 about football
    with site_server.serve() as seed, Session(engine) as session:  # type: ignore[arg-type]
        site_id, [football] = make_concerns(session, seed, [["足球"]])
        concern = session.get(Concern, football)
        assert concern is not None
        user = session.get(User, concern.owner_id)
        assert user is not None
        user.push_mode = "instant"
        user.webhook_enabled, user.webhook_url = True, hook.url + "/hook"
        user.sms_enabled, user.phone = True, "+8613800138000"
        user.email_verified_at = user.phone_verified_at = utcnow()  # pushes go to confirmed ones
        session.add(user)
        session.commit()

        start = utcnow()
        assert crawl_site(site_id)["status"] == "ok"
        drain(start + timedelta(minutes=30))
        [summary] = grouped.messages
        assert summary["Subject"].startswith("[及时推] 127.0.0.1")
        assert summary["Subject"].endswith("现有 22 条相关内容")
        text = summary.get_body(("plain",)).get_content()  # type: ignore[union-attr]
        assert "第一次访问" in text and text.count("命中关键词：足球") == 22
        # each item carries its own "not relevant" link, as in the HTML part and the digest
        assert text.count("不相关？告诉我们") == 22 and text.count("/feedback/") == 22
        [short] = sms.requests
        assert "现有 22 条相关内容" in short.json()["message"]
        assert len(short.json()["message"]) <= 70
        # webhooks still get one event per match
        assert len({r.headers["webhook-id"] for r in hook.requests}) == 22

        # from the second visit on, new pages are ordinary instant pushes
        site_server.add_article(45, football=True)
        assert crawl_site(site_id)["status"] == "ok"
        drain(utcnow() + timedelta(minutes=30))
        assert len(grouped.messages) == 2
        assert grouped.messages[1]["Subject"] == "[及时推] 足球新闻 第45期"
        assert len(sms.requests) == 2 and "足球新闻 第45期" in sms.requests[1].json()["message"]
        assert len({r.headers["webhook-id"] for r in hook.requests}) == 23


def test_webhook_batches_on_request(
    session: Session, grouped: SmtpSink, hook: HttpReceiver
) -> None:
    from tests.push.fixtures import verify_signature

    user = make_user(
        session,
        email_enabled=False,
        webhook_enabled=True,
        webhook_url=hook.url + "/hook",
        webhook_batch=True,
    )
    concern = add_concern(session, user)
    found = []
    for _ in range(5):
        found += make_matches(session, concern, 1)
        delivery.enqueue_for_matches(session, found[-1:])
        session.commit()
    drain(utcnow())
    assert hook.requests == []
    drain(utcnow() + WINDOW + timedelta(seconds=1))
    [event] = hook.requests
    body = event.json()
    assert body["type"] == "match.batch"
    assert [m["match_id"] for m in body["data"]["matches"]] == [m.id for m in found]
    assert all("命中关键词" in m["why"] for m in body["data"]["matches"])
    session.refresh(user)
    assert user.webhook_secret and verify_signature(user.webhook_secret, event.headers, event.body)
    assert {r.status for r in rows(session)} == {"sent"}
