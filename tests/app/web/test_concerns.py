"""我的关注: list, add (validated, probed), edit, pause, delete, check now; isolation."""

from __future__ import annotations

import re

import pytest

from app.models import Concern, Site
from tests.app.web.forms import post
from tests.factories import make_concern


def test_empty_list_invites_to_add(alice_client):
    page = alice_client.get("/concerns")
    assert page.status_code == 200 and "您还没有关注任何网站" in page.text


def test_add_concern_through_the_form(alice_client, site_url, db, alice):
    form = alice_client.get("/concerns/new")
    assert form.status_code == 200 and "主题 PageRank" in form.text
    # the recommended strategy is preselected
    assert re.search(r'<option value="adaptive"\s+selected>自适应（推荐）</option>', form.text)
    response = post(
        alice_client,
        "/concerns/new",
        {
            "seed_url": site_url,
            "keywords": "足球，中超, 足球",
            "exclude": "彩票",
            "priority": "3",
            "max_pages": "150",
            "scope": "host",
            "strategy": "fish-kp",
            "param_T": "0.6",
            "enabled": "1",
        },
        page="/concerns/new",
    )
    assert response.status_code == 303, response.text
    concern = db.exec(__import__("sqlmodel").select(Concern)).one()
    assert concern.keywords == ["足球", "中超"] and concern.exclude == ["彩票"]
    assert concern.priority == 3 and concern.max_pages == 150
    assert concern.strategy == "fish-kp" and concern.params == {"T": 0.6}
    page = alice_client.get("/concerns")
    assert "关注已添加" in page.text and site_url in page.text
    assert "下次访问" in page.text and "未安排" not in page.text
    assert "回访级别" in page.text


def test_the_same_concern_twice_is_refused_next_to_its_keywords(alice_client, site_url, db):
    fields = {"seed_url": site_url, "keywords": "足球", "priority": "0", "max_pages": "50"}
    assert post(alice_client, "/concerns/new", fields, page="/concerns/new").status_code == 303
    again = post(
        alice_client,
        "/concerns/new",
        {**fields, "seed_url": site_url.rstrip("/")},
        page="/concerns/new",
    )
    assert again.status_code == 409
    assert "您已经用这些关键词关注了这个网站" in again.text and 'value="足球"' in again.text
    assert len(db.exec(__import__("sqlmodel").select(Concern)).all()) == 1


def test_bad_input_is_shown_next_to_the_field_and_kept(alice_client):
    response = post(
        alice_client,
        "/concerns/new",
        {
            "seed_url": "ftp://example.com/",
            "keywords": "足球",
            "priority": "9",
            "max_pages": "10",
            "strategy": "topic-pagerank",
        },
        page="/concerns/new",
    )
    assert response.status_code == 422
    assert "0 到 5 之间的整数" in response.text and 'value="ftp://example.com/"' in response.text
    response = post(
        alice_client,
        "/concerns/new",
        {
            "seed_url": "ftp://example.com/",
            "keywords": "足球",
            "priority": "1",
            "max_pages": "10",
            "strategy": "topic-pagerank",
        },
        page="/concerns/new",
    )
    assert response.status_code == 422 and "网址无效" in response.text
    assert 'value="足球"' in response.text


def test_no_keywords_and_private_addresses_are_refused(alice_client):
    empty = post(
        alice_client,
        "/concerns/new",
        {
            "seed_url": "https://example.com/",
            "keywords": " ， ",
            "priority": "0",
            "max_pages": "10",
            "strategy": "bfs",
        },
        page="/concerns/new",
    )
    assert empty.status_code == 422 and "请至少输入一个关键词" in empty.text
    private = post(
        alice_client,
        "/concerns/new",
        {
            "seed_url": "http://10.0.0.1/",
            "keywords": "足球",
            "priority": "0",
            "max_pages": "10",
            "strategy": "bfs",
        },
        page="/concerns/new",
    )
    assert private.status_code == 422 and "不能使用这个地址" in private.text


def test_unreachable_site_gives_a_clear_message(alice_client, site_url):
    dead = site_url.replace("127.0.0.1:", "127.0.0.1:1")  # almost surely a closed port
    port = int(dead.rsplit(":", 1)[1].strip("/"))
    if port > 65535:
        dead = "http://127.0.0.1:9/"
    response = post(
        alice_client,
        "/concerns/new",
        {
            "seed_url": dead,
            "keywords": "足球",
            "priority": "0",
            "max_pages": "10",
            "strategy": "bfs",
        },
        page="/concerns/new",
    )
    assert response.status_code == 422 and "网站无法访问" in response.text


