"""Helpers of the web tests: a browser-like client, and forms submitted with the CSRF token
read out of the page, as a browser does."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient

from tests.factories import PASSWORD

CSRF_RE = re.compile(r'name="csrf_token" value="([^"]+)"')


def new_client(app: Any, **kw: Any) -> TestClient:
    return TestClient(app, base_url="http://testserver", follow_redirects=False, **kw)


def csrf_of(client: TestClient, path: str = "/login") -> str:
    page = client.get(path)
    match = CSRF_RE.search(page.text)
    assert match, f"no CSRF token on {path}"
    return match.group(1)


def post(
    client: TestClient, path: str, data: dict[str, Any] | None = None, *, page: str = "/login"
) -> Any:
    """Submit a form the way the browser would: with the token of a page just loaded."""
    token = csrf_of(client, page)
    return client.post(path, data={"csrf_token": token, **(data or {})})


def log_in(client: TestClient, email: str, password: str = PASSWORD) -> None:
    response = post(client, "/login", {"email": email, "password": password})
    assert response.status_code == 303, response.text
