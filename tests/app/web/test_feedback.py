"""👍 / 👎 on messages in the dashboard, the model's why, what it learned on the concern page,
sensitivity and scorer on the concern form; isolation."""

from __future__ import annotations

import re

import pytest
from sqlmodel import select

from app.models import Concern, Match
from tests.app.web.forms import post
from tests.factories import make_concern, make_match

MODEL = {
    "method": "model",
    "probability": 0.83,
    "threshold": 0.65,
    "kind": "item",
    "kind_evidence": ["headline h1 = title"],
    "parts": {"literal": 0.9, "model": 0.4},
    "hits": [
        {"term": "足球", "weight": 1.0, "learned": False, "where": {"title": 1, "body": 3}},
        {"term": "恒大", "weight": 0.5, "learned": True, "where": {"body": 1}},
    ],
    "learned": ["中超", "恒大"],
    "learned_weights": {"中超": 0.8},
    "model_warm": True,
    "feedback": 3,
    "site_area": 0.86,
}


@pytest.fixture
def msg(db, alice):
    return make_match(db, make_concern(db, alice), 1)


def _verdict(db, match_id):
    db.expire_all()
    return db.get(Match, match_id).feedback


def _pressed(html: str, value: str) -> bool:
    button = re.search(rf'<button[^>]*value="{value}"[^>]*>', html)
    assert button, value
    return 'aria-pressed="true"' in button.group(0)


def test_judge_from_the_message_page_change_and_clear(alice_client, db, msg):
    page = alice_client.get(f"/messages/{msg.id}")
    assert "这条消息相关吗？" in page.text
    assert re.search(
        r'value="relevant"[^>]*><svg class="thumb"[^<]*<path[^>]*/></svg> 相关</button>', page.text
    )
    assert re.search(
        r'value="not_relevant"[^>]*><svg class="thumb".*?</svg> 不相关</button>', page.text
    )
    assert not _pressed(page.text, "relevant") and "撤销评价" not in page.text
    path = f"/messages/{msg.id}/feedback"
    done = post(alice_client, path, {"verdict": "not_relevant", "back": f"/messages/{msg.id}"},
                page=f"/messages/{msg.id}")  # fmt: skip
    assert done.status_code == 303 and done.headers["location"] == f"/messages/{msg.id}"
    assert _verdict(db, msg.id) == -1
    page = alice_client.get(f"/messages/{msg.id}")
    assert "已标为不相关" in page.text and "您的评价：不相关" in page.text
    assert _pressed(page.text, "not_relevant") and not _pressed(page.text, "relevant")
    post(alice_client, path, {"verdict": "relevant"}, page=f"/messages/{msg.id}")
    assert _verdict(db, msg.id) == 1
    post(alice_client, path, {"verdict": "clear"}, page=f"/messages/{msg.id}")
    assert _verdict(db, msg.id) is None
    assert "评价已撤销" in alice_client.get(f"/messages/{msg.id}").text


def test_judge_from_the_message_list_comes_back_to_the_same_place(alice_client, db, msg):
    page = alice_client.get("/messages?unread=1")
    assert f'formaction="/messages/{msg.id}/feedback"' in page.text
    back = "/messages?unread=1"
    resp = post(alice_client, f"/messages/{msg.id}/feedback",
                {"verdict": "relevant", "back": back}, page="/messages")  # fmt: skip
    assert resp.status_code == 303 and resp.headers["location"] == f"{back}#m{msg.id}"
    assert _verdict(db, msg.id) == 1
    assert _pressed(alice_client.get("/messages").text, "relevant")


def test_a_bad_verdict_records_nothing(alice_client, db, msg):
    post(alice_client, f"/messages/{msg.id}/feedback", {"verdict": "maybe"}, page="/messages")
    assert _verdict(db, msg.id) is None
    assert "请选择相关或不相关" in alice_client.get(f"/messages/{msg.id}").text


def test_feedback_needs_the_forms_token(alice_client, db, msg):
    resp = alice_client.post(f"/messages/{msg.id}/feedback", data={"verdict": "relevant"})
    assert resp.status_code == 403 and _verdict(db, msg.id) is None


def test_another_users_message_is_404_and_nothing_recorded(bob_client, alice_client, db, msg):
    resp = post(bob_client, f"/messages/{msg.id}/feedback", {"verdict": "not_relevant"},
                page="/messages")  # fmt: skip
    assert resp.status_code == 404
    assert _verdict(db, msg.id) is None
    # the owner's own request goes through (the 404 above is the ownership check)
    mine = post(alice_client, f"/messages/{msg.id}/feedback", {"verdict": "relevant"},
                page="/messages")  # fmt: skip
    assert mine.status_code == 303 and _verdict(db, msg.id) == 1


