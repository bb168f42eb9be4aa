"""Webhooks: a signed JSON POST (Standard Webhooks style).

Body (versioned, documented in docs/webhooks.md)::

    {"type": "match.created", "version": 1, "data": {...}}

Headers: ``webhook-id`` (stable per delivery: a re-send after a crash repeats it, so
receivers dedup), ``webhook-timestamp`` (Unix seconds), ``webhook-signature`` =
``v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`` where the key is the base64
part of the ``whsec_…`` secret. 2xx = delivered, 410 = endpoint gone, anything else = retry.
Redirects are not followed (a redirect could point into a private network).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import httpx

from push.errors import ConfigError
from push.message import DeliveryResult, Message

__all__ = [
    "SCHEMA_VERSION",
    "WebhookChannel",
    "envelope",
    "new_secret",
    "sign",
]

logger = logging.getLogger(__name__)

SCHEMA_VERSION = 1
UrlCheck = Callable[[str], Awaitable[None]]


def new_secret() -> str:
    """A fresh signing secret, ``whsec_`` + base64 of 32 random bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def _key(secret: str) -> bytes:
    raw = secret.removeprefix("whsec_")
    try:
        return base64.b64decode(raw, validate=True)
    except ValueError as exc:
        raise ConfigError("webhook secret must be 'whsec_' followed by base64") from exc


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` header value for one request."""
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def envelope(event_type: str, data: dict[str, Any]) -> dict[str, Any]:
    """The versioned JSON body: ``{"type", "version", "data"}``."""
    return {"type": event_type, "version": SCHEMA_VERSION, "data": data}


class WebhookChannel:
    """POSTs ``message.data`` (an :func:`envelope`) to the target URL, signed with ``secret``.

    ``url_check`` (the SSRF guard) is awaited before every request and must raise to refuse
    the target; a refused target is a permanent failure.
    """

    def __init__(
        self,
        *,
        secret: str,
        client: httpx.AsyncClient | None = None,
        url_check: UrlCheck | None = None,
        timeout: float = 10.0,
    ) -> None:
        _key(secret)
        self.secret = secret
        self.client = client
        self.url_check = url_check
        self.timeout = timeout

    async def send(self, message: Message, target: str) -> DeliveryResult:
        if not target.startswith(("http://", "https://")):
            return DeliveryResult(ok=False, permanent=True, error=f"not an http(s) URL: {target}")
        if self.url_check is not None:
            try:
                await self.url_check(target)
            except Exception as exc:  # the guard's own error type is not ours to know
                return DeliveryResult(ok=False, permanent=True, error=f"target refused: {exc}")
        body = json.dumps(message.data, ensure_ascii=False, separators=(",", ":")).encode()
        msg_id = message.id or ("msg_" + secrets.token_hex(16))
        timestamp = int(time.time())
        headers = {
            "content-type": "application/json",
            "webhook-id": msg_id,
            "webhook-timestamp": str(timestamp),
            "webhook-signature": sign(self.secret, msg_id, timestamp, body),
            "user-agent": "TimelyPush-Webhook/1",
        }
        try:
            if self.client is not None:
                response = await self.client.post(
                    target,
                    content=body,
                    headers=headers,
                    timeout=self.timeout,
                    follow_redirects=False,
                )
            else:
                async with httpx.AsyncClient(follow_redirects=False) as client:
                    response = await client.post(
                        target, content=body, headers=headers, timeout=self.timeout
                    )
        except httpx.HTTPError as exc:
            # the path and query of a webhook URL often carry a secret: log the host only
            host = urlsplit(target).hostname or "?"
            reason = (str(exc) or type(exc).__name__).replace(target, host)
            logger.warning("webhook to %s failed: %s", host, reason)
            return DeliveryResult(ok=False, error=f"webhook unreachable: {type(exc).__name__}")
        status = response.status_code
        if 200 <= status < 300:
            return DeliveryResult(ok=True, provider_id=msg_id)
        if status == 410:
            return DeliveryResult(
                ok=False, permanent=True, gone=True, error="endpoint gone (HTTP 410)"
            )
        return DeliveryResult(ok=False, error=f"webhook answered HTTP {status}")
