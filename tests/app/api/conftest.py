"""API test client on the test database, with helpers to sign up users and add data."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.app.services.conftest import (  # noqa: F401 (fixtures)
    allow_test_hosts,
    outbox,
    slow_backoff,
)


@pytest.fixture
def client(settings_env: None, request: pytest.FixtureRequest) -> Iterator[TestClient]:
    """The app on the test database: *.example.com allowlisted, no probes, emails captured."""
    request.getfixturevalue("allow_test_hosts")
    request.getfixturevalue("outbox")
    from app.api.deps import probe_urls
    from app.main import create_app

    app = create_app()
    app.dependency_overrides[probe_urls] = lambda: False
    with TestClient(app) as test_client:
        yield test_client


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
