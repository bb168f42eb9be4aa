"""Settings page: chat and push apps (Apprise) and the Atom feed links; the feeds themselves
read by a feed parser, with per-user isolation and rotation."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import feedparser
import pytest
from sqlmodel import select

from app.models import Concern, PushChannel
from tests.app.web.forms import post
from tests.factories import add_match
from tests.push.servers import HttpReceiver


@pytest.fixture
def receiver() -> Iterator[HttpReceiver]:
    server = HttpReceiver()
    yield server
    server.close()


def test_add_test_switch_and_remove_a_channel(alice_client, db, alice, receiver):
    url = receiver.url.replace("http://", "json://") + "/bot"
    added = post(
        alice_client,
        "/settings/channels",
        {"channel_name": "钉钉群", "channel_url": url, "channel_mode": "instant"},
        page="/settings",
    )
    assert added.status_code == 303
    page = alice_client.get("/settings")
    assert (
        "推送渠道已添加。" in page.text and "钉钉群" in page.text and "聊天与推送应用" in page.text
    )
    [channel] = db.exec(select(PushChannel)).all()
    assert channel.user_id == alice.id and channel.mode == "instant"

    tested = post(alice_client, f"/settings/channels/{channel.id}/test", page="/settings")
    assert tested.status_code == 303
    assert "测试消息已发送。" in alice_client.get("/settings").text
    assert receiver.requests[0].json()["title"] == "[及时推] 测试消息"

    switched = post(
        alice_client,
        f"/settings/channels/{channel.id}/mode",
        {"mode": "digest", "enabled": "1"},
        page="/settings",
    )
    assert switched.status_code == 303
    db.refresh(channel)
    assert channel.mode == "digest" and channel.enabled

    removed = post(alice_client, f"/settings/channels/{channel.id}/delete", page="/settings")
    assert removed.status_code == 303
    db.expire_all()
    assert db.exec(select(PushChannel)).all() == []


def test_bad_channel_input_is_explained_in_chinese_and_nothing_saved(alice_client, db, monkeypatch):
    from app.core.config import get_settings

    bad = post(
        alice_client,
        "/settings/channels",
        {"channel_name": "x", "channel_url": "whatever://nope", "channel_mode": "instant"},
        page="/settings",
    )
    assert bad.status_code == 422
    assert "Apprise 无法识别这个地址" in bad.text and 'value="whatever://nope"' in bad.text

    monkeypatch.setenv("TIMELYPUSH_URL_ALLOWLIST", "")
    get_settings.cache_clear()
    private = post(
        alice_client,
        "/settings/channels",
        {"channel_name": "x", "channel_url": "bark://192.168.1.9/dev", "channel_mode": "both"},
        page="/settings",
    )
    assert private.status_code == 422 and "不能使用这个地址" in private.text
    assert db.exec(select(PushChannel)).all() == []


def test_another_users_channel_is_not_found(alice_client, bob, db):
    channel = PushChannel(user_id=bob.id, url="ntfy://topic", service="ntfy")
    db.add(channel)
    db.commit()
    for action in ("test", "delete"):
        response = post(alice_client, f"/settings/channels/{channel.id}/{action}", page="/settings")
        assert response.status_code == 404
    changed = post(
        alice_client, f"/settings/channels/{channel.id}/mode", {"mode": "digest"}, page="/settings"
    )
    assert changed.status_code == 404
    db.expire_all()
    kept = db.get(PushChannel, channel.id)
    assert kept is not None and kept.mode == "instant"


def _concern(db: Any, owner_id: int, keyword: str) -> Concern:
    concern = Concern(owner_id=owner_id, seed_url="https://news.example.cn/", keywords=[keyword])
    db.add(concern)
    db.commit()
    return concern


def _feed_links(client: Any) -> list[str]:
    page = client.get("/settings").text
    return re.findall(r'"https?://[^/"]+(/feed/[^"<]+\.atom)"', page)


def test_atom_feeds_parse_carry_the_why_line_and_stay_private(
    alice_client, bob_client, db, alice, bob
):
    football = _concern(db, alice.id, "足球")
    weather = _concern(db, alice.id, "天气")
    for i in range(3):
        add_match(db, football, i, title=f"足球新闻 {i}", keywords=["足球"])
    add_match(db, weather, 9, title="天气预报", keywords=["天气"])
    bobs = _concern(db, bob.id, "股票")
    add_match(db, bobs, 20, title="股票行情", keywords=["股票"])

    assert _feed_links(alice_client) == []
    made = post(alice_client, "/settings/feed/rotate", page="/settings")
    assert made.status_code == 303
    links = _feed_links(alice_client)
    assert len(links) == 3  # all messages + one per concern
    everything = alice_client.get(links[0])
    assert everything.status_code == 200
    assert everything.headers["content-type"].startswith("application/atom+xml")

    parsed = feedparser.parse(everything.content)
    assert not parsed.bozo, parsed.bozo_exception
    assert parsed.version == "atom10"
    assert parsed.feed.title == "及时推 · 我的消息"
    assert sorted(e.title for e in parsed.entries) == [
        "天气预报",
        "足球新闻 0",
        "足球新闻 1",
        "足球新闻 2",
    ]
    entry = next(e for e in parsed.entries if e.title == "足球新闻 1")
    assert "命中关键词：足球" in entry.summary
    assert entry.link.startswith("https://") and entry.id.startswith("tag:")
    assert "股票行情" not in everything.text

    concern_link = next(link for link in links if f"/concerns/{football.id}.atom" in link)
    one = feedparser.parse(alice_client.get(concern_link).content)
    assert not one.bozo and len(one.entries) == 3 and "足球" in one.feed.title

    # someone else's concern under alice's token, a wrong token: nothing to see
    token = links[0].removeprefix("/feed/").removesuffix(".atom")
    assert alice_client.get(f"/feed/{token}/concerns/{bobs.id}.atom").status_code == 404
    assert alice_client.get(f"/feed/{token[:-2]}xx.atom").status_code == 404
    assert bob_client.get("/feed/not-a-token.atom").status_code == 404

    # rotating: the old links stop working, the new ones work
    rotated = post(alice_client, "/settings/feed/rotate", page="/settings")
    assert rotated.status_code == 303
    assert "旧链接已失效" in alice_client.get("/settings").text
    new_links = _feed_links(alice_client)
    assert new_links[0] != links[0]
    assert alice_client.get(links[0]).status_code == 404
    assert alice_client.get(concern_link).status_code == 404
    assert alice_client.get(new_links[0]).status_code == 200


def test_webhook_batching_is_a_push_preference(alice_client, db, alice):
    page = alice_client.get("/settings")
    assert "Webhook 事件也像邮件一样合并" in page.text
    saved = post(
        alice_client,
        "/settings/push",
        {
            "push_mode": "instant",
            "digest_time": "08:00",
            "email_enabled": "1",
            "webhook_batch": "1",
        },
        page="/settings",
    )
    assert saved.status_code == 303
    db.refresh(alice)
    assert alice.webhook_batch and alice.email_enabled
