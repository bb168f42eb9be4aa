"""DNS rebinding on every outbound request to a user-supplied URL: webhook deliveries, the
channel test and the seed URL probe connect to the address that was checked.

A fake resolver answers ``rebind.test`` with 127.0.0.1 (allowlisted: it stands for a public
address) on the first lookup and with the loopback alias 127.0.0.2 (not allowlisted: it
stands for an internal service) on every later one. Nothing real is ever contacted.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest
from sqlmodel import Session

from app.core.config import get_settings
from app.services import delivery, delivery_actions
from app.services.errors import Invalid
from app.services.urlcheck import check_seed_url
from tests.factories import add_concern, make_matches, make_user
from tests.push import fixtures
from tests.push.fixtures import drain, rows
from tests.push.servers import HttpReceiver, SmtpSink

sink, push_env = fixtures.sink, fixtures.push_env

NAME = "rebind.test"


@pytest.fixture
def rebinding_dns(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The answers given for ``rebind.test``, in order: 127.0.0.1 first, then 127.0.0.2."""
    answers: list[str] = []
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if host not in (NAME, NAME.encode()):  # anyio asks with the IDNA bytes
            return real(host, port, *args, **kwargs)
        address = "127.0.0.1" if not answers else "127.0.0.2"
        answers.append(address)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(port or 80)))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return answers


@pytest.fixture
def servers() -> Iterator[tuple[HttpReceiver, HttpReceiver]]:
    """(the checked server on 127.0.0.1:P, the internal one on 127.0.0.2:P)."""
    good = HttpReceiver()
    evil = HttpReceiver(host="127.0.0.2", port=good.server.server_address[1])
    yield good, evil
    good.close()
    evil.close()


def _url(good: HttpReceiver, path: str = "/hook") -> str:
    return f"http://{NAME}:{good.server.server_address[1]}{path}"


def test_webhook_delivery_never_reaches_the_rebound_address(
    session: Session,
    push_env: SmtpSink,
    rebinding_dns: list[str],
    servers: tuple[HttpReceiver, HttpReceiver],
) -> None:
    good, evil = servers
    user = make_user(session, email_enabled=False, webhook_enabled=True, webhook_url=_url(good))
    session.commit()  # as a request does before the service call
    delivery.enqueue_for_matches(session, make_matches(session, add_concern(session, user), 1))
    session.commit()
    drain()
    assert rebinding_dns, "the resolver was asked"
    assert evil.requests == []
    [row] = rows(session)
    # the second lookup answered an address the guard refuses: nothing sent, nothing leaked
    assert row.status != "sent"
    assert "HTTP" not in (row.last_error or "")


def test_channel_test_is_not_a_port_scanner(
    session: Session,
    push_env: SmtpSink,
    rebinding_dns: list[str],
    servers: tuple[HttpReceiver, HttpReceiver],
) -> None:
    good, evil = servers
    evil.default = 404  # an internal service answering: its status must not come back
    user = make_user(session, webhook_enabled=True, webhook_url=_url(good))
    session.commit()  # as a request does before the service call
    result = delivery_actions.send_channel_test(session, get_settings(), user, "webhook")
    assert evil.requests == []
    assert not result.ok and "404" not in (result.error or "")


def test_seed_probe_never_reaches_the_rebound_address(
    push_env: SmtpSink,
    rebinding_dns: list[str],
    servers: tuple[HttpReceiver, HttpReceiver],
) -> None:
    good, evil = servers
    with pytest.raises(Invalid) as caught:
        check_seed_url(get_settings(), _url(good, "/"))
    assert caught.value.code == "unreachable"
    assert evil.requests == []


def test_checked_address_is_used_when_the_name_stays_put(
    session: Session, push_env: SmtpSink, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pinned connection still works: a name resolving to the allowed address is sent to."""
    good = HttpReceiver()
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if host not in (NAME, NAME.encode()):
            return real(host, port, *args, **kwargs)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", int(port or 80)))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    try:
        user = make_user(session, webhook_enabled=True, webhook_url=_url(good))
        session.commit()  # as a request does before the service call
        result = delivery_actions.send_channel_test(session, get_settings(), user, "webhook")
        assert result.ok, result.error
        [received] = good.requests
        assert received.headers["host"] == f"{NAME}:{good.server.server_address[1]}"
    finally:
        good.close()


def test_the_crawlers_proxy_carries_the_crawl_and_never_a_push(
    session: Session, push_env: SmtpSink, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``TIMELYPUSH_PROXY`` is for the crawler's traffic (a seed's check included): webhook
    deliveries and the webhook test go straight to the receiver, through the URL guard."""
    proxy = HttpReceiver(default=405)  # a proxy that answers everything itself
    hook = HttpReceiver()
    monkeypatch.setenv("TIMELYPUSH_PROXY", proxy.url)
    get_settings.cache_clear()
    try:
        user = make_user(session, email_enabled=False, webhook_enabled=True, webhook_url=hook.url)
        session.commit()  # as a request does before the service call
        assert delivery_actions.send_channel_test(session, get_settings(), user, "webhook").ok
        delivery.enqueue_for_matches(session, make_matches(session, add_concern(session, user), 1))
        session.commit()
        drain()
        assert [row.status for row in rows(session)] == ["sent"]
        assert len(hook.requests) == 2 and proxy.requests == []
        # the seed's check is the crawler's: it asks the proxy (which refuses it here)
        with pytest.raises(Invalid):
            check_seed_url(get_settings(), "http://www.example.com/")
        assert proxy.requests
    finally:
        hook.close()
        proxy.close()
        get_settings.cache_clear()


def test_a_channel_is_checked_where_it_connects_not_where_its_plugin_says(
    session: Session, push_env: SmtpSink, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Apprise's Notica plugin names notica.us as its endpoint, yet with a host in the URL it
    posts to that host (its self-hosted mode): the address checked is the one connected to."""
    from app.models import PushChannel
    from app.services import push_channels

    internal = HttpReceiver()
    monkeypatch.setenv("TIMELYPUSH_URL_ALLOWLIST", "notica.us")  # the public service's name
    get_settings.cache_clear()
    try:
        user = make_user(session)
        channel = PushChannel(
            user_id=user.id,
            name="notica",
            url=f"notica://127.0.0.1:{internal.server.server_address[1]}/hook/tok",
        )
        session.add(channel)
        session.commit()
        result = push_channels.send_test_message(get_settings(), user, channel)
        assert internal.requests == []
        assert not result.ok and "refused" in (result.error or "")
    finally:
        internal.close()
        get_settings.cache_clear()


def test_a_channel_never_reaches_the_rebound_address(
    session: Session,
    push_env: SmtpSink,
    rebinding_dns: list[str],
    servers: tuple[HttpReceiver, HttpReceiver],
) -> None:
    """The name is checked before the send (127.0.0.1, allowlisted) and again when the plugin
    connects (127.0.0.2: refused)."""
    from app.models import PushChannel
    from app.services import push_channels

    good, evil = servers
    user = make_user(session)
    channel = PushChannel(user_id=user.id, name="json", url=_url(good).replace("http", "json"))
    session.add(channel)
    session.commit()
    result = push_channels.send_test_message(get_settings(), user, channel)
    assert len(rebinding_dns) >= 2, "the resolver was asked again at connect time"
    assert evil.requests == [] and good.requests == []
    assert not result.ok
