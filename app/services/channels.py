"""Channel objects built from the one Settings object (the app's side of ``push``).

Email from ``TIMELYPUSH_SMTP_*``, SMS from ``TIMELYPUSH_SMS_PROVIDER`` and its provider
settings, webhooks with the crawler's SSRF guard injected as ``url_check`` (honouring
``TIMELYPUSH_URL_ALLOWLIST``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import AbstractContextManager
from typing import Any, TypeVar

import httpx

from app.core.config import Settings
from app.core.i18n import LANGUAGES, translations
from app.core.resources import data_path
from push import (
    AppriseChannel,
    AppriseSms,
    Channel,
    ConsoleSms,
    EmailChannel,
    Renderer,
    SmtpConfig,
    TwilioSms,
    WebhookChannel,
)

logger = logging.getLogger(__name__)

T = TypeVar("T")

TEMPLATE_DIR = data_path("templates") / "email"
_renderer: Renderer | None = None


class ChannelNotConfigured(RuntimeError):
    """The requested channel has no usable configuration (say which setting is missing)."""


def renderer() -> Renderer:
    """The process-wide email template renderer."""
    global _renderer
    if _renderer is None:
        _renderer = Renderer(TEMPLATE_DIR, {lang: translations(lang) for lang in LANGUAGES})
    return _renderer


def smtp_config(settings: Settings) -> SmtpConfig | None:
    """The SMTP configuration, or None when TIMELYPUSH_SMTP_HOST is empty."""
    if not settings.smtp_host:
        return None
    return SmtpConfig(
        host=settings.smtp_host,
        port=settings.smtp_port,
        username=settings.smtp_username,
        password=settings.smtp_password,
        security=settings.smtp_security,
        sender=settings.smtp_from,
    )


def email_channel(settings: Settings, *, max_connections: int = 4) -> EmailChannel:
    config = smtp_config(settings)
    if config is None:
        raise ChannelNotConfigured("email is not configured: set TIMELYPUSH_SMTP_HOST")
    return EmailChannel(config, max_connections=max_connections)


def sms_channel(settings: Settings, *, client: httpx.AsyncClient | None = None) -> Channel:
    provider = settings.sms_provider
    if provider == "console":
        return ConsoleSms()
    if provider == "twilio":
        sid, token, sender = (
            settings.twilio_account_sid,
            settings.twilio_auth_token,
            settings.twilio_from,
        )
        if not (sid and token and sender):
            raise ChannelNotConfigured(
                "Twilio needs TIMELYPUSH_TWILIO_ACCOUNT_SID, _AUTH_TOKEN and TIMELYPUSH_TWILIO_FROM"
            )
        return TwilioSms(sid, token, sender, base_url=settings.twilio_api_base, client=client)
    if provider == "apprise":
        if not settings.apprise_sms_url:
            raise ChannelNotConfigured("Apprise SMS needs TIMELYPUSH_APPRISE_SMS_URL")
        return AppriseSms(settings.apprise_sms_url)
    raise ChannelNotConfigured("SMS is turned off: TIMELYPUSH_SMS_PROVIDER=none")


def url_check(settings: Settings) -> Callable[[str], Awaitable[None]]:
    """The SSRF guard for webhook targets: refuses private addresses unless allowlisted."""
    allowlist = tuple(settings.allowlist)

    async def check(url: str) -> None:
        from crawler.guard import UrlGuard

        await UrlGuard(allowlist=allowlist).check(url)

    return check


def webhook_channel(
    settings: Settings, secret: str, *, client: httpx.AsyncClient | None = None
) -> WebhookChannel:
    return WebhookChannel(secret=secret, client=client, url_check=url_check(settings))


def apprise_channel(settings: Settings) -> AppriseChannel:
    """Apprise push channels, every endpoint behind the same guard as webhooks: checked before
    the send, and every connection the send opens checked again when it connects."""
    allowlist = tuple(settings.allowlist)

    def connect_guard() -> AbstractContextManager[list[str]]:
        from crawler.guard import UrlGuard
        from crawler.pinning import guarded_sockets

        return guarded_sockets(UrlGuard(allowlist=allowlist))

    return AppriseChannel(url_check=url_check(settings), connect_guard=connect_guard)


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run async channel code from a plain sync job, even when this thread already runs a loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()
