"""Pushed pages read like headlines: the site's name dropped from titles, and the summary is
the description or the article's first sentences, never the title again (digest and instant
mail through a real SMTP sink)."""

from __future__ import annotations

from sqlmodel import Session

from app.services import delivery
from tests.factories import add_concern, digest_matches, make_matches, make_user
from tests.push import fixtures
from tests.push.fixtures import drain
from tests.push.servers import SmtpSink

sink, push_env = fixtures.sink, fixtures.push_env

STORIES = [
    ("国足世预赛名单公布_体育_门户新闻", "国足世预赛名单公布_体育_门户新闻"),
    ("短讯_体育_门户新闻", "短讯 市体育局今天发布了青少年足球训练营的报名通知。"),
    ("中超第28轮前瞻_体育_门户新闻", "积分榜前三名同日出战，争冠悬念延续到最后一轮。"),
]


def test_digest_items_are_headlines_with_a_real_summary(
    session: Session, push_env: SmtpSink
) -> None:
    now, matches = digest_matches(session, len(STORIES), digest_time="08:00")
    for match, (title, snippet) in zip(matches, STORIES, strict=True):
        match.title, match.snippet = title, snippet
        session.add(match)
    session.commit()

    assert delivery.enqueue_due_digests(now) == 1
    assert drain(now) == 1
    [msg] = push_env.messages
    text = msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    html = msg.get_body(("html",)).get_content()  # type: ignore[union-attr]
    assert "门户新闻" not in text and "门户新闻" not in html
    for headline in ("国足世预赛名单公布", "短讯", "中超第28轮前瞻"):
        assert text.count(headline) == 1, headline  # the title once, not again as summary
    assert "市体育局今天发布了青少年足球训练营的报名通知。" in text
    assert "积分榜前三名同日出战" in text


def test_instant_mail_subject_drops_the_site_suffix(session: Session, push_env: SmtpSink) -> None:
    user = make_user(session)
    [match] = make_matches(session, add_concern(session, user), 1)
    match.title = "Cup final tonight: both teams at full strength | Sports | Daily Site"
    match.snippet = match.title
    session.add(match)
    assert delivery.enqueue_for_matches(session, [match]) == 1
    session.commit()
    assert drain() == 1
    [msg] = push_env.messages
    assert msg["Subject"] == "[及时推] Cup final tonight: both teams at full strength"
    text = msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert "Daily Site" not in text
