"""REST API: Apprise push channels (/me/channels) and the Atom feed links (/me/feed)."""

from __future__ import annotations

from collections.abc import Iterator

import feedparser
import pytest
from fastapi.testclient import TestClient

from tests.app.api.helpers import signup
from tests.push.servers import HttpReceiver


@pytest.fixture
def receiver() -> Iterator[HttpReceiver]:
    server = HttpReceiver()
    yield server
    server.close()


def test_channels_crud_and_test(client: TestClient, receiver: HttpReceiver) -> None:
    alice, bob = signup(client, "alice@example.com"), signup(client, "bob@example.com")
    url = receiver.url.replace("http://", "json://") + "/bot"
    resp = client.post(
        "/api/v1/me/channels", headers=alice, json={"name": "飞书群", "url": url, "mode": "both"}
    )
    assert resp.status_code == 201, resp.text
    channel = resp.json()
    assert channel["service"] == "JSON" and channel["mode"] == "both" and "url" not in channel
    # the created channel is where Location says, for its owner only
    location = resp.headers["location"]
    assert location == f"/api/v1/me/channels/{channel['id']}"
    assert client.get(location, headers=alice).json() == channel
    assert client.get(location, headers=bob).status_code == 404

    # a service token never comes back: only a masked form
    bark = {"url": "bark://me:s3cr3tpw@push.example.com/s3cr3tdevice"}
    resp = client.post("/api/v1/me/channels", headers=alice, json=bark)
    assert resp.status_code == 201, resp.text
    assert "s3cr3t" not in resp.text and resp.json()["url_masked"].startswith("bark://")
    listed = client.get("/api/v1/me/channels", headers=alice).json()
    assert [c["name"] for c in listed] == ["飞书群", "Bark"]
    assert "s3cr3t" not in str(listed)
    assert client.get("/api/v1/me/channels", headers=bob).json() == []

    bad = client.post("/api/v1/me/channels", headers=alice, json={"url": "nope://x"})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_apprise_url"
    bad = client.post("/api/v1/me/channels", headers=alice, json={"url": url, "mode": "hourly"})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_channel_mode"

    cid = channel["id"]
    tested = client.post(f"/api/v1/me/channels/{cid}/test", headers=alice)
    assert tested.json() == {"ok": True, "error": None}
    assert receiver.requests[-1].path == "/bot"
    assert client.post(f"/api/v1/me/channels/{cid}/test", headers=bob).status_code == 404

    # another user can neither change it nor learn that it exists
    theirs = client.patch(f"/api/v1/me/channels/{cid}", headers=bob, json={"enabled": False})
    assert theirs.status_code == 404
    assert client.get(f"/api/v1/me/channels/{cid}", headers=alice).json()["enabled"] is True
    patched = client.patch(f"/api/v1/me/channels/{cid}", headers=alice, json={"mode": "digest"})
    assert patched.status_code == 200 and patched.json()["mode"] == "digest"
    assert client.delete(f"/api/v1/me/channels/{cid}", headers=bob).status_code == 404
    assert client.delete(f"/api/v1/me/channels/{cid}", headers=alice).status_code == 204
    assert [c["name"] for c in client.get("/api/v1/me/channels", headers=alice).json()] == ["Bark"]


def test_feed_links_and_rotation(client: TestClient) -> None:
    alice = signup(client, "alice@example.com")
    created = client.post(
        "/api/v1/concerns",
        headers=alice,
        json={"seed_url": "https://news.example.com/", "keywords": "AI"},
    )
    assert created.status_code == 201, created.text
    links = client.get("/api/v1/me/feed", headers=alice).json()
    assert client.get("/api/v1/me/feed", headers=alice).json() == links  # stable until rotated
    cid = str(created.json()["id"])
    assert set(links["concerns"]) == {cid}
    path = links["messages"].split("://", 1)[1].split("/", 1)[1]
    feed = client.get("/" + path)
    assert feed.status_code == 200
    parsed = feedparser.parse(feed.content)
    assert not parsed.bozo and parsed.version == "atom10" and parsed.entries == []

    rotated = client.post("/api/v1/me/feed/rotate", headers=alice).json()
    assert rotated["messages"] != links["messages"]
    assert client.get("/" + path).status_code == 404
