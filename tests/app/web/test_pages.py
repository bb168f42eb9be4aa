"""Small things a browser asks for on its own: the tab icon, the API documentation pages."""

from __future__ import annotations

from typing import Any


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
