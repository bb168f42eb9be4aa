"""Apprise push channels: every chat app and push service Apprise knows, one URL each.

钉钉 ``dingtalk://``, 企业微信 ``wecombot://``, 飞书 ``feishu://``, Bark ``bark://``, ntfy
``ntfy://``, Telegram ``tgram://``, Server酱 ``schan://``, Discord ``discord://``, Slack
``slack://``, plain JSON ``json://`` … (https://github.com/caronc/apprise/wiki).

Where the request goes (:func:`inspect_url`): a cloud service's fixed API host (the plugin's
``notify_url`` / ``webhook_url`` / ``api_url``; ntfy's cloud server), else the host written in
the URL (``json://``, ``bark://``, a self-hosted ntfy …). ``url_check`` (the SSRF guard) is
awaited for each such endpoint before every send and must raise to refuse it.

What a plugin names is not always where it sends (Notica's plugin names notica.us and, with a
host in the URL, posts to that host): ``connect_guard`` (given by the app) checks every
connection the send opens, when it opens it, against the address it connects to, so the
address checked is the one used (no DNS-rebinding window either, for every plugin that speaks
HTTP). Redirects are never followed (a redirect could point into a private network).

Apprise reports only success or failure, not why: a failure is retried (transient), an URL
Apprise does not understand or a refused target is permanent.
"""

from __future__ import annotations

import asyncio
import logging
import re
import warnings
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from push.errors import ConfigError
from push.message import DeliveryResult, Message

__all__ = ["AppriseChannel", "AppriseTarget", "inspect_url"]

logger = logging.getLogger(__name__)

UrlCheck = Callable[[str], Awaitable[None]]
ConnectGuard = Callable[[], AbstractContextManager[list[str]]]
"""A context in which every connection the calling thread opens goes to an address checked at
that moment; its value lists why a connection was refused (``crawler.pinning.guarded_sockets``,
given by the app)."""
_FIXED_ATTRS = ("notify_url", "webhook_url", "api_url")
_PLACEHOLDER = re.compile(r"\{[^}]*\}")


def _apprise() -> Any:
    with warnings.catch_warnings():
        # apprise loads its plugins lazily and one imports the deprecated imghdr module
        warnings.simplefilter("ignore", DeprecationWarning)
        import apprise

        return apprise


@dataclass(frozen=True)
class AppriseTarget:
    """What an Apprise URL means: the service, the endpoints contacted, a safe display form."""

    service: str
    endpoints: tuple[str, ...]
    masked: str


def _plugin(url: str) -> Any:
    apprise = _apprise()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        plugin = apprise.Apprise.instantiate(url.strip(), suppress_exceptions=True)
    if plugin is None:
        raise ConfigError("Apprise does not understand this URL")
    return plugin


def _origin(value: object) -> str | None:
    """``scheme://host[:port]/`` of an http(s) URL (no path: it may hold a token)."""
    if not isinstance(value, str) or not value.startswith(("http://", "https://")):
        return None
    parts = urlsplit(_PLACEHOLDER.sub("x", value))
    if not parts.hostname:
        return None
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}/"


def inspect_url(url: str) -> AppriseTarget:
    """The service behind an Apprise URL and the endpoints a send contacts.

    Raises ConfigError when Apprise cannot use the URL.
    """
    if not url or len(url) > 2048 or "://" not in url:
        raise ConfigError("Apprise does not understand this URL")
    plugin = _plugin(url)
    endpoints: list[str] = []
    cloud = _origin(getattr(plugin, "cloud_notify_url", None))
    if getattr(plugin, "mode", None) == "cloud" and cloud:
        endpoints.append(cloud)
    else:
        for attr in _FIXED_ATTRS:
            origin = _origin(getattr(plugin, attr, None))
            if origin:
                endpoints.append(origin)
        if not endpoints:
            host = getattr(plugin, "smtp_host", None) or getattr(plugin, "host", None)
            if not host:
                raise ConfigError("Apprise URL names no host to send to")
            scheme = "https" if getattr(plugin, "secure", False) else "http"
            port = getattr(plugin, "port", None)
            host = str(host)
            netloc = f"[{host}]" if ":" in host and not host.startswith("[") else host
            endpoints.append(f"{scheme}://{netloc}{f':{port}' if port else ''}/")
    try:
        masked = str(plugin.url(privacy=True)).split("?", 1)[0]
    except Exception:  # a plugin that cannot print itself: show only the scheme
        masked = url.split("://", 1)[0] + "://…"
    service = str(getattr(plugin, "service_name", "") or url.split("://", 1)[0])
    return AppriseTarget(
        service=service[:64], endpoints=tuple(dict.fromkeys(endpoints)), masked=masked
    )


class AppriseChannel:
    """Sends ``message.subject`` as the title and ``message.text`` as the body to the Apprise
    URL given as the target."""

    def __init__(
        self, *, url_check: UrlCheck | None = None, connect_guard: ConnectGuard | None = None
    ) -> None:
        self.url_check = url_check
        self.connect_guard = connect_guard

    def _notify(self, url: str, title: str, body: str) -> bool:
        """Send in this thread (``async_mode`` off), where ``connect_guard`` checks each
        connection the plugin opens: the endpoints ``inspect_url`` reads from a plugin are what
        it names, and a plugin may contact another host (a self-hosted mode that takes the
        URL's host); checked when it connects, what it contacts is what is checked."""
        if self.connect_guard is None:
            return self._notify_unguarded(url, title, body)
        with self.connect_guard() as refused:
            ok = self._notify_unguarded(url, title, body)
        if refused:
            raise ConfigError(f"target refused: {refused[0]}")
        return ok

    def _notify_unguarded(self, url: str, title: str, body: str) -> bool:
        apprise = _apprise()
        asset = apprise.AppriseAsset(http_redirects=False, async_mode=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            plugin = apprise.Apprise.instantiate(url, asset=asset, suppress_exceptions=True)
            if plugin is None:
                raise ConfigError("Apprise does not understand this URL")
            # a redirect could lead past the guard into a private network: never follow one,
            # whatever the URL's own ?redirect= says
            plugin.redirects = False
            notifier = apprise.Apprise(asset=asset)
            notifier.add(plugin)
            return bool(notifier.notify(title=title, body=body))

    async def send(self, message: Message, target: str) -> DeliveryResult:
        try:
            info = inspect_url(target)
        except ConfigError as exc:
            return DeliveryResult(ok=False, permanent=True, error=str(exc))
        if self.url_check is not None:
            for endpoint in info.endpoints:
                try:
                    await self.url_check(endpoint)
                except Exception as exc:  # the guard's own error type is not ours to know
                    return DeliveryResult(ok=False, permanent=True, error=f"target refused: {exc}")
        try:
            ok = await asyncio.to_thread(self._notify, target, message.subject, message.text)
        except ConfigError as exc:
            return DeliveryResult(ok=False, permanent=True, error=str(exc))
        if ok:
            return DeliveryResult(ok=True, provider_id=message.id or None)
        logger.warning("Apprise could not deliver to %s", info.masked)
        return DeliveryResult(ok=False, error=f"{info.service} did not accept the message")