def test_edit_pause_resume_check_delete(alice_client, db, alice):
    concern = make_concern(db, alice)
    cid = concern.id
    edit = alice_client.get(f"/concerns/{cid}/edit")
    assert edit.status_code == 200 and 'value="足球, 中超"' in edit.text
    saved = post(
        alice_client,
        f"/concerns/{cid}/edit",
        {
            "seed_url": concern.seed_url,
            "keywords": "篮球",
            "priority": "5",
            "max_pages": "20",
            "strategy": "bfs",
            "scope": "host",
            "enabled": "1",
        },
        page=f"/concerns/{cid}/edit",
    )
    assert saved.status_code == 303
    db.refresh(concern)
    assert concern.keywords == ["篮球"] and concern.priority == 5 and concern.strategy == "bfs"

    assert post(alice_client, f"/concerns/{cid}/pause", page="/concerns").status_code == 303
    db.refresh(concern)
    assert concern.enabled is False
    assert "已暂停" in alice_client.get("/concerns").text
    post(alice_client, f"/concerns/{cid}/pause", page="/concerns")
    db.refresh(concern)
    assert concern.enabled is True

    site = db.get(Site, concern.site_id)
    site.next_visit_at = None
    db.add(site)
    db.commit()
    assert post(alice_client, f"/concerns/{cid}/check", page="/concerns").status_code == 303
    db.refresh(site)
    assert site.next_visit_at is not None

    assert post(alice_client, f"/concerns/{cid}/delete", page="/concerns").status_code == 303
    db.expire_all()
    assert db.get(Concern, cid) is None


def test_check_now_says_what_happens(alice_client, db, alice):
    """Queued, already running since …, or refused: never "scheduled" when nothing happens."""
    from datetime import timedelta
    from zoneinfo import ZoneInfo

    from app.models import CrawlRun, utcnow
    from app.services.locks import lock_owner

    concern = make_concern(db, alice)
    cid = concern.id

    def check() -> str:
        assert post(alice_client, f"/concerns/{cid}/check", page="/concerns").status_code == 303
        return alice_client.get("/concerns").text

    assert "已排队，将在" in check()

    site = db.get(Site, concern.site_id)
    started = utcnow() - timedelta(minutes=5)
    site.locked_by, site.locked_until = lock_owner(), utcnow() + timedelta(minutes=1)
    db.add(site)
    db.add(CrawlRun(site_id=site.id, strategy="bfs", started_at=started))
    db.commit()
    local = started.astimezone(ZoneInfo(alice.timezone)).strftime("%H:%M")
    assert f"该网站正在检查中（开始于 {local}）" in check()
    # while the visit runs, the list shows how far it has read
    run = db.exec(__import__("sqlmodel").select(CrawlRun)).one()
    run.pages_fetched = 120
    db.add(run)
    db.commit()
    assert "已读取 120 个页面" in alice_client.get("/concerns").text

    post(alice_client, f"/concerns/{cid}/pause", page="/concerns")
    assert "未检查：该关注已暂停，请先恢复。" in check()


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/concerns/{id}/edit"),
        ("post", "/concerns/{id}/edit"),
        ("post", "/concerns/{id}/pause"),
        ("post", "/concerns/{id}/delete"),
        ("post", "/concerns/{id}/check"),
        ("get", "/concerns/{id}/report"),
    ],
)
def test_other_users_concerns_are_not_found(bob_client, db, alice, method, path):
    concern = make_concern(db, alice)
    url = path.format(id=concern.id)
    if method == "get":
        response = bob_client.get(url)
    else:
        response = post(
            bob_client,
            url,
            {
                "seed_url": "https://x.example/",
                "keywords": "x",
                "priority": "0",
                "max_pages": "1",
                "strategy": "bfs",
            },
            page="/concerns",
        )
    assert response.status_code == 404 and "找不到页面" in response.text
    db.refresh(concern)
    assert concern.enabled is True and concern.keywords == ["足球", "中超"]


