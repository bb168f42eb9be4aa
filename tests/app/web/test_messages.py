"""我的消息: newest first, unread marked, filters, search, why it matched, read state,
soft delete, bulk actions, paging; isolation."""

from __future__ import annotations

import re

import pytest
from sqlmodel import select

from app.models import Match
from tests.app.web.forms import post
from tests.factories import make_concern, make_match


def _ids(html: str) -> list[int]:
    return [int(x) for x in re.findall(r'<article class="msg [a-z]+" id="m(\d+)"', html)]


@pytest.fixture
def feed(db, alice):
    football = make_concern(db, alice)
    tennis = make_concern(db, alice, seed="http://127.0.0.1:9/tennis/", keywords="网球")
    old = make_match(db, football, 1, age_minutes=60)
    new = make_match(
        db,
        football,
        2,
        age_minutes=1,
        url="https://news.example.org/a.html",
        title="中超 综述",
        keywords=("中超",),
    )
    other = make_match(
        db, tennis, 3, title="网球公开赛", keywords=("网球",), snippet="网球公开赛开幕"
    )
    return {"football": football, "tennis": tennis, "old": old, "new": new, "other": other}


def test_feed_is_newest_first_with_unread_marked(alice_client, feed):
    page = alice_client.get("/messages")
    assert page.status_code == 200
    assert _ids(page.text) == [feed["other"].id, feed["new"].id, feed["old"].id]
    assert page.text.count('class="msg unread"') == 3 and "3 条未读" in page.text


def test_each_match_says_why_it_matched(alice_client, feed):
    page = alice_client.get(f"/messages/{feed['old'].id}")
    assert page.status_code == 200
    assert "为什么推送" in page.text and "出现位置" in page.text
    assert "标题：足球" in page.text and "元关键词：足球" in page.text
    assert "链接文字" not in page.text  # a zero share is not a place it was found
    assert "0.85" in page.text and "+0.50" in page.text and "关键词位置相关度" in page.text
    assert "<mark>足球</mark>" in page.text
    assert f'href="{feed["old"].url}"' in page.text


def test_simple_where_maps_are_understood_too():
    from app.models import Match
    from app.web.messages import explain

    why = explain(
        Match(
            concern_id=1,
            page_id=1,
            user_id=1,
            fingerprint="f",
            score=0.7,
            matched_keywords=["足球"],
            explanation={"threshold": 0.5, "where": {"anchors": ["足球"]}},
        )
    )
    assert [(p.name, p.terms) for p in why.places] == [("anchor text", ["足球"])]
    assert why.threshold == 0.5


def test_opening_a_message_marks_it_read(alice_client, db, feed):
    alice_client.get(f"/messages/{feed['old'].id}")
    db.refresh(feed["old"])
    assert feed["old"].read_at is not None
    assert "2 条未读" in alice_client.get("/messages").text


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("concern={football}", ["new", "old"]),
        ("keyword=网球", ["other"]),
        ("site=news.example.org", ["new"]),
        ("q=公开赛", ["other"]),
        ("q=nothing-like-this", []),
    ],
)
def test_filters(alice_client, feed, query, expected):
    page = alice_client.get("/messages?" + query.format(football=feed["football"].id))
    assert _ids(page.text) == [feed[k].id for k in expected]
    if not expected:
        assert "没有符合筛选条件的消息" in page.text


def test_date_filter_and_bad_dates(alice_client, feed):
    page = alice_client.get("/messages?since=2000-01-01&until=2000-01-02")
    assert _ids(page.text) == []
    bad = alice_client.get("/messages?since=yesterday")
    assert bad.status_code == 200 and "请按“年-月-日”输入日期" in bad.text


def test_mark_read_unread_and_delete(alice_client, db, feed):
    mid = feed["new"].id
    assert (
        post(
            alice_client, f"/messages/{mid}/read", {"back": "/messages?unread=1"}, page="/messages"
        ).headers["location"]
        == "/messages?unread=1"
    )
    assert mid not in _ids(alice_client.get("/messages?unread=1").text)
    post(alice_client, f"/messages/{mid}/unread", page="/messages")
    db.refresh(feed["new"])
    assert feed["new"].read_at is None
    post(alice_client, f"/messages/{mid}/delete", page="/messages")
    db.refresh(feed["new"])
    assert feed["new"].deleted_at is not None
    assert mid not in _ids(alice_client.get("/messages").text)
    assert alice_client.get(f"/messages/{mid}").status_code == 404


