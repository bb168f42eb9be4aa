"""Apprise push channels end to end: the URL guard, the outbox (once, retried, recorded) and
the per-channel instant / digest choice, against a real HTTP receiver on loopback."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session, select

from app.core.config import get_settings
from app.models import PushChannel, PushChannelCreate, User, utcnow
from app.services import delivery, push_channels
from app.services.delivery_policy import due_digest
from app.services.errors import Invalid
from tests.factories import add_concern, make_matches, make_user
from tests.push import fixtures
from tests.push.fixtures import drain, rows
from tests.push.servers import HttpReceiver, SmtpSink

sink, hook, push_env = fixtures.sink, fixtures.hook, fixtures.push_env


def _json_url(receiver: HttpReceiver) -> str:
    return receiver.url.replace("http://", "json://") + "/notify"


def _add(session: Session, user: User, url: str, mode: str = "instant") -> PushChannel:
    channel = push_channels.add_channel(
        session, get_settings(), user, PushChannelCreate(name="群机器人", url=url, mode=mode)
    )
    session.commit()
    return channel


def test_loopback_targets_are_refused_unless_allowlisted(
    session: Session, push_env: SmtpSink, hook: HttpReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = make_user(session)
    session.commit()
    monkeypatch.setenv("TIMELYPUSH_URL_ALLOWLIST", "")
    get_settings.cache_clear()
    for url in (_json_url(hook), "bark://127.0.0.1:8080/device", "ntfy://10.1.2.3/topic"):
        with pytest.raises(Invalid) as err:
            _add(session, user, url)
        assert err.value.code == "blocked_url"
    with pytest.raises(Invalid) as err:
        _add(session, user, "notaservice://whatever")
    assert err.value.code == "invalid_apprise_url"
    with pytest.raises(Invalid) as err:
        _add(session, user, "dingtalk://token/", mode="hourly")
    assert err.value.code == "invalid_channel_mode"
    session.rollback()
    assert push_channels.list_channels(session, user) == []

    monkeypatch.setenv("TIMELYPUSH_URL_ALLOWLIST", "127.0.0.1")
    get_settings.cache_clear()
    channel = _add(session, user, _json_url(hook))
    assert channel.service == "JSON" and channel.name == "群机器人"


def test_a_match_is_delivered_once_retried_on_5xx_and_recorded(
    session: Session, push_env: SmtpSink, hook: HttpReceiver
) -> None:
    user = make_user(session, email_enabled=False)
    channel = _add(session, user, _json_url(hook))
    [match] = make_matches(session, add_concern(session, user), 1)
    hook.statuses = [502]
    assert delivery.enqueue_for_matches(session, [match]) == 1
    assert delivery.enqueue_for_matches(session, [match]) == 0
    session.commit()

    drain()
    [row] = rows(session)
    assert (row.channel, row.target, row.status, row.attempts) == (
        "apprise",
        str(channel.id),
        "failed",
        1,
    )
    assert "did not accept" in (row.last_error or "")
    assert channel.url not in (row.last_error or "") and channel.url not in row.target

    drain(utcnow() + timedelta(hours=1))
    [row] = rows(session)
    assert (row.status, row.attempts, row.sent_at is not None) == ("sent", 2, True)
    assert [r.status for r in hook.requests] == [502, 200]
    body = hook.requests[-1].json()
    assert body["title"] == match.title
    assert match.url in body["message"] and "命中关键词：新能源、补贴" in body["message"]

    drain(utcnow() + timedelta(hours=2))
    assert len(hook.requests) == 2  # once: nothing more goes out


def test_digest_channel_gets_the_daily_digest_not_instant_pushes(
    session: Session, push_env: SmtpSink, hook: HttpReceiver
) -> None:
    user = make_user(session, email_enabled=False, push_mode="instant", digest_time="08:00")
    digest = _add(session, user, _json_url(hook), mode="digest")
    now = utcnow()
    _, _, window_end = due_digest(user, now)
    matches = make_matches(
        session, add_concern(session, user), 3, created_at=window_end - timedelta(minutes=5)
    )
    assert delivery.enqueue_for_matches(session, matches) == 0
    session.commit()
    assert delivery.enqueue_due_digests(now) == 1
    assert delivery.enqueue_due_digests(now) == 0
    drain(now)
    [row] = rows(session)
    assert (row.kind, row.channel, row.target, row.status) == (
        "digest",
        "apprise",
        str(digest.id),
        "sent",
    )
    [req] = hook.requests
    body = req.json()
    assert "每日摘要：3 条新内容" in body["title"]
    assert all(m.title in body["message"] for m in matches)


def test_removed_or_turned_off_channels_get_nothing(
    session: Session, push_env: SmtpSink, hook: HttpReceiver
) -> None:
    user = make_user(session, email_enabled=False)
    gone = _add(session, user, _json_url(hook))
    off = _add(session, user, _json_url(hook) + "2")
    concern = add_concern(session, user)
    delivery.enqueue_for_matches(session, make_matches(session, concern, 1))
    session.commit()
    assert gone.id is not None and off.id is not None
    push_channels.remove_channel(session, user, gone.id)
    from app.models import PushChannelUpdate

    push_channels.update_channel(session, user, off.id, PushChannelUpdate(enabled=False))
    session.commit()
    drain()
    assert hook.requests == []
    assert sorted(r.last_error or "" for r in rows(session)) == [
        "push channel removed by the user",
        "push channel turned off by the user",
    ]
    assert all(r.status == "dead" for r in rows(session))
    # and a turned-off channel gets no new rows
    delivery.enqueue_for_matches(session, make_matches(session, concern, 1))
    session.commit()
    assert len(rows(session)) == 2
    assert session.exec(select(PushChannel)).all() == [off]


def test_test_button_sends_now(session: Session, push_env: SmtpSink, hook: HttpReceiver) -> None:
    user = make_user(session, language="en")
    channel = _add(session, user, _json_url(hook))
    result = push_channels.send_test_message(get_settings(), user, channel)
    assert result.ok
    [req] = hook.requests
    assert req.json()["title"] == "[Timely Push] Test message"
    hook.default = 500
    assert not push_channels.send_test_message(get_settings(), user, channel).ok
