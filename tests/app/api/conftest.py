"""API test client on the test database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient


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