def test_bulk_actions(alice_client, db, feed):
    ids = [feed["old"].id, feed["new"].id]
    token = re.search(r'name="csrf_token" value="([^"]+)"', alice_client.get("/messages").text)[1]
    response = alice_client.post(
        "/messages/bulk",
        data={
            "csrf_token": token,
            "ids": [str(i) for i in ids],
            "action": "read",
            "back": "/messages",
        },
    )
    assert response.status_code == 303
    assert "已更新 2 条消息" in alice_client.get("/messages").text
    alice_client.post(
        "/messages/bulk", data={"csrf_token": token, "ids": [str(ids[0])], "action": "delete"}
    )
    db.expire_all()
    rows = {m.id: m for m in db.exec(select(Match))}
    assert rows[ids[0]].deleted_at is not None and rows[ids[1]].read_at is not None
    none = alice_client.post("/messages/bulk", data={"csrf_token": token, "action": "read"})
    assert none.status_code == 303
    assert "请至少选择一条消息" in alice_client.get("/messages").text


def test_paging_walks_the_whole_feed_once(alice_client, db, alice):
    concern = make_concern(db, alice)
    made = [make_match(db, concern, n, age_minutes=n).id for n in range(45)]
    seen: list[int] = []
    url = "/messages"
    for _ in range(5):
        page = alice_client.get(url)
        seen += _ids(page.text)
        more = re.search(r'href="(/messages\?[^"]*cursor=[^"]+)" id="older"', page.text)
        if not more:
            break
        url = more.group(1).replace("&amp;", "&")
    assert seen == made  # newest (n=0) first, none twice, none missing


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/messages/{id}"),
        ("post", "/messages/{id}/read"),
        ("post", "/messages/{id}/unread"),
        ("post", "/messages/{id}/delete"),
    ],
)
def test_other_users_messages_are_not_found(bob_client, db, feed, method, path):
    url = path.format(id=feed["old"].id)
    response = bob_client.get(url) if method == "get" else post(bob_client, url, page="/messages")
    assert response.status_code == 404
    assert _ids(bob_client.get("/messages").text) == []
    db.refresh(feed["old"])
    assert feed["old"].read_at is None and feed["old"].deleted_at is None


def test_bulk_ignores_other_users_ids(bob_client, db, feed):
    token = re.search(r'name="csrf_token" value="([^"]+)"', bob_client.get("/messages").text)[1]
    read_before = feed["old"].read_at
    for action in ("read", "unread", "delete"):
        bob_client.post(
            "/messages/bulk",
            data={"csrf_token": token, "action": action, "ids": [str(feed["old"].id)]},
        )
    db.refresh(feed["old"])
    assert feed["old"].deleted_at is None and feed["old"].read_at == read_before


def test_navigation_shows_the_unread_badge_everywhere(alice_client, feed):
    page = alice_client.get("/settings")
    assert '<span class="badge">3</span>' in page.text


def test_opening_an_unread_message_counts_it_read_in_the_badge_at_once(alice_client, feed):
    page = alice_client.get(f"/messages/{feed['old'].id}")
    assert '<span class="badge">2</span>' in page.text
    # the list says the same number as the badge, counted once
    listed = alice_client.get("/messages")
    assert "2 条未读" in listed.text and '<span class="badge">2</span>' in listed.text
    again = alice_client.get(f"/messages/{feed['old'].id}")  # already read: still two
    assert '<span class="badge">2</span>' in again.text


def test_delivery_history_and_resend(alice_client, bob_client, db, feed):
    from app.models import Delivery

    match = feed["new"]
    row = Delivery(
        idempotency_key=f"i:{match.user_id}:webhook:{match.id}",
        user_id=match.user_id,
        match_id=match.id,
        match_ids=[match.id],
        channel="webhook",
        target="http://127.0.0.1:9/in",
        status="dead",
        attempts=8,
        last_error="webhook answered HTTP 500",
    )
    db.add(row)
    db.commit()
    page = alice_client.get(f"/messages/{match.id}")
    assert "推送记录" in page.text and "已放弃" in page.text
    assert "接收方返回了错误（HTTP 500）" in page.text and "webhook answered" not in page.text
    path = f"/messages/{match.id}/deliveries/{row.id}/resend"
    # another user cannot resend it (nor see the message)
    assert post(bob_client, path, page="/messages").status_code == 404
    assert len(db.exec(select(Delivery)).all()) == 1
    done = post(alice_client, path, page=f"/messages/{match.id}")
    assert done.status_code == 303 and done.headers["location"] == f"/messages/{match.id}"
    rows = db.exec(select(Delivery).order_by(Delivery.id)).all()
    assert [(r.status, r.channel) for r in rows] == [("dead", "webhook"), ("pending", "webhook")]
    page = alice_client.get(f"/messages/{match.id}").text
    assert "已加入发送队列" in page
    # "send again" is offered on the row that gave up, not on the copy still on its way
    resend = re.findall(r'action="/messages/\d+/deliveries/(\d+)/resend"', page)
    assert resend == [str(row.id)]
    # a message with no push says so
    assert "没有单独推送" in alice_client.get(f"/messages/{feed['old'].id}").text


