"""The outbox end to end: rows → real SMTP sink / HTTP receiver on loopback, both databases."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.core.config import get_settings
from app.models import User, utcnow
from app.services import delivery, delivery_actions
from app.services.delivery_policy import due_digest
from app.services.errors import NotFound
from tests.factories import add_concern, make_matches, make_user
from tests.push import fixtures
from tests.push.fixtures import drain, rows, verify_signature
from tests.push.servers import HttpReceiver, SmtpSink

sink, hook, push_env = fixtures.sink, fixtures.hook, fixtures.push_env


def test_pushes_due_together_are_one_email_and_the_others_point_at_it(
    session: Session, push_env: SmtpSink
) -> None:
    user = make_user(session)
    matches = make_matches(session, add_concern(session, user), 3)
    assert delivery.enqueue_for_matches(session, matches) == 3
    session.commit()
    drain()
    [msg] = push_env.messages
    assert msg["Subject"] == "[及时推] 3 条新内容"
    primary, *merged = sorted(rows(session), key=lambda r: r.id or 0)
    assert sorted(primary.match_ids) == sorted(m.id for m in matches)
    assert primary.merged_into_id is None
    assert [r.merged_into_id for r in merged] == [primary.id, primary.id]
    assert {r.status for r in rows(session)} == {"sent"}
    assert {r.last_error for r in rows(session)} == {None}


def test_instant_email_arrives_and_unsubscribe_works(session: Session, push_env: SmtpSink) -> None:
    user = make_user(session)
    [match] = make_matches(session, add_concern(session, user), 1)
    assert delivery.enqueue_for_matches(session, [match]) == 1
    session.commit()
    assert drain() == 1
    [msg] = push_env.messages
    assert msg["Subject"] == f"[及时推] {match.title}"
    assert msg["To"] == user.email
    assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = msg["List-Unsubscribe"].strip("<>")
    assert link.startswith("http://testserver/unsubscribe/")
    text = msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    html = msg.get_body(("html",)).get_content()  # type: ignore[union-attr]
    assert match.title in text and match.url in text and "命中关键词：新能源、补贴" in text
    assert match.title in html and link in html
    [row] = rows(session)
    assert (row.status, row.attempts, row.sent_at is not None) == ("sent", 1, True)

    from app.main import create_app

    client = TestClient(create_app())  # the real application: the route is mounted
    path = link.removeprefix("http://testserver")
    page = client.get(path)
    assert page.status_code == 200 and "<form" in page.text
    session.expire_all()
    assert session.get(User, user.id).email_enabled  # type: ignore[union-attr]
    done = client.post(path, content="List-Unsubscribe=One-Click")
    assert done.status_code == 200 and user.email in done.text
    session.expire_all()
    assert not session.get(User, user.id).email_enabled  # type: ignore[union-attr]
    assert client.post(path[:-3] + "xyz").status_code == 400


def test_enqueue_is_idempotent_and_follows_modes(session: Session, push_env: SmtpSink) -> None:
    instant = make_user(session, webhook_enabled=True, webhook_url="http://127.0.0.1:9/h")
    digest_only = make_user(session, push_mode="digest")
    overridden = make_user(session, push_mode="digest")
    a = make_matches(session, add_concern(session, instant), 2)
    b = make_matches(session, add_concern(session, digest_only), 2)
    c = make_matches(session, add_concern(session, overridden, push_mode="instant"), 1)
    assert delivery.enqueue_for_matches(session, a + b + c) == 5
    assert delivery.enqueue_for_matches(session, a + b + c) == 0
    session.commit()
    keys = {r.idempotency_key for r in rows(session)}
    assert f"i:{instant.id}:webhook:{a[0].id}" in keys
    assert f"i:{overridden.id}:email:{c[0].id}" in keys
    assert not any(k.startswith(f"i:{digest_only.id}:") for k in keys)


def test_daily_digest_in_users_timezone(session: Session, push_env: SmtpSink) -> None:
    now = utcnow().replace(microsecond=0)
    # 08:00 in Shanghai = 00:00 UTC: due once the local day's 08:00 has passed
    user = make_user(session, push_mode="digest", timezone="Asia/Shanghai", digest_time="08:00")
    quiet = make_user(session, push_mode="digest")
    empty_ok = make_user(session, push_mode="both", digest_when_empty=True, language="en")
    concern = add_concern(session, user)
    other = add_concern(session, user, seed_url="https://gov.example.cn/", keywords=["政策"])
    day, start, end = due_digest(user, now)
    fresh = make_matches(session, concern, 30, created_at=end - timedelta(hours=1))
    fresh += make_matches(session, other, 30, created_at=end - timedelta(hours=2))
    make_matches(session, concern, 3, created_at=start - timedelta(hours=1))  # yesterday's
    make_matches(session, concern, 2, created_at=end + timedelta(seconds=1))  # tomorrow's
    session.commit()

    assert delivery.enqueue_due_digests(now) == 2
    assert delivery.enqueue_due_digests(now) == 0
    digest_rows = {r.user_id: r for r in rows(session)}
    assert set(digest_rows) == {user.id, empty_ok.id} and quiet.id not in digest_rows
    assert sorted(digest_rows[user.id].match_ids) == sorted(m.id for m in fresh)
    assert digest_rows[user.id].digest_date == day.isoformat()

    assert drain(now) == 2
    by_to = {m["To"]: m for m in push_env.messages}
    msg = by_to[user.email]
    assert msg["Subject"] == f"[及时推] {day.isoformat()} 每日摘要：60 条新内容"
    text = msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert "还有 10 条" in text
    assert text.index("== news.example.cn · 新能源, 补贴 ==") < text.index("== gov.example.cn")
    assert msg["List-Unsubscribe"]
    nothing = by_to[empty_ok.email]
    assert "Nothing new today" in nothing.get_body(("plain",)).get_content()  # type: ignore[union-attr]


def test_quiet_hours_hold_and_merge(session: Session, push_env: SmtpSink) -> None:
    now = utcnow()
    user = make_user(
        session,
        quiet_start=(now - timedelta(hours=1)).strftime("%H:%M"),
        quiet_end=(now + timedelta(hours=1)).strftime("%H:%M"),
    )
    matches = make_matches(session, add_concern(session, user), 3)
    delivery.enqueue_for_matches(session, matches)
    session.commit()
    assert drain() == 0 and push_env.messages == []
    assert drain(now + timedelta(hours=2)) == 1
    [msg] = push_env.messages
    assert msg["Subject"] == "[及时推] 3 条新内容"
    text = msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert all(m.title in text for m in matches)
    assert [r.status for r in rows(session)] == ["sent"] * 3


def test_webhook_signed_retried_and_deduplicable(
    session: Session, push_env: SmtpSink, hook: HttpReceiver
) -> None:
    user = make_user(
        session, email_enabled=False, webhook_enabled=True, webhook_url=hook.url + "/in"
    )
    [match] = make_matches(session, add_concern(session, user), 1)
    delivery.enqueue_for_matches(session, [match])
    session.commit()
    hook.statuses = [500]
    now = utcnow()
    assert drain(now) == 1
    [row] = rows(session)
    assert (row.status, row.attempts, row.last_error) == ("failed", 1, "webhook answered HTTP 500")
    assert row.next_attempt_at is not None and row.next_attempt_at > now
    assert drain(now + timedelta(hours=1)) == 1
    assert rows(session)[0].status == "sent"
    first, second = hook.requests
    assert first.headers["webhook-id"] == second.headers["webhook-id"]
    session.expire_all()
    secret = session.get(User, user.id).webhook_secret  # type: ignore[union-attr]
    assert secret and verify_signature(secret, second.headers, second.body)
    body = second.json()
    assert body["type"] == "match.created" and body["version"] == 1
    assert body["data"]["match_id"] == match.id and body["data"]["url"] == match.url
    assert body["data"]["created_at"].endswith("Z")  # times as the API writes them


def test_webhook_410_disables_and_tells_the_user(
    session: Session, push_env: SmtpSink, hook: HttpReceiver
) -> None:
    hook.default = 410
    user = make_user(session, webhook_enabled=True, webhook_url=hook.url, push_mode="instant")
    user.email_enabled = False
    matches = make_matches(session, add_concern(session, user), 2)
    delivery.enqueue_for_matches(session, matches)
    session.commit()
    drain()
    session.expire_all()
    assert session.get(User, user.id).webhook_disabled_at is not None  # type: ignore[union-attr]
    statuses = {r.kind: r.status for r in rows(session)}
    assert statuses == {"instant": "dead", "webhook_gone": "sent"}
    [notice] = push_env.messages
    assert notice["Subject"] == "[及时推] 您的 Webhook 已停用"
    calls = len(hook.requests)
    later = make_matches(session, add_concern(session, user), 1)
    assert delivery.enqueue_for_matches(session, later) == 0
    session.commit()
    drain()
    assert len(hook.requests) == calls
    # the profile says so, and turning the webhook on again (as the notice asks) sends again
    from app.models import ProfileUpdate, UserPublic
    from app.services import profile

    user = session.get(User, user.id)
    assert UserPublic.model_validate(user).webhook_disabled_at is not None
    profile.update_profile(session, user, ProfileUpdate(webhook_enabled=True))
    session.commit()
    assert UserPublic.model_validate(user).webhook_disabled_at is None
    hook.default = 200
    assert (
        delivery.enqueue_for_matches(session, make_matches(session, add_concern(session, user), 1))
        == 1
    )
    session.commit()
    drain()
    assert len(hook.requests) == calls + 1


def test_private_webhook_target_is_refused_unless_allowlisted(
    session: Session, push_env: SmtpSink, hook: HttpReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIMELYPUSH_URL_ALLOWLIST", "")
    get_settings.cache_clear()
    user = make_user(session, email_enabled=False, webhook_enabled=True, webhook_url=hook.url)
    delivery.enqueue_for_matches(session, make_matches(session, add_concern(session, user), 1))
    session.commit()
    drain()
    [row] = rows(session)
    assert row.status == "dead" and "target refused" in (row.last_error or "")
    assert hook.requests == []


def test_sms_through_twilio_api(
    session: Session, push_env: SmtpSink, hook: HttpReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {
        "SMS_PROVIDER": "twilio",
        "TWILIO_ACCOUNT_SID": "AC9",
        "TWILIO_AUTH_TOKEN": "tok",
        "TWILIO_FROM": "+15550001",
        "TWILIO_API_BASE": hook.url,
    }.items():
        monkeypatch.setenv(f"TIMELYPUSH_{name}", value)
    get_settings.cache_clear()
    hook.default, hook.body = 201, {"sid": "SM1"}
    user = make_user(session, email_enabled=False, sms_enabled=True, phone="+8613800000000")
    delivery.enqueue_for_matches(session, make_matches(session, add_concern(session, user), 1))
    session.commit()
    assert drain() == 1
    [req] = hook.requests
    body = dict(p.split("=", 1) for p in req.body.decode().split("&"))
    from urllib.parse import unquote_plus

    text = unquote_plus(body["Body"])
    assert text.startswith("【及时推】新能源汽车补贴") and len(text) <= 70
    assert rows(session)[0].status == "sent"


def test_resend_makes_a_new_message_for_the_owner_only(
    session: Session, push_env: SmtpSink
) -> None:
    user = make_user(session)
    stranger = make_user(session)
    delivery.enqueue_for_matches(session, make_matches(session, add_concern(session, user), 1))
    session.commit()
    drain()
    [row] = rows(session)
    assert row.id is not None
    with pytest.raises(NotFound):
        delivery_actions.resend(session, stranger, row.id)
    copy = delivery_actions.resend(session, user, row.id)
    again = delivery_actions.resend(session, user, row.id)
    session.commit()
    assert copy.idempotency_key == row.idempotency_key + ":r1"
    assert again.idempotency_key == row.idempotency_key + ":r2"
    drain()
    ids = [m["Message-ID"] for m in push_env.messages]
    assert len(ids) == 3 and len(set(ids)) == 3


def test_send_again_on_a_delivery_still_retried_tries_it_now_and_makes_no_copy(
    session: Session,
) -> None:
    """A failed delivery the outbox will retry is brought forward, not copied: the copy and
    the retry would both reach the user."""
    from datetime import timedelta

    from app.models import Delivery

    user = make_user(session)
    delivery.enqueue_for_matches(session, make_matches(session, add_concern(session, user), 1))
    [row] = rows(session)
    later = utcnow() + timedelta(hours=1)
    row.status, row.attempts, row.next_attempt_at = "failed", 2, later
    session.add(row)
    session.commit()
    assert row.id is not None
    again = delivery_actions.resend(session, user, row.id)
    session.commit()
    assert again.id == row.id and again.status == "failed" and again.attempts == 2
    assert again.next_attempt_at is not None and again.next_attempt_at < later
    assert len(session.exec(select(Delivery)).all()) == 1


def test_a_message_never_shows_another_users_match(session: Session, push_env: SmtpSink) -> None:
    """Rows name matches by id only; composing checks the owner (ids come back on SQLite)."""
    from app.models import Delivery

    alice, bob = make_user(session, push_mode="digest"), make_user(session, push_mode="digest")
    [theirs] = make_matches(session, add_concern(session, alice), 1)
    [mine] = make_matches(session, add_concern(session, bob), 1)
    assert bob.id is not None and mine.id is not None and theirs.id is not None
    for kind, ids in (("digest", [mine.id, theirs.id]), ("instant", [theirs.id])):
        session.add(
            Delivery(
                idempotency_key=f"test:{kind}",
                user_id=bob.id,
                match_id=ids[0] if kind == "instant" else None,
                match_ids=ids,
                kind=kind,
                channel="email",
                target=bob.email,
                digest_date="2026-11-23" if kind == "digest" else None,
            )
        )
    session.commit()
    drain()
    [digest] = push_env.messages  # the instant one had nothing of bob's left to send
    text = digest.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert mine.title in text and theirs.title not in text and theirs.url not in text


def test_nothing_is_pushed_to_an_unverified_address(session: Session, push_env: SmtpSink) -> None:
    user = make_user(
        session,
        push_mode="both",
        email_verified_at=None,
        sms_enabled=True,
        phone="+8613800138000",
        phone_verified_at=None,
    )
    assert (
        delivery.enqueue_for_matches(session, make_matches(session, add_concern(session, user), 1))
        == 0
    )
    session.commit()
    result = delivery_actions.send_channel_test(session, get_settings(), user, "email")
    assert not result.ok and "verify" in (result.error or "")
    assert delivery.enqueue_due_digests(utcnow() + timedelta(days=1)) == 0
    # once verified, the next match goes out
    user.email_verified_at = utcnow()
    session.add(user)
    session.commit()
    assert (
        delivery.enqueue_for_matches(session, make_matches(session, add_concern(session, user), 1))
        == 1
    )
    session.commit()
    assert drain() == 1
    assert [m["To"] for m in push_env.messages] == [user.email]


def test_a_queued_email_is_dropped_when_the_address_changes(
    session: Session, push_env: SmtpSink
) -> None:
    user = make_user(session)
    delivery.enqueue_for_matches(session, make_matches(session, add_concern(session, user), 1))
    user.email, user.email_verified_at = "new-address@example.org", None
    session.add(user)
    session.commit()
    drain()
    assert push_env.messages == []
    [row] = rows(session)
    assert row.status in {"dead", "failed"} or row.sent_at is None
