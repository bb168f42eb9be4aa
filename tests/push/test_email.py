"""EmailChannel against a real SMTP server (aiosmtpd) on loopback."""

from __future__ import annotations

from email.message import EmailMessage

from push import EmailChannel, Message, SmtpConfig, stable_id
from tests.push.servers import SmtpSink


def _config(sink: SmtpSink) -> SmtpConfig:
    return SmtpConfig(
        host="127.0.0.1", port=sink.port, security="none", sender="及时推 <push@example.org>"
    )


def _message(key: str = "i:1:email:7") -> Message:
    return Message(
        subject="[及时推] 新能源汽车补贴政策发布",
        text="你关注的网站有新内容：新能源汽车补贴政策发布\nhttps://example.org/a\n",
        html="<p>你关注的网站有新内容：<b>新能源汽车补贴政策发布</b></p>",
        headers={
            "List-Unsubscribe": "<https://push.example.org/unsubscribe/tok>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
        id=stable_id(key),
    )


def _parts(msg: EmailMessage) -> tuple[str, str]:
    text = msg.get_body(("plain",))
    html = msg.get_body(("html",))
    assert text is not None and html is not None
    return text.get_content(), html.get_content()


async def test_chinese_multipart_mail_arrives_with_headers(smtp_sink: SmtpSink) -> None:
    result = await EmailChannel(_config(smtp_sink)).send(_message(), "user@example.org")
    assert result.ok, result.error
    [msg] = smtp_sink.messages
    assert msg["Subject"] == "[及时推] 新能源汽车补贴政策发布"
    assert str(msg["From"]) == "及时推 <push@example.org>"
    assert msg["To"] == "user@example.org"
    assert msg["List-Unsubscribe"] == "<https://push.example.org/unsubscribe/tok>"
    assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert msg["Message-ID"] == f"<{stable_id('i:1:email:7')}@example.org>"
    assert msg.get_content_type() == "multipart/alternative"
    text, html = _parts(msg)
    assert "新能源汽车补贴政策发布" in text
    assert "<b>新能源汽车补贴政策发布</b>" in html
    assert smtp_sink.envelopes == [("push@example.org", ["user@example.org"])]


async def test_raw_headers_are_ascii_encoded(smtp_sink: SmtpSink) -> None:
    await EmailChannel(_config(smtp_sink)).send(_message(), "user@example.org")
    raw = smtp_sink.messages[0].as_bytes(policy=smtp_sink.messages[0].policy.clone(utf8=False))
    head = raw.split(b"\r\n\r\n", 1)[0] if b"\r\n\r\n" in raw else raw.split(b"\n\n", 1)[0]
    assert head.isascii()
    assert b"=?utf-8?" in head.lower()


async def test_same_key_same_message_id_on_resend(smtp_sink: SmtpSink) -> None:
    channel = EmailChannel(_config(smtp_sink))
    async with channel:
        await channel.send(_message("d:3:email:2026-11-22"), "a@example.org")
        await channel.send(_message("d:3:email:2026-11-22"), "a@example.org")
    first, second = smtp_sink.messages
    assert first["Message-ID"] == second["Message-ID"]


async def test_pooled_connection_sends_many(smtp_sink: SmtpSink) -> None:
    async with EmailChannel(_config(smtp_sink), max_connections=2) as channel:
        for i in range(20):
            assert (await channel.send(_message(f"k{i}"), f"u{i}@example.org")).ok
    assert len(smtp_sink.messages) == 20
    assert len({m["Message-ID"] for m in smtp_sink.messages}) == 20


async def test_server_down_is_a_transient_failure(smtp_sink: SmtpSink) -> None:
    config = _config(smtp_sink)
    smtp_sink.stop()
    result = await EmailChannel(config).send(_message(), "user@example.org")
    assert not result.ok and not result.permanent
    assert result.error and "SMTP unavailable" in result.error
    smtp_sink.start(config.port)
    assert (await EmailChannel(config).send(_message(), "user@example.org")).ok


async def test_refused_recipient_is_permanent(smtp_sink: SmtpSink) -> None:
    smtp_sink.refuse.add("gone@example.org")
    result = await EmailChannel(_config(smtp_sink)).send(_message(), "gone@example.org")
    assert not result.ok and result.permanent
    assert result.error and "550" in result.error


async def test_not_an_address_is_permanent() -> None:
    config = SmtpConfig(host="127.0.0.1", port=1, security="none", sender="a@b.c")
    result = await EmailChannel(config).send(_message(), "not-an-address")
    assert result.permanent and not result.ok
