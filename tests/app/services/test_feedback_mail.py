"""Instant emails and digests carry a signed "not relevant" link and the model's why-line;
the link lands on a confirmation page in the reader's language (GET never records, POST does).
"""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.models import Match
from app.services import delivery
from tests.factories import add_concern, digest_matches, make_matches, make_user
from tests.push import fixtures
from tests.push.fixtures import drain
from tests.push.servers import SmtpSink

sink, push_env = fixtures.sink, fixtures.push_env

MODEL_EXPLANATION = {
    "method": "model",
    "probability": 0.83,
    "threshold": 0.65,
    "kind": "item",
    "kind_evidence": ["headline h1 = title"],
    "parts": {"literal": 0.9, "model": 0.4},
    "hits": [
        {"term": "新能源", "weight": 1.0, "learned": False, "where": {"title": 1, "body": 3}},
        {"term": "电池", "weight": 0.6, "learned": True, "where": {"body": 2}},
    ],
    "learned": ["电池", "充电桩"],
    "model_warm": True,
    "feedback": 3,
}
LINK = re.compile(r"http://testserver(/feedback/[A-Za-z0-9_.\-]+)")


def _bodies(msg) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    text = msg.get_body(("plain",)).get_content()
    html = msg.get_body(("html",)).get_content()
    return text, html


def _web() -> TestClient:
    from app.main import create_app

    return TestClient(create_app(), base_url="http://testserver", follow_redirects=False)


def _verdict(session: Session, match_id: int) -> tuple[int | None, object]:
    session.expire_all()
    match = session.get(Match, match_id)
    assert match is not None
    return match.feedback, match.feedback_at


def test_instant_email_link_records_not_relevant_after_confirming(
    session: Session, push_env: SmtpSink
) -> None:
    user = make_user(session)
    [match] = make_matches(session, add_concern(session, user), 1)
    match.explanation = MODEL_EXPLANATION
    match.probability = 0.83
    assert delivery.enqueue_for_matches(session, [match]) == 1
    session.commit()
    assert drain() == 1
    [msg] = push_env.messages
    text, html = _bodies(msg)
    # the why-line names hits and places, learned terms, the probability, kind and verdicts
    why = (
        "命中关键词：新能源（标题、正文）；学习到的词：电池、充电桩；"
        "相关概率 83%（推送阈值 65%），文章页；模型已参考您的 3 条反馈"
    )
    assert why in text and why in html
    assert "不相关？告诉我们" in text and "不相关？告诉我们" in html
    [path] = set(LINK.findall(text))
    assert path in html

    web = _web()
    page = web.get(path)  # what a mail scanner's prefetch does
    assert page.status_code == 200
    assert "是的，不相关" in page.text and match.title in page.text
    assert _verdict(session, match.id) == (None, None)  # type: ignore[arg-type]

    done = web.post(path)
    assert done.status_code == 200 and "已标为不相关" in done.text
    value, at = _verdict(session, match.id)  # type: ignore[arg-type]
    assert value == -1 and at is not None
    again = web.post(path)  # a second click changes nothing
    assert again.status_code == 200 and "已标为不相关" in again.text
    assert _verdict(session, match.id) == (-1, at)  # type: ignore[arg-type]
    assert "已标为不相关" in web.get(path).text  # the page now says it is recorded


def test_forged_or_stale_links_say_so_and_change_nothing(
    session: Session, push_env: SmtpSink
) -> None:
    from app.core.config import get_settings
    from app.services.feedback import feedback_url

    user = make_user(session, language="en")
    [match] = make_matches(session, add_concern(session, user), 1)
    session.commit()
    good = feedback_url(get_settings(), match.id).removeprefix("http://testserver")  # type: ignore[arg-type]
    web = _web()
    english = web.get(good)
    assert english.status_code == 200 and "Yes, not relevant" in english.text  # her language

    forged = good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB")
    for method in (web.get, web.post):
        page = method(forged, headers={"Accept-Language": "zh-CN"})
        assert page.status_code == 400 and "链接无效" in page.text
    assert _verdict(session, match.id) == (None, None)  # type: ignore[arg-type]

    unknown = feedback_url(get_settings(), 2_000_000_000).removeprefix("http://testserver")
    page = web.post(unknown, headers={"Accept-Language": "en"})
    assert page.status_code == 404 and "no longer exists" in page.text


def test_digest_items_carry_their_own_link(session: Session, push_env: SmtpSink) -> None:
    now, matches = digest_matches(session, 2, language="en")
    matches[0].explanation = MODEL_EXPLANATION
    session.commit()
    assert delivery.enqueue_due_digests(now) == 1
    assert drain(now) == 1
    [msg] = push_env.messages
    text, html = _bodies(msg)
    assert len(set(LINK.findall(text))) == 2 and text.count("Not relevant? Tell us") == 2
    assert (
        "Matched: 新能源 (title, body); learned: 电池, 充电桩; "
        "probability 83% (push at 65%), article; shaped by 3 of your verdicts"
    ) in text
    assert "Matched: 新能源, 补贴 (relevance 0.80)" in text  # the seed scorer's line stays
    assert html.count("/feedback/") == 2


def test_a_digest_leaves_out_what_the_user_already_marked_not_relevant(
    session: Session, push_env: SmtpSink
) -> None:
    now, (wrong, right, liked) = digest_matches(session, 3, language="en")
    wrong.feedback, liked.feedback = -1, 1  # 👎 in the dashboard before the digest, and a 👍
    session.commit()
    assert delivery.enqueue_due_digests(now) == 1
    assert drain(now) == 1
    [msg] = push_env.messages
    text, html = _bodies(msg)
    assert wrong.title not in text and wrong.title not in html
    assert right.title in text and liked.title in text
    assert len(set(LINK.findall(text))) == 2


def test_the_links_page_shows_the_headline_without_the_sites_name(
    session: Session, push_env: SmtpSink
) -> None:
    from app.core.config import get_settings
    from app.services.feedback import feedback_url

    user = make_user(session)
    [match] = make_matches(session, add_concern(session, user), 1)
    match.title = "中国足球与世隔绝6年仍迷茫_体育_新浪网"
    session.commit()
    link = feedback_url(get_settings(), match.id).removeprefix("http://testserver")  # type: ignore[arg-type]
    page = _web().get(link)
    assert page.status_code == 200
    assert "中国足球与世隔绝6年仍迷茫" in page.text and "新浪网" not in page.text
