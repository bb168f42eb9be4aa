"""HTTP conventions a mobile client relies on: JSON log-in, Location on 201, 202 for work
that happens later, total counts on request, token expiry."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.core.db import get_engine
from app.models import Concern
from tests.app.api.helpers import signup
from tests.factories import add_match, add_run


def test_token_endpoint_takes_json_as_well_as_the_oauth2_form(client: TestClient) -> None:
    signup(client, "alice@example.com")
    for body in (
        {"username": "alice@example.com", "password": "correct horse", "device_name": "Pixel"},
        {"email": "alice@example.com", "password": "correct horse"},
    ):
        resp = client.post("/api/v1/auth/token", json=body)
        assert resp.status_code == 200, resp.text
        assert resp.json()["token_type"] == "bearer" and "expires_at" in resp.json()
        me = client.get(
            "/api/v1/me", headers={"Authorization": f"Bearer {resp.json()['access_token']}"}
        )
        assert me.json()["email"] == "alice@example.com"
    wrong = client.post("/api/v1/auth/token", json={"email": "alice@example.com", "password": "x"})
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "bad_credentials"
    missing = client.post("/api/v1/auth/token", json={"password": "secret-typed-here"})
    assert missing.status_code == 422
    assert missing.json()["error"]["code"] == "validation_error"
    assert "secret-typed-here" not in missing.text  # the password is never echoed
    broken = client.post(
        "/api/v1/auth/token", content="{not json", headers={"Content-Type": "application/json"}
    )
    assert broken.status_code == 422
    documented = client.get("/openapi.json").json()["paths"]["/api/v1/auth/token"]["post"]
    assert set(documented["requestBody"]["content"]) == {
        "application/json",
        "application/x-www-form-urlencoded",
    }


def test_created_resources_say_where_they_are(client: TestClient) -> None:
    resp = client.post(
        "/api/v1/auth/register", json={"email": "bob@example.com", "password": "correct horse"}
    )
    assert resp.status_code == 201 and resp.headers["location"] == "/api/v1/me"
    auth = signup(client, "alice@example.com")
    resp = client.post(
        "/api/v1/concerns", headers=auth, json={"seed_url": "news.example.com", "keywords": "AI"}
    )
    assert resp.status_code == 201
    assert resp.headers["location"] == f"/api/v1/concerns/{resp.json()['id']}"
    assert client.get(resp.headers["location"], headers=auth).json() == resp.json()


def test_check_now_is_accepted_for_later(client: TestClient) -> None:
    auth = signup(client, "alice@example.com")
    cid = client.post(
        "/api/v1/concerns", headers=auth, json={"seed_url": "news.example.com", "keywords": "AI"}
    ).json()["id"]
    resp = client.post(f"/api/v1/concerns/{cid}/check-now", headers=auth)
    assert resp.status_code == 202 and resp.json()["id"] == cid


def test_lists_count_everything_on_request(client: TestClient) -> None:
    auth = signup(client, "alice@example.com")
    cid = client.post(
        "/api/v1/concerns", headers=auth, json={"seed_url": "news.example.com", "keywords": "AI"}
    ).json()["id"]
    with Session(get_engine(), expire_on_commit=False) as session:
        concern = session.get(Concern, cid)
        assert concern is not None and concern.site_id is not None
        for i in range(7):
            add_match(session, concern, i, title=f"AI news {i}")
        for _ in range(3):
            add_run(session, concern.site_id, 10, 2)

    page = client.get("/api/v1/matches", headers=auth, params={"limit": 3})
    assert "x-total-count" not in page.headers  # only when asked: it costs a query
    page = client.get("/api/v1/matches", headers=auth, params={"limit": 3, "with_total": "true"})
    assert len(page.json()["items"]) == 3 and page.headers["x-total-count"] == "7"
    later = client.get(
        "/api/v1/matches",
        headers=auth,
        params={"limit": 3, "with_total": "true", "cursor": page.json()["next_cursor"]},
    )
    assert later.headers["x-total-count"] == "7"  # the whole result, not what is left
    found = client.get("/api/v1/matches", headers=auth, params={"q": "news 3", "with_total": 1})
    assert found.headers["x-total-count"] == "1"
    concerns = client.get("/api/v1/concerns", headers=auth, params={"with_total": "true"})
    assert concerns.headers["x-total-count"] == "1"
    runs = client.get(
        f"/api/v1/concerns/{cid}/runs", headers=auth, params={"limit": 1, "with_total": "true"}
    )
    assert len(runs.json()) == 1 and runs.headers["x-total-count"] == "3"
    tokens = client.get("/api/v1/auth/tokens", headers=auth, params={"with_total": "true"})
    assert tokens.headers["x-total-count"] == str(len(tokens.json())) == "1"
    assert "expires_at" in tokens.json()[0]


def test_the_api_document_describes_every_section_in_reading_order(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    sections = [tag["name"] for tag in document["tags"]]
    assert sections == ["ops", "auth", "me", "concerns", "matches"]
    assert all(tag["description"] for tag in document["tags"])
    used = {
        tag for path in document["paths"].values() for op in path.values() for tag in op["tags"]
    }
    assert used <= set(sections)


def test_the_schema_lists_the_values_a_concern_field_takes(client: TestClient) -> None:
    """An app developer reads the allowed values from the OpenAPI schema, not from errors."""
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for name in ("ConcernCreate", "ConcernUpdate"):
        fields = schemas[name]["properties"]
        assert {"host", "domain", "any"} <= set(fields["scope"]["enum"])
        assert {"instant", "digest", "both", "off"} <= set(fields["push_mode"]["enum"])
        assert {"model", "kp", "fish", "vsm"} <= set(fields["scorer"]["enum"])
        assert {"precise", "balanced", "broad"} <= set(fields["sensitivity"]["enum"])
        assert "adaptive" in fields["strategy"]["enum"]
