"""Helpers of the API tests: sign up and log in through the API."""

from __future__ import annotations

from fastapi.testclient import TestClient


def signup(client: TestClient, email: str, password: str = "correct horse") -> dict[str, str]:
    """Register and log in; the Authorization header of the new user."""
    resp = client.post("/api/v1/auth/register", json={"email": email, "password": password})
    assert resp.status_code == 201, resp.text
    resp = client.post(
        "/api/v1/auth/token",
        data={"username": email, "password": password, "device_name": "test"},
    )
    assert resp.status_code == 200, resp.text
    return {"Authorization": f"Bearer {resp.json()['access_token']}"}
