"""SMS length rules and the adapters (Twilio REST against a loopback fake, Apprise, console)."""

from __future__ import annotations

import base64
from urllib.parse import parse_qs

from push import AppriseSms, ConsoleSms, Message, TwilioSms, fit_sms, is_gsm7, sms_length
from tests.push.servers import HttpReceiver


def test_gsm7_and_ucs2_detection() -> None:
    assert is_gsm7("Hello @ 5€ [ok]")
    assert not is_gsm7("新政策")
    assert sms_length("a" * 10) == (10, 160)
    assert sms_length("€") == (2, 160)
    assert sms_length("中文") == (2, 70)


def test_short_text_is_untouched() -> None:
    assert fit_sms("New match: budget report", "https://t.co/x") == (
        "New match: budget report https://t.co/x"
    )


def test_chinese_is_cut_to_70_with_ellipsis_and_whole_link() -> None:
    link = "https://tp.cn/m/1"
    out = fit_sms("【及时推】" + "国务院发布关于新能源汽车补贴的最新政策解读" * 5, link)
    assert out.endswith("… " + link)
    assert sms_length(out) == (70, 70)


def test_latin_is_cut_to_160_with_ascii_ellipsis() -> None:
    out = fit_sms("word " * 100, "https://tp.example/m/1")
    assert out.endswith("... https://tp.example/m/1")
    units, limit = sms_length(out)
    assert limit == 160 and units <= 160


async def test_twilio_posts_form_with_basic_auth(receiver: HttpReceiver) -> None:
    receiver.default = 201
    receiver.body = {"sid": "SM123", "status": "queued"}
    sms = TwilioSms("AC1", "tok", "+15550001", base_url=receiver.url)
    result = await sms.send(Message(subject="", text="【及时推】新内容"), "+8613800000000")
    assert result.ok and result.provider_id == "SM123"
    [req] = receiver.requests
    assert req.path == "/2010-04-01/Accounts/AC1/Messages.json"
    assert req.headers["authorization"] == "Basic " + base64.b64encode(b"AC1:tok").decode()
    form = parse_qs(req.body.decode())
    assert form == {"To": ["+8613800000000"], "From": ["+15550001"], "Body": ["【及时推】新内容"]}


async def test_twilio_errors_are_classified(receiver: HttpReceiver) -> None:
    receiver.statuses = [400, 503]
    receiver.body = {"message": "invalid To number"}
    sms = TwilioSms("AC1", "tok", "+15550001", base_url=receiver.url)
    bad = await sms.send(Message(subject="", text="x"), "123")
    assert not bad.ok and bad.permanent and "invalid To number" in (bad.error or "")
    busy = await sms.send(Message(subject="", text="x"), "123")
    assert not busy.ok and not busy.permanent


async def test_apprise_delivers_through_a_gateway_url(receiver: HttpReceiver) -> None:
    port = receiver.url.rsplit(":", 1)[1]
    sms = AppriseSms(f"json://127.0.0.1:{port}/sms/{{phone}}")
    result = await sms.send(Message(subject="", text="新内容 new"), "13800000000")
    assert result.ok, result.error
    [req] = receiver.requests
    assert req.path == "/sms/13800000000"
    assert req.json()["message"] == "新内容 new"


async def test_apprise_failure_is_reported(receiver: HttpReceiver) -> None:
    receiver.default = 500
    port = receiver.url.rsplit(":", 1)[1]
    result = await AppriseSms(f"json://127.0.0.1:{port}/{{phone}}").send(
        Message(subject="", text="x"), "1"
    )
    assert not result.ok and not result.permanent


async def test_console_sms_hands_text_to_sink() -> None:
    seen: list[tuple[str, str]] = []
    result = await ConsoleSms(sink=lambda to, text: seen.append((to, text))).send(
        Message(subject="", text="你好"), "+861"
    )
    assert result.ok and seen == [("+861", "你好")]
