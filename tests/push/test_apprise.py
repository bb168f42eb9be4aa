"""AppriseChannel: where a URL sends, and real sends to an HTTP receiver on loopback."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from push import AppriseChannel, ConfigError, Message, inspect_url
from tests.push.servers import HttpReceiver


@pytest.mark.parametrize(
    ("url", "service", "endpoint"),
    [
        ("dingtalk://abcdef0123456789/", "DingTalk", "https://oapi.dingtalk.com/"),
        ("wecombot://botkey123", "WeCom Bot", "https://qyapi.weixin.qq.com/"),
        ("feishu://token123", "Feishu", "https://open.feishu.cn/"),
        ("tgram://123456:ABCdef/12345", "Telegram", "https://api.telegram.org/"),
        ("schan://sendkey123", "ServerChan", "https://sctapi.ftqq.com/"),
        ("discord://1234/abcd", "Discord", "https://discord.com/"),
        ("ntfy://my-topic", "ntfy", "https://ntfy.sh/"),
        ("ntfy://10.0.0.5:8080/topic", "ntfy", "http://10.0.0.5:8080/"),
        ("bark://192.168.1.2:8080/device", "Bark", "http://192.168.1.2:8080/"),
        ("json://127.0.0.1:9/hook", "JSON", "http://127.0.0.1:9/"),
    ],
)
def test_the_endpoint_a_send_contacts_is_known(url: str, service: str, endpoint: str) -> None:
    info = inspect_url(url)
    assert info.service == service
    assert endpoint in info.endpoints
    # a cloud service's token never sits in the guarded endpoint (it ends up in error text)
    assert all("key" not in e and "token" not in e for e in info.endpoints)


def test_secrets_are_masked_for_display() -> None:
    info = inspect_url("wecombot://supersecretbotkey")
    assert "supersecretbotkey" not in info.masked and info.masked.startswith("wecombot://")


@pytest.mark.parametrize("url", ["nonsense", "foo://bar", "", "http//x"])
def test_urls_apprise_does_not_know_are_refused(url: str) -> None:
    with pytest.raises(ConfigError):
        inspect_url(url)


async def test_json_url_delivers_title_and_body(receiver: HttpReceiver) -> None:
    url = receiver.url.replace("http://", "json://") + "/notify"
    message = Message(subject="新能源汽车补贴", text="https://x.cn/a\n命中关键词：补贴", id="tp_1")
    result = await AppriseChannel().send(message, url)
    assert result.ok
    [req] = receiver.requests
    assert req.path == "/notify"
    body = req.json()
    assert body["title"] == "新能源汽车补贴" and "命中关键词：补贴" in body["message"]


async def test_server_error_is_a_retryable_failure(receiver: HttpReceiver) -> None:
    receiver.statuses = [503]
    url = receiver.url.replace("http://", "json://") + "/notify"
    result = await AppriseChannel().send(Message(subject="s", text="t"), url)
    assert not result.ok and not result.permanent
    assert len(receiver.requests) == 1


async def test_refused_endpoint_is_permanent_and_nothing_is_sent(receiver: HttpReceiver) -> None:
    checked: list[str] = []

    async def refuse(url: str) -> None:
        checked.append(url)
        raise ValueError("loopback address")

    url = receiver.url.replace("http://", "json://") + "/notify"
    result = await AppriseChannel(url_check=refuse).send(Message(subject="s", text="t"), url)
    assert not result.ok and result.permanent and "loopback" in (result.error or "")
    assert checked == [receiver.url + "/"]
    assert receiver.requests == []


async def test_redirects_are_not_followed() -> None:
    hits: list[str] = []

    class Redirecting(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            hits.append(self.path)
            self.send_response(307 if self.path.startswith("/notify") else 200)
            self.send_header("location", "/landed")
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Redirecting)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        url = f"json://127.0.0.1:{server.server_address[1]}/notify?redirect=yes"
        result = await AppriseChannel().send(Message(subject="s", text="t"), url)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
    assert not result.ok
    assert hits == ["/notify"]
