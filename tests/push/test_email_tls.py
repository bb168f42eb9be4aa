"""SMTP security modes against a real aiosmtpd server: STARTTLS with AUTH, implicit TLS."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from push import EmailChannel, Message, SmtpConfig
from tests.push.servers import SmtpSink, self_signed_context

MESSAGE = Message(
    subject="[及时推] 安全连接", text="加密传输的邮件", html="<p>加密传输的邮件</p>", id="tp_tls"
)


@pytest.fixture
def tls_dir(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
def starttls_sink(tls_dir: Path) -> Iterator[SmtpSink]:
    sink = SmtpSink().start(tls=self_signed_context(tls_dir), login=("push", "s3cret"))
    yield sink
    sink.close()


@pytest.fixture
def implicit_sink(tls_dir: Path) -> Iterator[SmtpSink]:
    sink = SmtpSink().start(tls=self_signed_context(tls_dir), implicit_tls=True)
    yield sink
    sink.close()


def _config(sink: SmtpSink, **kw: object) -> SmtpConfig:
    values: dict[str, object] = {
        "host": "127.0.0.1",
        "port": sink.port,
        "sender": "push@example.org",
        "validate_certs": False,
    }
    values.update(kw)
    return SmtpConfig(**values)  # type: ignore[arg-type]


async def test_starttls_with_login(starttls_sink: SmtpSink) -> None:
    config = _config(starttls_sink, security="starttls", username="push", password="s3cret")
    result = await EmailChannel(config).send(MESSAGE, "u@example.org")
    assert result.ok, result.error
    assert starttls_sink.messages[0]["Subject"] == "[及时推] 安全连接"
    for _ in range(50):  # let the TLS transport finish closing the socket underneath
        await asyncio.sleep(0.01)


async def test_plain_connection_is_refused_when_server_requires_tls(
    starttls_sink: SmtpSink,
) -> None:
    result = await EmailChannel(_config(starttls_sink, security="none")).send(
        MESSAGE, "u@example.org"
    )
    assert not result.ok and starttls_sink.messages == []


async def test_implicit_tls(implicit_sink: SmtpSink) -> None:
    result = await EmailChannel(_config(implicit_sink, security="tls")).send(
        MESSAGE, "u@example.org"
    )
    assert result.ok, result.error
    assert len(implicit_sink.messages) == 1


async def test_self_signed_certificate_is_rejected_when_validating(
    implicit_sink: SmtpSink,
) -> None:
    config = _config(implicit_sink, security="tls", validate_certs=True)
    result = await EmailChannel(config).send(MESSAGE, "u@example.org")
    assert not result.ok and not result.permanent
    assert implicit_sink.messages == []
