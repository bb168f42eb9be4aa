"""SMS: an adapter protocol (the :class:`push.message.Channel` protocol) and three adapters.

- :class:`TwilioSms` — Twilio's REST API over httpx (``Messages.json``, basic auth); the API
  base URL is configurable so tests and compatible gateways can stand in.
- :class:`AppriseSms` — any of Apprise's SMS gateways and chat apps through one URL template
  (``{phone}`` is replaced by the number).
- :class:`ConsoleSms` — sends nothing; logs that a message was due (development only).

Length rules (:func:`fit_sms`): one segment holds 160 GSM-7 characters (characters from the
extension table count twice) or 70 UCS-2 code units — any Chinese character switches the
whole message to UCS-2. Longer text is cut with an ellipsis and a short link is kept whole.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import Callable

import httpx

from push.message import DeliveryResult, Message

__all__ = [
    "AppriseSms",
    "ConsoleSms",
    "TwilioSms",
    "fit_sms",
    "is_gsm7",
    "sms_length",
]

logger = logging.getLogger(__name__)

GSM7_BASIC = frozenset(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
GSM7_EXTENDED = frozenset("^{}\\[~]|€\f")
GSM7_LIMIT = 160
UCS2_LIMIT = 70


def is_gsm7(text: str) -> bool:
    """True when every character is in the GSM 03.38 alphabet (basic or extension table)."""
    return all(ch in GSM7_BASIC or ch in GSM7_EXTENDED for ch in text)


def sms_length(text: str) -> tuple[int, int]:
    """``(units, limit)`` of a single-segment message: GSM-7 septets or UCS-2 code units."""
    if is_gsm7(text):
        return sum(2 if ch in GSM7_EXTENDED else 1 for ch in text), GSM7_LIMIT
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text), UCS2_LIMIT


def fit_sms(text: str, link: str | None = None) -> str:
    """``text`` (and ``link``) cut to fit one SMS segment; the link is never cut."""
    text = " ".join(text.split())
    suffix = f" {link}" if link else ""
    whole = text + suffix
    units, limit = sms_length(whole)
    if units <= limit:
        return whole
    ellipsis = "..." if is_gsm7(whole) else "…"
    budget = limit - sms_length(ellipsis + suffix)[0]
    out: list[str] = []
    used = 0
    for ch in text:
        cost = sms_length(ch)[0] if is_gsm7(whole) else (2 if ord(ch) > 0xFFFF else 1)
        if used + cost > budget:
            break
        out.append(ch)
        used += cost
    return "".join(out).rstrip() + ellipsis + suffix


def _masked(phone: str) -> str:
    """``+86*******8000``: enough to tell numbers apart in a log, not to dial them."""
    return phone[:3] + "*" * max(0, len(phone) - 7) + phone[-4:] if len(phone) > 7 else "***"


class ConsoleSms:
    """Development adapter: sends nothing, logs that an SMS was due (never its text) or
    hands it to ``sink``, and reports success."""

    def __init__(self, sink: Callable[[str, str], None] | None = None) -> None:
        self.sink = sink

    async def send(self, message: Message, target: str) -> DeliveryResult:
        if self.sink is not None:
            self.sink(target, message.text)
        else:
            # the text may hold a one-time code: only its size goes to the log
            logger.warning(
                "SMS to %s not sent (console adapter, development only): %d characters",
                _masked(target),
                len(message.text),
            )
        return DeliveryResult(ok=True, provider_id=message.id or None)


class TwilioSms:
    """Twilio Programmable Messaging: ``POST {base}/2010-04-01/Accounts/{sid}/Messages.json``."""

    def __init__(
        self,
        account_sid: str,
        auth_token: str,
        sender: str,
        *,
        base_url: str = "https://api.twilio.com",
        client: httpx.AsyncClient | None = None,
        timeout: float = 15.0,
    ) -> None:
        self.account_sid = account_sid
        self.auth_token = auth_token
        self.sender = sender
        self.base_url = base_url.rstrip("/")
        self.client = client
        self.timeout = timeout

    async def send(self, message: Message, target: str) -> DeliveryResult:
        url = f"{self.base_url}/2010-04-01/Accounts/{self.account_sid}/Messages.json"
        form = {"To": target, "From": self.sender, "Body": message.text}
        auth = httpx.BasicAuth(self.account_sid, self.auth_token)
        try:
            if self.client is not None:
                response = await self.client.post(url, data=form, auth=auth, timeout=self.timeout)
            else:
                async with httpx.AsyncClient() as client:
                    response = await client.post(url, data=form, auth=auth, timeout=self.timeout)
        except httpx.HTTPError as exc:
            return DeliveryResult(ok=False, error=f"Twilio unreachable: {type(exc).__name__}")
        try:
            body = response.json()
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        if response.status_code in (200, 201):
            return DeliveryResult(ok=True, provider_id=str(body.get("sid") or "") or None)
        detail = f"Twilio HTTP {response.status_code}: {body.get('message') or response.text[:200]}"
        retry = response.status_code == 429 or response.status_code >= 500
        return DeliveryResult(ok=False, permanent=not retry, error=detail)


class AppriseSms:
    """Any Apprise-supported SMS gateway; ``url_template`` contains ``{phone}``."""

    def __init__(self, url_template: str) -> None:
        self.url_template = url_template

    def _notify(self, text: str, target: str) -> bool:
        with warnings.catch_warnings():
            # apprise loads its plugins lazily and one imports the deprecated imghdr module
            warnings.simplefilter("ignore", DeprecationWarning)
            import apprise

            notifier = apprise.Apprise()
            if not notifier.add(self.url_template.replace("{phone}", target)):
                raise ValueError("Apprise does not understand the SMS URL template")
            return bool(notifier.notify(body=text))

    async def send(self, message: Message, target: str) -> DeliveryResult:
        try:
            ok = await asyncio.to_thread(self._notify, message.text, target)
        except ValueError as exc:
            return DeliveryResult(ok=False, permanent=True, error=str(exc))
        if ok:
            return DeliveryResult(ok=True)
        return DeliveryResult(ok=False, error="Apprise could not deliver the SMS")