def test_the_dashboard_says_how_to_start_pushes_until_verified(alice_client, db, alice):
    page = alice_client.get("/messages")
    assert "确认 alice@example.com 后才会发送邮件推送" in page.text
    from app.models import utcnow

    alice.email_verified_at = utcnow()
    db.add(alice)
    db.commit()
    assert 'id="verify-notice"' not in alice_client.get("/messages").text


def test_headlines_without_the_site_name_and_summaries_without_the_headline(
    alice_client, db, alice
):
    """The feed shows "国足世预赛名单公布", not "…_体育_门户新闻", and under it the article's
    first sentences, not the title again; searching still reads the whole stored title."""
    concern = make_concern(db, alice)
    site = "https://sports.portal.example.cn/"
    stories = [
        (
            "国足世预赛名单公布_体育_门户新闻",
            "国足世预赛名单公布 国家队公布集训名单，多名新人入选。",
        ),
        ("中超前瞻_体育_门户新闻", "中超前瞻_体育_门户新闻"),  # the description is the title
        ("女排夺冠_体育_门户新闻", "女排在决赛中三比零获胜。"),
    ]
    for n, (title, snippet) in enumerate(stories):
        make_match(db, concern, n, title=title, snippet=snippet, url=f"{site}{n}.html")
    page = alice_client.get("/messages").text
    titles = re.findall(r'<a class="title" href="/messages/\d+"[^>]*>(.*?)</a>', page, re.S)
    shown = [re.sub(r"<[^>]+>", "", t) for t in titles]  # newest first
    assert shown == ["女排夺冠", "中超前瞻", "国足世预赛名单公布"]
    assert "门户新闻</a>" not in page
    snippets = re.findall(r'<div class="snippet">(.*?)</div>', page, re.S)
    assert re.sub(r"<[^>]+>", "", snippets[2]) == "国家队公布集训名单，多名新人入选。"
    assert snippets[1] == ""  # nothing rather than the title twice
    found = alice_client.get("/messages", params={"q": "门户新闻"}).text
    assert len(re.findall(r'<article class="msg', found)) == 3


def test_a_word_in_the_breadcrumb_is_shown_as_the_section(alice_client, db, alice):
    from crawler import Judge, Page, TopicProfile

    concern = make_concern(db, alice, keywords="体育")
    match = make_match(db, concern, 7, title="于涛伤愈复出", keywords=("体育",))
    url = "https://www.example.cn/a/20240601/x7.html"
    page = Page(url, url, 200, title="于涛伤愈复出", kind="item", sections=("首页", "体育"))
    match.explanation = Judge(TopicProfile.from_keywords("体育")).judge(page).explanation
    db.add(match)
    db.commit()
    html = alice_client.get(f"/messages/{match.id}").text
    assert "栏目：体育" in html and "标题：体育" not in html


def test_a_push_to_a_chat_app_names_the_app(alice_client, db, alice, feed):
    from app.models import Delivery, PushChannel

    match = feed["new"]
    url = "json://127.0.0.1:9/bot"
    db.add(PushChannel(user_id=alice.id, name="钉钉群", url=url, service="json", mode="instant"))
    db.add(
        Delivery(
            idempotency_key=f"i:{match.user_id}:apprise:{match.id}",
            user_id=match.user_id,
            match_id=match.id,
            channel="apprise",
            target=url,
            status="sent",
        )
    )
    db.commit()
    page = alice_client.get(f"/messages/{match.id}").text
    cell = re.search(r'<td data-label="渠道">(.*?)</td>', page).group(1)
    assert "钉钉群" in cell and "聊天与推送应用" in cell  # its name, then its kind
