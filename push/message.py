"""What a channel sends and what it reports back.

A :class:`Message` is channel-neutral: email uses ``subject``/``text``/``html``/``headers``,
SMS uses ``text``, the webhook posts ``data`` as its JSON body. ``id`` is stable for one
logical delivery (derived from the outbox idempotency key), so a message re-sent after a crash
carries the same Message-ID / webhook-id and the receiver can drop the duplicate.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = ["Channel", "DeliveryResult", "Message", "stable_id"]


@dataclass(frozen=True)
class Message:
    """One message to deliver."""

    subject: str
    text: str
    html: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    id: str = ""
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DeliveryResult:
    """The outcome of one send.

    ``ok``: the receiver accepted the message. ``permanent``: retrying cannot help (bad
    address, refused target). ``gone``: the endpoint told us it no longer exists (HTTP 410);
    the caller should stop using it. ``provider_id``: the receiver's id for the message.
    """

    ok: bool
    permanent: bool = False
    error: str | None = None
    provider_id: str | None = None
    gone: bool = False


@runtime_checkable
class Channel(Protocol):
    """A way to reach a person or a machine.

    ``send`` never raises for delivery problems; it reports them in the result.
    """

    async def send(self, message: Message, target: str) -> DeliveryResult: ...


def stable_id(key: str) -> str:
    """A short, URL- and header-safe id derived from an idempotency key (same key → same id)."""
    return "tp_" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
