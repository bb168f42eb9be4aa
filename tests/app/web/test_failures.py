"""A failed visit or test message, told in the reader's language: the crawler's and the
channels' own error texts become one of a few plain sentences, with the address that failed."""

from __future__ import annotations

import pytest

from app.web.failures import send_failure, send_text, visit_failure, visit_text
from crawler.errors import (
    BlockedURL,
    FetchTimeout,
    HTTPStatusError,
    NetworkError,
    RobotsDisallowed,
    TooManyRedirects,
)
from tests.app.test_i18n_catalogue import english_words

SEED = "http://news.example.com/sports/"


def _recorded(exc: Exception) -> str:
    """A run's error as the crawl service records it."""
    return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize(
    ("error", "kind", "zh"),
    [
        (_recorded(NetworkError(f"{SEED}: ConnectError ([Errno 111] Connection refused)")),
         "network", "无法连接到该网站。"),
        ("ConnectError: [Errno 111] Connection refused", "network", "无法连接到该网站。"),
        (_recorded(NetworkError(f"{SEED}: ConnectError ([Errno -2] Name or service not known)")),
         "network", "无法连接到该网站。"),
        (_recorded(FetchTimeout(f"{SEED}: ReadTimeout ()", url=SEED)), "timeout", "网站响应超时。"),
        ("timeout: /video/live.html", "timeout", "网站响应超时。"),
        (_recorded(HTTPStatusError(503, url=SEED)), "http_status", "网站返回了错误（HTTP 503）。"),
        (_recorded(BlockedURL(f"{SEED}: resolves to a private address", url=SEED)), "blocked",
         "该地址不被允许：它指向内部网络或本机。"),
        (_recorded(RobotsDisallowed(f"{SEED}: disallowed by robots.txt", url=SEED)), "robots",
         "该网站的 robots.txt 不允许抓取。"),
        (_recorded(TooManyRedirects(f"{SEED}: more than 10 redirects", url=SEED)), "redirects",
         "网站重定向次数过多。"),
        ("RuntimeError: something odd", "other", "访问失败。"),
        (None, "other", "访问失败。"),
    ],
)  # fmt: skip
def test_a_visit_error_is_told_in_plain_words(error, kind, zh):
    failure = visit_failure(error)
    assert failure.kind == kind
    assert visit_text("zh", error) == zh and not english_words(zh)
    english = visit_text("en", error)
    assert english.endswith(".") and "Error" not in english and "Errno" not in english


def test_the_address_that_failed_is_kept():
    refused = _recorded(NetworkError(f"{SEED}: ConnectError ([Errno 111] Connection refused)"))
    assert visit_failure(refused).where == SEED
    assert visit_failure("timeout: /video/live.html").where == "/video/live.html"
    assert visit_failure("ConnectError: [Errno 111] Connection refused").where is None


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ("no sms address in the profile", "no_address"),
        ("verify the email address first", "unverified"),
        ("SMS is turned off: TIMELYPUSH_SMS_PROVIDER=none", "not_configured"),
        ("email is not configured: set TIMELYPUSH_SMTP_HOST", "not_configured"),
        ("target refused: 10.0.0.1 is a private address", "refused"),
        ("webhook answered HTTP 500", "http_status"),
        ("webhook unreachable: ConnectError", "unreachable"),
        ("webhook unreachable: ReadTimeout", "timeout"),
        ("SMTP unavailable: ConnectionRefusedError: [Errno 111] Connection refused", "unreachable"),
        ("SMTP authentication failed: 535 bad credentials", "login"),
        ("dingtalk did not accept the message", "rejected"),
        ("something else entirely", "other"),
    ],
)
def test_a_test_message_error_is_told_in_plain_words(error, kind):
    assert send_failure(error).kind == kind
    zh = send_text("zh", error)
    assert zh and not english_words(zh), zh
    assert "TIMELYPUSH" not in send_text("en", error)
