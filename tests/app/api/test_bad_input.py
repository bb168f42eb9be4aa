"""Bad input never saves and then breaks: unencodable text and malformed URLs are a 422 with
a clear message, and nothing is written."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.app.api.helpers import signup

# json.dumps keeps a lone surrogate as the escape \ud800, as a hostile client would send it
SURROGATE = "\ud800"


def _send(client: TestClient, method: str, path: str, auth: dict[str, str], body: Any) -> Any:
    """The body as a hostile client sends it: \\ud800 escapes, ASCII on the wire."""
    headers = {**auth, "content-type": "application/json"}
    return client.request(method, path, headers=headers, content=json.dumps(body))


def _count(client: TestClient, auth: dict[str, str]) -> int:
    resp = client.get("/api/v1/concerns", headers=auth)
    assert resp.status_code == 200, resp.text
    return len(resp.json()["items"] if isinstance(resp.json(), dict) else resp.json())


@pytest.mark.parametrize(
    "body",
    [
        {"seed_url": "https://news.example.com/", "keywords": ["AI", "bad" + SURROGATE]},
        {"seed_url": "https://news.example.com/" + SURROGATE, "keywords": "AI"},
        {"seed_url": "https://news.example.com/", "keywords": "AI", "exclude": ["x\u0000y"]},
    ],
    ids=["surrogate-keyword", "surrogate-url", "nul-exclude"],
)
def test_unencodable_text_is_refused_and_nothing_saved(
    client: TestClient, body: dict[str, object]
) -> None:
    auth = signup(client, "alice@example.com")
    resp = _send(client, "POST", "/api/v1/concerns", auth, body)
    assert resp.status_code == 422, resp.text
    error = resp.json()["error"]
    assert error["code"] == "invalid_text" and "Unicode" in error["message"]
    assert _count(client, auth) == 0
    assert client.get("/api/v1/matches", headers=auth).status_code == 200


def test_unencodable_profile_text_is_refused(client: TestClient) -> None:
    auth = signup(client, "alice@example.com")
    resp = _send(client, "PATCH", "/api/v1/me", auth, {"timezone": "Asia/" + SURROGATE})
    assert resp.status_code == 422 and resp.json()["error"]["code"] == "invalid_text"
    assert client.get("/api/v1/me", headers=auth).json()["timezone"] == "Asia/Shanghai"


@pytest.mark.parametrize("url", ["http://[::1/", "http://[zz]/", "https://exa mple.com/"])
def test_malformed_urls_are_422(client: TestClient, url: str) -> None:
    auth = signup(client, "alice@example.com")
    resp = client.post("/api/v1/concerns", headers=auth, json={"seed_url": url, "keywords": "AI"})
    assert resp.status_code == 422, resp.text
    assert resp.json()["error"]["code"] == "invalid_url"
    resp = client.patch("/api/v1/me", headers=auth, json={"webhook_url": url})
    assert resp.status_code == 422, resp.text
    assert _count(client, auth) == 0


@pytest.mark.parametrize("address", ["\x00", "a\x00@example.com"])
def test_a_nul_in_a_login_or_reset_address_is_just_a_wrong_address(
    client: TestClient, address: str
) -> None:
    resp = client.post("/api/v1/auth/token", data={"username": address, "password": "x"})
    assert resp.status_code == 401, resp.text
    resp = client.post("/api/v1/auth/password-reset", json={"email": address})
    assert resp.status_code in (202, 422), resp.text


@pytest.mark.parametrize(
    "params",
    [{"T": 20}, {"T": -1}, {"gamma": 1.5}, {"W": 0}, {"W": 5000}, {"a": 0.5}, {"D": 51}],
    ids=["T-high", "T-low", "gamma", "W-low", "W-high", "a", "D"],
)
def test_strategy_parameters_out_of_range_are_422(
    client: TestClient, params: dict[str, float]
) -> None:
    """The ranges the concern form offers hold for the API too (they used to be checked by the
    form only); other parameter names stay free."""
    auth = signup(client, "alice@example.com")
    body = {"seed_url": "news.example.com", "keywords": "AI"}
    resp = client.post("/api/v1/concerns", headers=auth, json={**body, "params": params})
    assert resp.status_code == 422, resp.text
    error = resp.json()["error"]
    assert error["code"] == "validation_error"
    assert error["details"]["errors"][0]["loc"] == ["body", "params"]
    assert _count(client, auth) == 0
    created = client.post(
        "/api/v1/concerns", headers=auth, json={**body, "params": {"T": 0.6, "alpha": 0.85}}
    )
    assert created.status_code == 201, created.text
    url = f"/api/v1/concerns/{created.json()['id']}"
    resp = client.patch(url, headers=auth, json={"params": params})
    assert resp.status_code == 422, resp.text
    assert client.get(url, headers=auth).json()["params"] == {"T": 0.6, "alpha": 0.85}


@pytest.mark.parametrize(
    ("body", "language", "message"),
    [
        (b"{bad json", "zh-CN", "请求体不是有效的 JSON。"),
        (b"{bad json", "en", "The request body is not valid JSON."),
        (b"{}", "zh-CN", "缺少“email”。"),
        (b'{"email": "a@example.com"}', "en", "“password” is required."),
    ],
)
def test_broken_or_incomplete_bodies_are_named_in_the_callers_language(
    client: TestClient, body: bytes, language: str, message: str
) -> None:
    headers = {"content-type": "application/json", "accept-language": language}
    resp = client.post("/api/v1/auth/register", content=body, headers=headers)
    assert resp.status_code == 422
    assert resp.json()["error"]["message"] == message


def test_errors_before_the_user_is_read_are_in_the_profiles_language(client: TestClient) -> None:
    """A body that is not JSON, or a wrong query, fails before the route reads its user: the
    message is still in the language of the profile the token belongs to (no Accept-Language)."""
    auth = signup(client, "alice@example.com")
    assert client.patch("/api/v1/me", headers=auth, json={"language": "zh"}).status_code == 200
    headers = {**auth, "content-type": "application/json"}
    broken = client.post("/api/v1/concerns", content=b"{bad json", headers=headers)
    assert broken.json()["error"]["message"] == "请求体不是有效的 JSON。"
    cursor = client.get("/api/v1/matches", params={"cursor": "garbage"}, headers=auth)
    assert cursor.json()["error"]["message"] == "分页参数无效，请从第一页重新开始。"
    limit = client.get("/api/v1/matches", params={"limit": "many"}, headers=auth)
    assert limit.status_code == 422 and "limit" in limit.json()["error"]["message"]
    assert limit.json()["error"]["message"].isascii() is False
