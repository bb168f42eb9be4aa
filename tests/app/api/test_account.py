"""Export and delete the account through the API."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.app.api.helpers import signup


def test_api_export_and_delete(client: TestClient) -> None:
    auth = signup(client, "alice@example.com")
    exported = client.get("/api/v1/me/export", headers=auth)
    assert (
        exported.status_code == 200 and exported.json()["profile"]["email"] == "alice@example.com"
    )
    wrong = client.request("DELETE", "/api/v1/me", headers=auth, json={"password": "nope nope"})
    assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "bad_credentials"
    assert client.get("/api/v1/me", headers=auth).status_code == 200  # still logged in
    done = client.request("DELETE", "/api/v1/me", headers=auth, json={"password": "correct horse"})
    assert done.status_code == 204
    assert client.get("/api/v1/me", headers=auth).status_code == 401
    again = client.post(
        "/api/v1/auth/token", data={"username": "alice@example.com", "password": "correct horse"}
    )
    assert again.status_code == 401
