"""Small things a browser asks for on its own: the tab icon, the API documentation pages."""

from __future__ import annotations

from typing import Any

import pytest


def test_favicon_is_served(client: Any) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/x-icon"
    assert response.content[:4] == b"\x00\x00\x01\x00"  # an ICO file, not an error page
    assert '<link rel="icon" href="/favicon.ico">' in client.get("/login").text


def test_api_docs_load_their_assets_from_this_app(client: Any) -> None:
    for path, asset in (("/docs", "swagger-ui-bundle.js"), ("/redoc", "redoc.standalone.js")):
        page = client.get(path)
        assert page.status_code == 200
        assert f'src="/static/apidocs/{asset}"' in page.text
        assert "https://" not in page.text and "<script>" not in page.text  # no CDN, no inline
        assert client.get(f"/static/apidocs/{asset}").status_code == 200


def test_an_unknown_address_shows_the_sites_not_found_page(client: Any, alice_client: Any) -> None:
    html = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    page = client.get("/no/such/page", headers={**html, "Accept-Language": "zh-CN,zh;q=0.9"})
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
    assert "找不到" in page.text or "不存在" in page.text
    assert "Not Found" not in page.text and '"detail"' not in page.text
    english = client.get("/no/such/page", headers={**html, "Accept-Language": "en"})
    assert english.status_code == 404 and "Not found" in english.text
    # a signed-in reader gets it in the profile's language, with the site's menu
    mine = alice_client.get("/concerns/x/y/z", headers={**html, "Accept-Language": "en"})
    assert mine.status_code == 404 and 'href="/messages"' in mine.text


def test_api_and_scripts_keep_the_json_not_found(client: Any) -> None:
    api = client.get("/api/v1/no-such-thing", headers={"Accept": "text/html"})
    assert api.status_code == 404 and api.json()["error"]["code"] == "not_found"
    script = client.get("/no/such/page", headers={"Accept": "application/json"})
    assert script.status_code == 404 and script.json() == {"detail": "Not Found"}


@pytest.mark.parametrize(
    ("language", "says"),
    [
        ("zh-CN,zh;q=0.9", "无法以这种方式打开此页面"),
        ("en", "This page cannot be opened this way"),
    ],
)
def test_an_address_opened_the_wrong_way_says_so(
    client: Any, alice_client: Any, language: str, says: str
) -> None:
    """Typing /logout (a form's button sends it with POST) into the address bar: the site's
    own page says it cannot be opened this way, with a link home, 405 with its Allow header;
    not the "not found" page."""
    html = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8", "Accept-Language": language}
    page = client.get("/logout", headers=html)
    assert page.status_code == 405 and page.headers["allow"] == "POST"
    assert page.headers["content-type"].startswith("text/html")
    assert says in page.text and '<a class="btn" href="/">' in page.text
    assert "找不到页面" not in page.text and "Not found" not in page.text
    assert "Method Not Allowed" not in page.text
    # a signed-in reader gets it in the profile's language (Chinese), with the site's menu,
    # and stays signed in
    mine = alice_client.get("/logout", headers=html)
    assert mine.status_code == 405 and mine.headers["allow"] == "POST"
    assert "无法以这种方式打开此页面" in mine.text and 'href="/messages"' in mine.text
    assert alice_client.get("/settings").status_code == 200


def test_api_and_scripts_keep_the_json_wrong_method(client: Any) -> None:
    html = {"Accept": "text/html"}
    api = client.get("/api/v1/auth/token", headers=html)
    assert api.status_code == 405 and api.headers["allow"] == "POST"
    assert api.json()["error"]["code"] == "method_not_allowed"
    script = client.get("/logout", headers={"Accept": "application/json"})
    assert script.status_code == 405 and script.headers["allow"] == "POST"
    assert script.json() == {"detail": "Method Not Allowed"}