def test_check_now_is_rate_limited_with_a_page_in_the_users_language(
    alice_client, db, alice, monkeypatch
):
    from app.core.config import get_settings

    monkeypatch.setenv("TIMELYPUSH_RATE_LIMITS", "check_now=1/1h")
    get_settings.cache_clear()
    concern = make_concern(db, alice)
    first = post(alice_client, f"/concerns/{concern.id}/check", page="/concerns")
    assert first.status_code == 303
    second = post(alice_client, f"/concerns/{concern.id}/check", page="/concerns")
    assert second.status_code == 429
    assert "尝试次数过多" in second.text and int(second.headers["retry-after"]) > 3000


def test_check_now_on_an_unchanged_site_says_so(alice_client, db, alice):
    """After "立即检查" the visit finds the feed unchanged: the list says the site has not
    changed since last time and when the next visit is, instead of nothing at all."""
    from tests.factories import make_run

    concern = make_concern(db, alice)
    assert post(alice_client, f"/concerns/{concern.id}/check", page="/concerns").status_code == 303
    make_run(db, concern, 1, 0, status="not_modified")
    page = alice_client.get("/concerns")
    assert "网站自上次以来没有变化，下次访问" in page.text
    make_run(
        db, concern, 1, 0, status="failed", error="FetchTimeout: http://127.0.0.1:9/: timed out"
    )
    assert "失败：网站响应超时。" in alice_client.get("/concerns").text


def test_a_failed_visit_says_why_in_plain_words(alice_client, db, alice):
    """A refused connection is told in the reader's language, not in the crawler's English."""
    from tests.factories import make_run

    concern = make_concern(db, alice)
    refused = (
        "NetworkError: http://127.0.0.1:9/sports/: ConnectError ([Errno 111] Connection refused)"
    )
    make_run(db, concern, 0, 0, status="failed", error=refused)
    page = alice_client.get("/concerns").text
    assert "失败：无法连接到该网站。" in page
    assert "ConnectError" not in page and "Errno" not in page
    alice.language = "en"
    db.add(alice)
    db.commit()
    assert "failed: The site could not be reached." in alice_client.get("/concerns").text


def test_an_interrupted_visit_does_not_pass_for_a_finished_one(alice_client, db, alice):
    from tests.factories import make_run

    concern = make_concern(db, alice)
    make_run(db, concern, 37, 2, status="interrupted")
    page = alice_client.get("/concerns").text
    assert "在抓取 37 个页面后中断" in page and "抓取了 37 个页面" not in page
    alice.language = "en"
    db.add(alice)
    db.commit()
    page = alice_client.get("/concerns").text
    assert "stopped before it finished, after 37 pages" in page
    assert "37 pages fetched" not in page


def test_synonyms_on_the_form_and_strategy_under_advanced(alice_client, site_url, db, alice):
    form = alice_client.get("/concerns/new").text
    assert 'id="synonyms"' in form and "同义词" in form
    # strategy and its parameters wait, folded, under "网站如何抓取" with help in plain words
    assert re.search(r'<details class="advanced" id="advanced">\s*<summary>网站如何抓取', form)
    assert "大多数用户保持默认即可" in form and "每个页面最多继续访问多少个链接" in form
    response = post(
        alice_client,
        "/concerns/new",
        {
            "seed_url": site_url,
            "keywords": "国家足球队",
            "synonyms": "国足、男足",
            "priority": "0",
            "max_pages": "200",
            "strategy": "adaptive",
            "enabled": "1",
        },
        page="/concerns/new",
    )
    assert response.status_code == 303, response.text
    concern = db.exec(__import__("sqlmodel").select(Concern)).one()
    assert concern.synonyms == ["国足", "男足"]
    assert "≈ 国足" in alice_client.get("/concerns").text
    edit = alice_client.get(f"/concerns/{concern.id}/edit").text
    assert 'value="国足, 男足"' in edit
    assert '<details class="advanced" id="advanced">' in edit  # defaults: still folded
    # a wrong parameter opens the section, with the message next to it
    bad = post(
        alice_client,
        f"/concerns/{concern.id}/edit",
        {
            "seed_url": site_url,
            "keywords": "国家足球队",
            "priority": "0",
            "max_pages": "200",
            "strategy": "adaptive",
            "param_gamma": "7",
        },
        page="/concerns",
    )
    assert bad.status_code == 422
    assert '<details class="advanced" id="advanced" open>' in bad.text
    assert "请输入 0 到 1 之间的数字。" in bad.text