def test_the_model_explains_itself(alice_client, db, msg):
    msg.explanation, msg.probability = MODEL, 0.83
    msg.matched_keywords = ["足球", "中超", "恒大"]  # as stored: the hits, then learned words
    db.add(msg)
    db.commit()
    page = alice_client.get(f"/messages/{msg.id}").text
    why = page[page.index('<dl class="why">') : page.index("</dl>")]
    assert "标题：足球" in why and "正文：足球" in why  # literal hits and where
    keywords = why[: why.index("出现位置")]
    assert "足球" in keywords  # the user's word …
    assert "中超" not in keywords and "恒大" not in keywords  # … and no learned one
    assert "恒大" not in why.split("命中的学习词")[0]  # a learned term is not a keyword hit
    learned = why[why.index("why-learned") :]
    assert "中超" in learned and "恒大" in learned and "学习得来" in learned
    assert "83%" in why and "达到 65% 即推送" in why and "学习型主题模型" in why
    assert "文章页" in why and "模型已参考您的 3 条评价" in why
    assert "站内位置" in why and "与本站主题文章的接近度 86%" in why
    assert "headline" not in why  # the crawler's English evidence is not shown in Chinese


def test_the_model_explains_itself_in_english(app, db, alice, msg):
    from tests.app.web.forms import log_in, new_client

    alice.language = "en"
    db.add(alice)
    msg.explanation = dict(MODEL, kind="hub", feedback=0)
    db.add(msg)
    db.commit()
    client = new_client(app)
    log_in(client, alice.email)
    page = client.get(f"/messages/{msg.id}").text
    assert "Learned terms that fired" in page and "(learned)" in page
    assert "83%" in page and "section page" in page and "headline h1 = title" in page
    assert "No verdicts yet" in page and "</svg> Relevant</button>" in page
    assert "Place on the site" in page
    assert "86% as close to your topic's pages as they are to each other" in page


def test_sensitivity_and_scorer_on_the_concern_form(alice_client, db, alice, site_url):
    form = alice_client.get("/concerns/new").text
    assert re.search(r'value="balanced"\s+checked', form)
    assert "精确" in form and "均衡" in form and "宽泛" in form and "80%" in form
    assert re.search(r'<option value="model"\s+selected>学习型主题模型（推荐）</option>', form)
    assert "页面如何判断" in form
    data = {"seed_url": site_url, "keywords": "足球", "priority": "0", "max_pages": "50",
            "scope": "host", "strategy": "adaptive", "enabled": "1"}  # fmt: skip
    bad = post(alice_client, "/concerns/new", dict(data, sensitivity="loud"), page="/concerns/new")
    assert bad.status_code == 422 and "请选择精确、均衡或宽泛" in bad.text
    assert db.exec(select(Concern)).all() == []
    ok = post(alice_client, "/concerns/new", dict(data, sensitivity="precise", scorer="kp"),
              page="/concerns/new")  # fmt: skip
    assert ok.status_code == 303, ok.text
    concern = db.exec(select(Concern)).one()
    assert (concern.sensitivity, concern.scorer) == ("precise", "kp")
    edit = alice_client.get(f"/concerns/{concern.id}/edit").text
    assert re.search(r'value="precise"\s+checked', edit) and re.search(
        r'<details [^>]*id="advanced-judgment"[^>]* open>', edit
    )
    edit_path = f"/concerns/{concern.id}/edit"
    post(alice_client, edit_path, dict(data, sensitivity="broad", scorer="model"), page=edit_path)
    db.expire_all()
    concern = db.get(Concern, concern.id)
    assert (concern.sensitivity, concern.scorer) == ("broad", "model")


@pytest.fixture
def learned(db, alice):
    concern = make_concern(db, alice)
    concern.learned_terms = {"恒大": 0.9, "彩票": 0.6}
    db.add(concern)
    db.commit()
    return concern


