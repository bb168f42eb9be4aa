"""WebhookChannel against a real HTTP receiver that verifies signatures independently."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

import pytest

from push import ConfigError, Message, WebhookChannel, envelope, new_secret
from tests.push.servers import HttpReceiver


def verify(secret: str, headers: dict[str, str], body: bytes, tolerance: int = 300) -> bool:
    """Standard Webhooks verification, written from the spec (not from push/)."""
    key = base64.b64decode(secret.split("_", 1)[1])
    msg_id, stamp = headers["webhook-id"], headers["webhook-timestamp"]
    if abs(time.time() - int(stamp)) > tolerance:
        return False
    content = msg_id.encode() + b"." + stamp.encode() + b"." + body
    expected = base64.b64encode(hmac.new(key, content, hashlib.sha256).digest()).decode()
    for part in headers["webhook-signature"].split():
        version, _, sig = part.partition(",")
        if version == "v1" and hmac.compare_digest(sig, expected):
            return True
    return False


def _message(mid: str = "tp_abc") -> Message:
    data = envelope(
        "match.created", {"match_id": 7, "title": "新政策发布", "url": "https://x.cn/a"}
    )
    return Message(subject="新政策发布", text="https://x.cn/a", id=mid, data=data)


async def test_signed_body_verifies_and_has_versioned_schema(receiver: HttpReceiver) -> None:
    secret = new_secret()
    result = await WebhookChannel(secret=secret).send(_message(), receiver.url + "/hook")
    assert result.ok, result.error
    [req] = receiver.requests
    assert req.path == "/hook"
    assert req.headers["webhook-id"] == "tp_abc"
    assert verify(secret, req.headers, req.body)
    assert not verify(new_secret(), req.headers, req.body)
    body = req.json()
    assert body == {
        "type": "match.created",
        "version": 1,
        "data": {"match_id": 7, "title": "新政策发布", "url": "https://x.cn/a"},
    }


async def test_500_is_retryable_and_same_id_is_resent(receiver: HttpReceiver) -> None:
    receiver.statuses = [500]
    channel = WebhookChannel(secret=new_secret())
    first = await channel.send(_message(), receiver.url)
    assert not first.ok and not first.permanent and first.error == "webhook answered HTTP 500"
    second = await channel.send(_message(), receiver.url)
    assert second.ok
    assert [r.headers["webhook-id"] for r in receiver.requests] == ["tp_abc", "tp_abc"]


async def test_410_means_gone(receiver: HttpReceiver) -> None:
    receiver.default = 410
    result = await WebhookChannel(secret=new_secret()).send(_message(), receiver.url)
    assert result.gone and result.permanent and not result.ok


async def test_redirect_is_not_followed(receiver: HttpReceiver) -> None:
    receiver.default = 302
    result = await WebhookChannel(secret=new_secret()).send(_message(), receiver.url)
    assert not result.ok and not result.permanent
    assert len(receiver.requests) == 1


async def test_url_check_refusal_is_permanent_and_sends_nothing(receiver: HttpReceiver) -> None:
    async def refuse(url: str) -> None:
        raise PermissionError(f"{url} is private")

    channel = WebhookChannel(secret=new_secret(), url_check=refuse)
    result = await channel.send(_message(), receiver.url)
    assert result.permanent and not result.ok and "private" in (result.error or "")
    assert receiver.requests == []


async def test_unreachable_endpoint_is_transient(receiver: HttpReceiver) -> None:
    url = receiver.url
    receiver.close()
    result = await WebhookChannel(secret=new_secret()).send(_message(), url)
    assert not result.ok and not result.permanent


def test_bad_secret_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        WebhookChannel(secret="whsec_not base64!!")
