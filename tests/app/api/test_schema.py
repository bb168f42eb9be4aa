"""Property-based run of the OpenAPI schema (schemathesis): no 500s, responses match it.

Requests are authenticated as a user who owns a concern with messages, so the generated ids
sometimes hit real rows. A proxy setting makes the URL guard skip DNS (nothing leaves
loopback); seed URLs are not probed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
)
from sqlmodel import Session

from tests.app.api.helpers import signup
from tests.factories import add_match, add_run

EXAMPLES = 15


@pytest.fixture
def api_app(
    settings_env: None, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[Any]:
    from app.api.deps import probe_urls
    from app.core.config import get_settings
    from app.main import create_app

    monkeypatch.setenv("TIMELYPUSH_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("TIMELYPUSH_SMS_PROVIDER", "console")
    get_settings.cache_clear()
    request.getfixturevalue("outbox")
    app = create_app()
    app.dependency_overrides[probe_urls] = lambda: False
    yield app
    get_settings.cache_clear()


@pytest.fixture
def auth_headers(api_app: Any) -> dict[str, str]:
    from app.core.db import get_engine
    from app.models import Concern

    with TestClient(api_app) as client:
        headers = signup(client, "owner@example.com")
        resp = client.post(
            "/api/v1/concerns",
            headers=headers,
            json={"seed_url": "https://news.example.com/", "keywords": "AI"},
        )
        assert resp.status_code == 201, resp.text
    with Session(get_engine(), expire_on_commit=False) as session:
        concern = session.get(Concern, resp.json()["id"])
        assert concern is not None and concern.site_id is not None
        for i in range(3):
            add_match(session, concern, i, title=f"AI {i}", keywords=["AI"])
        add_run(session, concern.site_id, 10, 3)
    return headers


# schemathesis draws from `random` inside its strategies; hypothesis warns about that
@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisDeprecationWarning")
def test_api_schema(api_app: Any, auth_headers: dict[str, str]) -> None:
    """Every /api/v1 operation, a bounded number of generated requests each."""
    from schemathesis.core.result import Ok

    api_schema = schemathesis.openapi.from_asgi("/openapi.json", api_app)
    # any Unicode text, lone surrogates included (the default utf-8 codec leaves them out,
    # and a JSON body can carry them as \ud800 escapes)
    api_schema.config.generation.codec = None
    operations = []
    for result in api_schema.get_all_operations():
        assert isinstance(result, Ok), result
        operation = result.ok()
        if operation.path.startswith("/api/"):
            operations.append(operation)
    assert len(operations) >= 20
    checks = [not_a_server_error, response_schema_conformance, content_type_conformance]
    statuses: list[int] = []
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        def run(case: Any) -> None:
            response = case.call_and_validate(headers=auth_headers, checks=checks)
            statuses.append(response.status_code)

        run()
    assert len(statuses) >= 3 * len(operations)
    assert any(200 <= s < 300 for s in statuses) and any(400 <= s < 500 for s in statuses)