def test_learned_terms_on_the_concern_page_can_be_removed_or_promoted(alice_client, db, learned):
    path = f"/concerns/{learned.id}/report"
    page = alice_client.get(path).text
    assert "模型学到了什么" in page and "恒大" in page and "彩票" in page
    assert page.index("恒大") < page.index("彩票")  # strongest first
    resp = post(alice_client, f"/concerns/{learned.id}/learned/block", {"term": "彩票"}, page=path)
    assert resp.status_code == 303 and resp.headers["location"].endswith("/report#learned")
    post(alice_client, f"/concerns/{learned.id}/learned/promote", {"term": "恒大"}, page=path)
    db.expire_all()
    concern = db.get(Concern, learned.id)
    assert concern.blocked_terms == ["彩票"] and concern.synonyms == ["恒大"]
    assert concern.learned_terms == {}
    page = alice_client.get(path).text
    assert "“恒大”已设为关键词的同义词" in page and "已删除的词" in page
    assert "还没有学到内容" in page
    post(alice_client, f"/concerns/{learned.id}/learned/block", {"term": "不存在"}, page=path)
    assert "这不是该关注学习到的词" in alice_client.get(path).text
    # a removed term has its undo on the same page, on the term's line
    page = alice_client.get(path).text
    assert 'aria-label="恢复“彩票”"' in page
    removed = re.search(r'<(\w+) class="small removed-terms" id="removed">', page)
    assert removed and removed.group(1) != "p"  # a form in a paragraph breaks it in two
    assert not re.search(r"<p\b(?:(?!</p>).)*<form", page, re.S)
    post(alice_client, f"/concerns/{learned.id}/learned/restore", {"term": "彩票"}, page=path)
    db.expire_all()
    assert db.get(Concern, learned.id).blocked_terms == []
    page = alice_client.get(path).text
    assert "“彩票”已恢复" in page and "已删除的词" not in page
    post(alice_client, f"/concerns/{learned.id}/learned/restore", {"term": "彩票"}, page=path)
    assert "这不是该关注已删除的词" in alice_client.get(path).text


def seldom_state(pages: int, saying: int) -> dict:
    """The state a visit of ``pages`` items saves, ``saying`` of them print 足球 in the title."""
    from crawler import Judge, Page, TopicProfile

    judge = Judge(TopicProfile.from_keywords("足球"))
    for i in range(pages):
        url = f"http://s.test/2024/a{i:04d}.html"
        title = f"{'足球' if i < saying else '天气'}新闻第{i}期 降雨 气温 台风"
        judge.judge(Page(url, url, 200, title=title, text="记者获悉，相关情况仍在了解之中。"))
    judge.finish()
    return judge.state()


def test_a_concern_whose_words_the_site_seldom_prints_is_told_why_nothing_was_learned(
    alice_client, db, alice
):
    concern = make_concern(db, alice, keywords="足球")
    path = f"/concerns/{concern.id}/report"

    def report(state: dict) -> str:
        concern.model_state = state
        db.add(concern)
        db.commit()
        return alice_client.get(path).text

    # a visit read 40 pages, 2 of them print the keyword clearly: no model was fitted
    state = seldom_state(40, 2)
    assert not state["weights"]
    page = report(state)
    assert "还没有学到内容" in page
    assert "最近读过的 40 个页面中，只有 2 个明确写出了您的关键词" in page
    assert "至少 3 个这样的页面" in page
    # once a model is fitted, or enough pages print the words (a fit that learned nothing
    # leaves no model either), the reason is gone
    assert 'id="sparse"' not in report({**state, "weights": {"中超": 0.5}})
    assert 'id="sparse"' not in report({**seldom_state(40, 6), "weights": {}})
    # nor is a concern whose visits read too few pages yet told it
    assert 'id="sparse"' not in report(seldom_state(5, 2))


def test_another_users_learned_terms_are_404(bob_client, alice_client, db, learned):
    assert bob_client.get(f"/concerns/{learned.id}/report").status_code == 404
    for action in ("block", "promote", "restore"):
        resp = post(bob_client, f"/concerns/{learned.id}/learned/{action}", {"term": "恒大"},
                    page="/concerns")  # fmt: skip
        assert resp.status_code == 404
    db.expire_all()
    concern = db.get(Concern, learned.id)
    assert concern.learned_terms == {"恒大": 0.9, "彩票": 0.6} and concern.synonyms == []
    path = f"/concerns/{learned.id}/learned/block"
    assert post(alice_client, path, {"term": "恒大"}, page="/concerns").status_code == 303
    db.expire_all()
    assert db.get(Concern, learned.id).blocked_terms == ["恒大"]


def test_the_new_dynamic_texts_are_translated():
    from app.models import SCORERS, SENSITIVITIES
    from app.web import i18n
    from app.web.messages import _THANKS

    keys = [
        *(f"sensitivity:{s}" for s in SENSITIVITIES),
        *(f"sensitivity-help:{s}" for s in SENSITIVITIES),
        *(f"scorer:{s}" for s in SCORERS),
        "kind:item",
        "kind:hub",
        "method:model",
        *_THANKS.values(),
        "Link not valid",
        "Message not found",
        "This is not one of the concern's learned terms.",
    ]
    for key in keys:
        assert i18n.has("zh", key), key
        assert i18n.translate("en", key) and not i18n.translate("en", key).startswith("scorer:")