FORM_PARTS = {  # the folded parts of the concern form: id → its heading, in Chinese and English
    "zh": {"advanced-judgment": "页面如何判断", "advanced": "网站如何抓取"},
    "en": {"advanced-judgment": "How pages are judged", "advanced": "How the site is crawled"},
}


def _parts(html: str) -> dict[str, dict]:
    """The folded parts of the concern form: id → its heading, whether it is open, and the
    names of the fields it holds."""
    from bs4 import BeautifulSoup

    form = BeautifulSoup(html, "html.parser").find("form", id="concern-form")
    return {
        d["id"]: {
            "heading": next(d.summary.strings).strip(),
            "open": d.has_attr("open"),
            "fields": {f["name"] for f in d.find_all(["input", "select"]) if f.has_attr("name")},
        }
        for d in form.find_all("details")
    }


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_form_folds_judging_and_crawling_apart_under_their_own_names(
    alice_client, site_url, db, alice, lang
):
    """Two folded parts, each named by what it holds (not two alike "Advanced"): how pages are
    judged holds the scorer, how the site is crawled the strategy and its parameters. Each
    opens by itself when it holds a wrong or a non-default value, the other stays folded."""
    alice.language = lang
    db.add(alice)
    db.commit()
    parts = _parts(alice_client.get("/concerns/new").text)
    assert {k: v["heading"] for k, v in parts.items()} == FORM_PARTS[lang]
    assert parts["advanced-judgment"]["fields"] == {"scorer"}
    params = parts["advanced"]["fields"] - {"strategy"}
    assert "strategy" in parts["advanced"]["fields"] and params
    assert all(name.startswith("param_") for name in params)
    assert not parts["advanced-judgment"]["open"] and not parts["advanced"]["open"]

    data = {"seed_url": site_url, "keywords": "足球", "priority": "0", "max_pages": "50",
            "scope": "host", "strategy": "adaptive", "enabled": "1"}  # fmt: skip
    judged = post(alice_client, "/concerns/new", dict(data, scorer="kp"), page="/concerns/new")
    assert judged.status_code == 303, judged.text
    edit = f"/concerns/{db.exec(__import__('sqlmodel').select(Concern)).one().id}/edit"
    parts = _parts(alice_client.get(edit).text)  # a non-default scorer: only its part opens
    assert parts["advanced-judgment"]["open"] and not parts["advanced"]["open"]

    wrong = post(alice_client, edit, dict(data, param_gamma="7"), page=edit)
    assert wrong.status_code == 422  # a wrong parameter opens the crawl part, and only it
    parts = _parts(wrong.text)
    assert parts["advanced"]["open"] and not parts["advanced-judgment"]["open"]

    wrong = post(alice_client, edit, dict(data, scorer="dice"), page=edit)
    assert wrong.status_code == 422  # a wrong scorer opens the judging part, and only it
    parts = _parts(wrong.text)
    assert parts["advanced-judgment"]["open"] and not parts["advanced"]["open"]


# One bad value each: the form field, what is typed, the same value in the API's body, and the
# message next to the field in Chinese and in English.
WHOLE_0_5 = ("请输入 0 到 5 之间的整数。", "Enter a whole number from 0 to 5.")
LONG_URL = "https://news.example.com/" + "a" * 2030
BAD_VALUES = [
    ("seed_url", LONG_URL, {"seed_url": LONG_URL},
     "最多只能输入 2048 个字符。", "Enter at most 2048 characters."),
    ("priority", "9", {"priority": 9}, *WHOLE_0_5),
    ("priority", "two", {"priority": "two"}, *WHOLE_0_5),
    ("max_pages", "0", {"max_pages": 0},
     "请输入 1 到 100000 之间的整数。", "Enter a whole number from 1 to 100000."),
    ("param_T", "20", {"params": {"T": 20}},
     "请输入 0 到 10 之间的数字。", "Enter a number from 0 to 10."),
    ("param_W", "many", {"params": {"W": "many"}},
     "请输入 1 到 1000 之间的数字。", "Enter a number from 1 to 1000."),
    ("param_D", "nan", {"params": {"D": "nan"}},
     "请输入 0 到 50 之间的数字。", "Enter a number from 0 to 50."),
    ("strategy", "magic", {"strategy": "magic"},
     "请从列表中选择策略。", "Choose a strategy from the list."),
    ("scope", "galaxy", {"scope": "galaxy"},
     "请选择抓取范围：仅此主机、整个域名或不限范围。", "Choose the scope: host, domain or any."),
    ("sensitivity", "loud", {"sensitivity": "loud"},
     "请选择精确、均衡或宽泛。", "Choose precise, balanced or broad."),
    ("scorer", "oracle", {"scorer": "oracle"},
     "请从列表中选择判断方式。", "Choose a scorer from the list."),
]  # fmt: skip
BAD_IDS = [f"{field}={typed[:10]}" for field, typed, *_ in BAD_VALUES]


