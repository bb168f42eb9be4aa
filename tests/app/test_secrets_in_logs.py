"""No secret in the logs: reset links and codes, tokens, passwords, webhook secrets.

Two setups: the development default (no SMTP, the console SMS adapter), where nothing can be
delivered and so no reset is offered; and a real SMTP sink on loopback, where the whole reset
flow runs and every secret it handles is searched for in everything logged.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

import pytest
from fastapi.testclient import TestClient

from app.core.config import get_settings
from push import ConsoleSms, Message
from tests.push import fixtures
from tests.push.servers import SmtpSink

sink = fixtures.sink


@pytest.fixture
def app_client(settings_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    from app.main import create_app

    monkeypatch.delenv("TIMELYPUSH_SMTP_HOST", raising=False)
    monkeypatch.setenv("TIMELYPUSH_SMS_PROVIDER", "console")
    monkeypatch.setenv("TIMELYPUSH_URL_ALLOWLIST", "127.0.0.1,.example.com")
    get_settings.cache_clear()
    with TestClient(create_app()) as client:
        yield client


def _all_logged(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(r.getMessage() for r in caplog.records)


def test_console_mode_logs_no_link_and_offers_no_reset(
    app_client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    body = {"email": "alice@example.com", "password": "correct horse"}
    assert app_client.post("/api/v1/auth/register", json=body).status_code == 201
    # the development setup says so at start
    started = "\n".join(r.getMessage() for r in caplog.get_records("setup"))
    assert "DEVELOPMENT SETUP" in started and "TIMELYPUSH_SMS_PROVIDER=console" in started
    reset = app_client.post("/api/v1/auth/password-reset", json={"email": body["email"]})
    assert reset.status_code == 422 and reset.json()["error"]["code"] == "email_unavailable"
    sms = app_client.post("/api/v1/auth/password-reset/sms", json={"email": body["email"]})
    assert sms.status_code == 422 and sms.json()["error"]["code"] == "sms_unavailable"
    forgot = app_client.get("/forgot")
    assert 'action="/forgot"' not in forgot.text and "/forgot/sms" not in forgot.text
    logged = _all_logged(caplog)
    assert "token=" not in logged and "/verify-email" not in logged
    assert body["password"] not in logged


async def test_console_sms_never_logs_the_text(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    result = await ConsoleSms().send(Message(subject="", text="reset code: 493817"), "+8613800")
    assert result.ok
    logged = _all_logged(caplog)
    assert "493817" not in logged and "13800" not in logged[:-4]


def test_full_reset_flow_logs_no_secret(
    app_client: TestClient,
    sink: SmtpSink,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("TIMELYPUSH_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("TIMELYPUSH_SMTP_PORT", str(sink.port))
    monkeypatch.setenv("TIMELYPUSH_SMTP_SECURITY", "none")
    get_settings.cache_clear()
    caplog.set_level(logging.DEBUG)
    secrets: list[str] = []
    email, password = "alice@example.com", "correct horse"
    app_client.post("/api/v1/auth/register", json={"email": email, "password": password})
    login = app_client.post("/api/v1/auth/token", data={"username": email, "password": password})
    bearer = login.json()["access_token"]
    auth = {"Authorization": f"Bearer {bearer}"}
    secrets += [password, bearer]
    hook = app_client.patch(
        "/api/v1/me",
        headers=auth,
        json={"webhook_url": "https://hooks.example.com/in/s3cr3t-path", "webhook_enabled": True},
    )
    assert hook.status_code == 200
    secrets.append("s3cr3t-path")
    secrets.append(app_client.post("/api/v1/me/webhook-secret", headers=auth).json()["secret"])
    app_client.post("/api/v1/me/test/webhook", headers=auth)  # unreachable: logged, no secret
    assert app_client.post("/api/v1/auth/password-reset", json={"email": email}).status_code == 202
    mail: Any = sink.messages[-1]
    text = mail.get_body(("plain",)).get_content()
    link = re.search(r"https?://\S+", text).group(0)  # type: ignore[union-attr]
    token = unquote(link.split("token=")[-1])
    secrets += [link, token]
    new = "a brand new password"
    body = {"token": token, "new_password": new}
    assert app_client.post("/api/v1/auth/password-reset/confirm", json=body).status_code == 200
    secrets.append(new)
    logged = _all_logged(caplog) + "\n".join(str(r.args) for r in caplog.records)
    for secret in secrets:
        assert secret not in logged, f"{secret!r} was logged"


def test_a_webhooks_secret_url_and_the_links_tokens_stay_out_of_the_logs(
    app_client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    """The HTTP client logs each request's whole URL (a webhook's secret path and query) and
    the server each request's path (a feed's or an email link's token): neither reaches the
    log, whatever its level."""
    from tests.app.api.helpers import signup
    from tests.push.servers import HttpReceiver

    caplog.set_level(logging.DEBUG)
    hook = HttpReceiver()
    try:
        auth = signup(app_client, "alice@example.com")
        url = f"{hook.url}/hook/T000/SECRETPATH?token=SECRETQUERY"
        patched = app_client.patch(
            "/api/v1/me", headers=auth, json={"webhook_url": url, "webhook_enabled": True}
        )
        assert patched.status_code == 200, patched.text
        assert app_client.post("/api/v1/me/test/webhook", headers=auth).json()["ok"]
        assert hook.requests  # it was sent
    finally:
        hook.close()
    logged = _all_logged(caplog)
    assert "SECRETPATH" not in logged and "SECRETQUERY" not in logged
    # the server's access log: each process's server logger redacts the paths it logs
    from app.core.logging import RedactLinks

    access = logging.getLogger("uvicorn.access")
    assert any(isinstance(f, RedactLinks) for f in access.filters)
    for path, shown in (
        ("/feed/Qx7secrettoken.atom", "/feed/…"),
        ("/feed/Qx7secrettoken/concerns/3.atom", "/feed/…/concerns/3.atom"),
        ("/unsubscribe/eyJ1Ijoy.sig", "/unsubscribe/…"),
        ("/feedback/eyJtIjoy.sig", "/feedback/…"),
        ("/verify-email?token=abc.def&next=/", "/verify-email?token=…&next=/"),
    ):
        record = logging.LogRecord(
            "uvicorn.access",
            logging.INFO,
            "",
            0,
            '%s - "%s %s HTTP/%s" %d',
            ("127.0.0.1:5000", "GET", path, "1.1", 200),
            None,
        )
        for f in access.filters:
            f.filter(record)
        assert record.getMessage() == f'127.0.0.1:5000 - "GET {shown} HTTP/1.1" 200'
