"""The API's feedback: 👍 / 👎 on a message, what the concern's model learned, sensitivity."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.core.db import get_engine
from app.models import Concern, Match
from tests.app.api.helpers import signup
from tests.factories import add_match


def _error(resp: Any, status: int, code: str) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    return body["error"]


def _seed(client: TestClient, email: str, learned: dict[str, float] | None = None) -> Any:
    auth = signup(client, email)
    cid = client.post(
        "/api/v1/concerns", headers=auth, json={"seed_url": "news.example.com", "keywords": "足球"}
    ).json()["id"]
    with Session(get_engine(), expire_on_commit=False) as session:
        concern = session.get(Concern, cid)
        assert concern is not None
        concern.learned_terms = learned or {}
        session.add(concern)
        session.commit()
        mid = add_match(session, concern, 1, title="中超开幕").id
    return auth, cid, mid


def _stored(mid: int) -> Match:
    with Session(get_engine()) as session:
        match = session.get(Match, mid)
        assert match is not None
        return match


def test_feedback_is_recorded_changed_and_cleared(client: TestClient) -> None:
    auth, _cid, mid = _seed(client, "alice@example.com")
    assert client.get(f"/api/v1/matches/{mid}", headers=auth).json()["feedback"] is None
    url = f"/api/v1/matches/{mid}/feedback"
    resp = client.post(url, headers=auth, json={"relevant": False})
    assert resp.status_code == 200, resp.text
    assert resp.json()["feedback"] == -1 and resp.json()["id"] == mid
    assert "probability" in resp.json()
    assert _stored(mid).feedback == -1 and _stored(mid).feedback_at is not None
    assert client.post(url, headers=auth, json={"relevant": True}).json()["feedback"] == 1
    feed = client.get("/api/v1/matches", headers=auth).json()["items"]
    assert feed[0]["feedback"] == 1
    assert client.post(url, headers=auth, json={"relevant": None}).json()["feedback"] is None
    assert _stored(mid).feedback is None and _stored(mid).feedback_at is None


def test_feedback_refuses_what_is_not_a_boolean(client: TestClient) -> None:
    auth, _cid, mid = _seed(client, "alice@example.com")
    url = f"/api/v1/matches/{mid}/feedback"
    for body in ({"relevant": "yes"}, {"relevant": 1}, {}, {"relevant": "false"}):
        err = _error(client.post(url, headers=auth, json=body), 422, "validation_error")
        assert err["details"]["errors"], err
    assert _stored(mid).feedback is None


def test_another_users_message_and_concern_are_404(client: TestClient) -> None:
    _alice, alice_cid, alice_mid = _seed(client, "alice@example.com", {"中超": 0.9})
    bob, _cid, _mid = _seed(client, "bob@example.com")
    resp = client.post(
        f"/api/v1/matches/{alice_mid}/feedback", headers=bob, json={"relevant": False}
    )
    _error(resp, 404, "match_not_found")
    assert _stored(alice_mid).feedback is None
    _error(
        client.get(f"/api/v1/concerns/{alice_cid}/learned", headers=bob), 404, "concern_not_found"
    )
    for action in ("block", "promote", "restore"):
        path = f"/api/v1/concerns/{alice_cid}/learned/{quote('中超')}/{action}"
        _error(client.post(path, headers=bob), 404, "concern_not_found")
    with Session(get_engine()) as session:
        concern = session.get(Concern, alice_cid)
        assert concern is not None
        assert concern.learned_terms == {"中超": 0.9} and concern.blocked_terms == []
        assert concern.synonyms == []


def test_learned_terms_can_be_listed_blocked_and_promoted(client: TestClient) -> None:
    auth, cid, mid = _seed(client, "alice@example.com", {"中超": 0.9, "彩票": 0.6, "恒大": 0.3})
    client.post(f"/api/v1/matches/{mid}/feedback", headers=auth, json={"relevant": True})
    got = client.get(f"/api/v1/concerns/{cid}/learned", headers=auth).json()
    assert got == {
        "terms": [
            {"term": "中超", "weight": 0.9},
            {"term": "彩票", "weight": 0.6},
            {"term": "恒大", "weight": 0.3},
        ],
        "blocked": [],
        "synonyms": [],
        "feedback": 1,
    }
    blocked = client.post(f"/api/v1/concerns/{cid}/learned/{quote('彩票')}/block", headers=auth)
    assert blocked.status_code == 200, blocked.text
    assert blocked.json()["blocked"] == ["彩票"]
    assert [t["term"] for t in blocked.json()["terms"]] == ["中超", "恒大"]
    promoted = client.post(f"/api/v1/concerns/{cid}/learned/{quote('中超')}/promote", headers=auth)
    assert promoted.json()["synonyms"] == ["中超"]
    assert [t["term"] for t in promoted.json()["terms"]] == ["恒大"]
    concern = client.get(f"/api/v1/concerns/{cid}", headers=auth).json()
    assert concern["synonyms"] == ["中超"] and concern["learned_terms"] == {"恒大": 0.3}
    _error(
        client.post(f"/api/v1/concerns/{cid}/learned/{quote('不存在')}/block", headers=auth),
        404,
        "term_not_found",
    )
    # a removed term can be given back (and only a removed one)
    restored = client.post(f"/api/v1/concerns/{cid}/learned/{quote('彩票')}/restore", headers=auth)
    assert restored.status_code == 200 and restored.json()["blocked"] == []
    _error(
        client.post(f"/api/v1/concerns/{cid}/learned/{quote('彩票')}/restore", headers=auth),
        404,
        "term_not_found",
    )


def test_sensitivity_and_scorer_are_concern_fields(client: TestClient) -> None:
    auth = signup(client, "alice@example.com")
    body = {"seed_url": "news.example.com", "keywords": "足球", "sensitivity": "precise"}
    created = client.post("/api/v1/concerns", headers=auth, json=body).json()
    assert created["sensitivity"] == "precise" and created["scorer"] == "model"
    cid = created["id"]
    changed = client.patch(
        f"/api/v1/concerns/{cid}", headers=auth, json={"sensitivity": "broad", "scorer": "kp"}
    ).json()
    assert changed["sensitivity"] == "broad" and changed["scorer"] == "kp"
    resp = client.patch(f"/api/v1/concerns/{cid}", headers=auth, json={"sensitivity": "loud"})
    _error(resp, 422, "validation_error")
    assert client.get(f"/api/v1/concerns/{cid}", headers=auth).json()["sensitivity"] == "broad"


def test_the_api_says_why_in_the_users_language(client: TestClient) -> None:
    auth, _cid, mid = _seed(client, "alice@example.com")
    with Session(get_engine()) as session:
        match = session.get(Match, mid)
        assert match is not None
        match.probability = 0.83
        match.explanation = {
            "method": "model",
            "probability": 0.83,
            "threshold": 0.4,
            "kind": "hub",
            "hits": [
                {"term": "足球", "weight": 1.0, "learned": False, "where": {"meta": 1}},
                {"term": "恒大", "weight": 0.5, "learned": True, "where": {"body": 2}},
            ],
            "learned": [],
            "feedback": 2,
        }
        session.add(match)
        session.commit()
    one = client.get(f"/api/v1/matches/{mid}", headers=auth).json()
    assert one["probability"] == 0.83 and one["explanation"]["method"] == "model"
    assert one["why"] == (
        "命中关键词：足球（元信息）；学习到的词：恒大；相关概率 83%（推送阈值 40%），栏目页；"
        "模型已参考您的 2 条反馈"
    )
    assert client.get("/api/v1/matches", headers=auth).json()["items"][0]["why"] == one["why"]
    client.patch("/api/v1/me", headers=auth, json={"language": "en"})
    english = client.get(f"/api/v1/matches/{mid}", headers=auth).json()["why"]
    assert english.startswith("Matched: 足球 (meta); learned: 恒大; probability 83%")
    assert english.endswith("section page; shaped by 2 of your verdicts")
    # the feed reads the language with its page, on the plain path and on the search path
    feed = client.get("/api/v1/matches", headers=auth).json()["items"]
    assert [item["why"] for item in feed if item["id"] == mid] == [english]
    title = client.get(f"/api/v1/matches/{mid}", headers=auth).json()["title"]
    found = client.get("/api/v1/matches", headers=auth, params={"q": title}).json()["items"]
    assert [item["why"] for item in found if item["id"] == mid] == [english]
