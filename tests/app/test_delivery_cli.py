"""`timelypush push test|run` and the account mailer, against loopback servers."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from sqlmodel import Session
from typer.testing import CliRunner

from app.cli import cli
from app.core.config import get_settings
from app.services.mailer import render_account_email, send_account_email
from tests.factories import add_concern, make_matches, make_user
from tests.push import fixtures
from tests.push.servers import HttpReceiver, SmtpSink

sink, hook, push_env = fixtures.sink, fixtures.hook, fixtures.push_env


@pytest.fixture
def smtp_only(monkeypatch: pytest.MonkeyPatch, tmp_path, sink: SmtpSink) -> Iterator[SmtpSink]:  # type: ignore[no-untyped-def]
    """Settings with SMTP at the sink and no database needed."""
    monkeypatch.setenv("TIMELYPUSH_VAR_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("TIMELYPUSH_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("TIMELYPUSH_SMTP_PORT", str(sink.port))
    monkeypatch.setenv("TIMELYPUSH_SMTP_SECURITY", "none")
    monkeypatch.setenv("TIMELYPUSH_URL_ALLOWLIST", "127.0.0.1")
    get_settings.cache_clear()
    yield sink
    get_settings.cache_clear()


def test_push_test_email_succeeds(smtp_only: SmtpSink) -> None:
    result = CliRunner().invoke(cli, ["push", "test", "--channel", "email", "--to", "a@b.cn"])
    assert result.exit_code == 0, result.output
    assert "ok: test message sent by email to a@b.cn" in result.output
    [msg] = smtp_only.messages
    assert msg["Subject"] == "[及时推] 测试消息"


def test_push_test_fails_clearly_when_smtp_is_down(smtp_only: SmtpSink) -> None:
    smtp_only.stop()
    result = CliRunner().invoke(cli, ["push", "test", "--channel", "email", "--to", "a@b.cn"])
    assert result.exit_code == 1
    assert "error: email delivery to a@b.cn failed: SMTP unavailable" in result.output


def test_push_test_webhook_and_bad_channel(smtp_only: SmtpSink, hook: HttpReceiver) -> None:
    ok = CliRunner().invoke(cli, ["push", "test", "--channel", "webhook", "--to", hook.url])
    assert ok.exit_code == 0, ok.output
    assert hook.requests[0].json()["type"] == "test"
    hook.default = 500
    bad = CliRunner().invoke(cli, ["push", "test", "--channel", "webhook", "--to", hook.url])
    assert bad.exit_code == 1 and "HTTP 500" in bad.output
    wrong = CliRunner().invoke(cli, ["push", "test", "--channel", "fax", "--to", "x"])
    assert wrong.exit_code == 2


def test_push_test_sms_unconfigured_fails(
    smtp_only: SmtpSink, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIMELYPUSH_SMS_PROVIDER", "twilio")
    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["push", "test", "--channel", "sms", "--to", "+861"])
    assert result.exit_code == 1 and "TIMELYPUSH_TWILIO_ACCOUNT_SID" in result.output


def test_push_run_processes_the_outbox(session: Session, push_env: SmtpSink) -> None:
    user = make_user(session)
    from app.services.delivery import enqueue_for_matches

    enqueue_for_matches(session, make_matches(session, add_concern(session, user), 2))
    session.commit()
    result = CliRunner().invoke(cli, ["push", "run"])
    assert result.exit_code == 0, result.output
    assert "deliveries processed: 1" in result.output
    assert len(push_env.messages) == 1


def test_account_email_goes_out_with_smtp(smtp_only: SmtpSink) -> None:
    subject, text, html = render_account_email(
        "verify", "zh", email="new@b.cn", link="http://t/verify/abc"
    )
    assert send_account_email(get_settings(), "new@b.cn", subject, text, html)
    [msg] = smtp_only.messages
    assert msg["Subject"] == "[及时推] 请验证您的邮箱"
    assert "http://t/verify/abc" in msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]


def test_account_email_without_smtp_logs_that_it_was_not_sent_never_the_link(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path,
    caplog: pytest.LogCaptureFixture,  # type: ignore[no-untyped-def]
) -> None:
    monkeypatch.setenv("TIMELYPUSH_VAR_DIR", str(tmp_path))
    monkeypatch.delenv("TIMELYPUSH_SMTP_HOST", raising=False)
    get_settings.cache_clear()
    settings = get_settings()
    get_settings.cache_clear()
    if settings.smtp_host:
        pytest.skip("an .env file configures SMTP")
    with caplog.at_level(logging.WARNING, logger="app.services.mailer"):
        sent = send_account_email(settings, "a@b.cn", "Reset", "http://t/reset/xyz")
    assert not sent
    assert "not sent" in caplog.text
    assert "http://t/reset/xyz" not in caplog.text and "a@b.cn" not in caplog.text