def _concern_form(seed: str, **changes: str) -> dict[str, str]:
    form = {
        "seed_url": seed,
        "keywords": "足球",
        "priority": "1",
        "max_pages": "50",
        "strategy": "adaptive",
        "scope": "host",
        "sensitivity": "balanced",
        "scorer": "model",
        "enabled": "1",
    }
    return {**form, **changes}


def _next_to(text: str, field: str, expected: str) -> bool:
    """The message is the field's own: after the field, before the next field."""
    start = text.index(f'id="{field}"')
    following = re.compile(rf'name="(?!{field}")').search(text, start)
    end = following.start() if following else len(text)
    return f'<div class="field-error">{expected}</div>' in text[start:end]


@pytest.mark.parametrize(("field", "typed", "body", "zh", "en"), BAD_VALUES, ids=BAD_IDS)
def test_a_bad_value_on_the_form_is_refused_in_the_users_language_and_by_the_api(
    app, alice_client, db, alice, site_url, field, typed, body, zh, en
):
    from fastapi.testclient import TestClient

    for language, expected in (("zh", zh), ("en", en)):
        alice.language = language
        db.add(alice)
        db.commit()
        form = _concern_form(site_url, **{field: typed})
        response = post(alice_client, "/concerns/new", form, page="/concerns/new")
        assert response.status_code == 422
        assert _next_to(response.text, field, expected), response.text
        assert f'value="{form["seed_url"]}"' in response.text  # what was typed is kept
    assert db.exec(__import__("sqlmodel").select(Concern)).all() == []
    # the API refuses the same value with its 422, and saves nothing either
    with TestClient(app) as api:
        api.post(
            "/api/v1/auth/register", json={"email": "carol@example.com", "password": "long enough"}
        )
        token = api.post(
            "/api/v1/auth/token", data={"username": "carol@example.com", "password": "long enough"}
        ).json()["access_token"]
        auth = {"Authorization": f"Bearer {token}"}
        resp = api.post(
            "/api/v1/concerns",
            headers=auth,
            json={"seed_url": site_url, "keywords": "足球", **body},
        )
        assert resp.status_code == 422, resp.text
        assert resp.json()["error"]["code"] == "validation_error"
    assert db.exec(__import__("sqlmodel").select(Concern)).all() == []


@pytest.mark.parametrize(
    ("field", "typed", "body", "zh", "en"), BAD_VALUES[1:], ids=BAD_IDS[1:]
)  # (a new seed URL on the edit form is checked by the service, with its own message)
def test_a_bad_value_on_the_edit_form_changes_nothing(
    alice_client, db, alice, site_url, field, typed, body, zh, en
):
    concern = make_concern(db, alice, site_url, "足球", priority=1)
    path = f"/concerns/{concern.id}/edit"
    for language, expected in (("zh", zh), ("en", en)):
        alice.language = language
        db.add(alice)
        db.commit()
        form = _concern_form(site_url, keywords="篮球", **{field: typed})
        response = post(alice_client, path, form, page=path)
        assert response.status_code == 422
        assert _next_to(response.text, field, expected), response.text
    db.expire_all()
    saved = db.get(Concern, concern.id)
    assert saved is not None and saved.keywords == ["足球"] and saved.priority == 1


def test_the_form_offers_the_parameters_the_model_checks():
    from app.models import PARAM_RANGES
    from app.web.concerns import PARAMS

    assert [p.name for p in PARAMS] == list(PARAM_RANGES)
    assert all(low <= p.default <= high for p in PARAMS for low, high in [PARAM_RANGES[p.name]])
