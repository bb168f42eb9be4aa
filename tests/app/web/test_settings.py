"""Settings: profile, language, push preferences, webhook secret shown once, API tokens."""

from __future__ import annotations

import re

import pytest

from tests.app.web.forms import post
from tests.factories import PASSWORD


def test_settings_page(alice_client, alice):
    page = alice_client.get("/settings")
    assert page.status_code == 200
    assert "个人资料" in page.text and "推送偏好" in page.text and "API 令牌" in page.text
    assert 'value="Asia/Shanghai" selected' in page.text


def test_profile_language_switches_the_ui(alice_client, db, alice):
    response = post(
        alice_client,
        "/settings/profile",
        {
            "email": alice.email,
            "phone": "+86 138 0013 8000",
            "timezone": "Europe/Berlin",
            "language": "en",
        },
        page="/settings",
    )
    assert response.status_code == 303
    db.refresh(alice)
    assert alice.language == "en" and alice.timezone == "Europe/Berlin"
    assert alice.phone == "+8613800138000"
    page = alice_client.get("/settings", headers={"Accept-Language": "zh-CN"})
    assert "Profile saved." in page.text and "Push preferences" in page.text
    assert "个人资料" not in page.text


def test_bad_profile_input_is_explained_and_kept(alice_client, db, alice):
    response = post(
        alice_client,
        "/settings/profile",
        {
            "email": alice.email,
            "phone": "call me",
            "timezone": "Asia/Shanghai",
            "language": "zh",
        },
        page="/settings",
    )
    assert response.status_code == 422
    assert "请输入带国家代码的手机号" in response.text and 'value="call me"' in response.text
    db.refresh(alice)
    assert alice.phone is None


def test_a_new_email_address_takes_the_current_password(alice_client, db, alice):
    form = {"email": "mallory@example.com", "timezone": "Asia/Shanghai", "language": "zh"}
    refused = post(alice_client, "/settings/profile", form, page="/settings")
    assert refused.status_code == 422
    # said at the profile's own password box, and the address typed is kept
    box = refused.text.index('id="email_password"')
    assert "修改邮箱地址需要输入当前密码" in refused.text[box : box + 600]
    assert 'value="mallory@example.com"' in refused.text
    db.refresh(alice)
    assert alice.email != "mallory@example.com"
    done = post(
        alice_client,
        "/settings/profile",
        {**form, "email": "alice2@example.com", "email_password": PASSWORD},
        page="/settings",
    )
    assert done.status_code == 303
    db.refresh(alice)
    assert alice.email == "alice2@example.com" and alice.email_verified_at is None


def test_push_preferences(alice_client, db, alice):
    response = post(
        alice_client,
        "/settings/push",
        {
            "push_mode": "digest",
            "digest_time": "07:30",
            "quiet_start": "22:00",
            "quiet_end": "07:00",
            "email_enabled": "1",
        },
        page="/settings",
    )
    assert response.status_code == 303
    db.refresh(alice)
    assert (alice.push_mode, alice.digest_time, alice.quiet_start, alice.quiet_end) == (
        "digest",
        "07:30",
        "22:00",
        "07:00",
    )
    assert alice.email_enabled and not alice.sms_enabled
    bad = post(
        alice_client,
        "/settings/push",
        {"push_mode": "both", "digest_time": "25:00"},
        page="/settings",
    )
    assert bad.status_code == 422 and "请按“时:分”输入时间" in bad.text
    sms = post(
        alice_client,
        "/settings/push",
        {"push_mode": "both", "digest_time": "08:00", "sms_enabled": "1"},
        page="/settings",
    )
    assert sms.status_code == 422
    db.refresh(alice)
    assert alice.sms_enabled is False and alice.push_mode == "digest"


def test_webhook_secret_is_shown_once(alice_client, db, alice):
    rotated = post(alice_client, "/settings/webhook/rotate", page="/settings")
    # post/redirect/get: the browser lands on a GET page, so a reload does not rotate again
    assert rotated.status_code == 303 and rotated.headers["location"] == "/settings#webhook"
    page = alice_client.get("/settings")
    assert page.headers["cache-control"] == "no-store"
    db.refresh(alice)
    assert alice.webhook_secret and alice.webhook_secret in page.text
    assert alice.webhook_secret not in rotated.headers.get("set-cookie", "")
    reloaded = alice_client.get("/settings")
    assert alice.webhook_secret not in reloaded.text
    db.refresh(alice)
    assert alice.webhook_secret in page.text  # the reload changed nothing
    old = alice.webhook_secret
    post(alice_client, "/settings/webhook/rotate", page="/settings")
    again = alice_client.get("/settings")
    db.refresh(alice)
    assert alice.webhook_secret != old and alice.webhook_secret in again.text


def test_webhook_url_goes_through_the_guard(alice_client, db, alice):
    response = post(
        alice_client, "/settings/webhook", {"webhook_url": "http://10.1.2.3/hook"}, page="/settings"
    )
    assert response.status_code == 422 and "不能使用这个地址" in response.text
    ok = post(
        alice_client,
        "/settings/webhook",
        {"webhook_url": "http://127.0.0.1:9/hook"},
        page="/settings",
    )
    assert ok.status_code == 303
    db.refresh(alice)
    assert alice.webhook_url == "http://127.0.0.1:9/hook"


def test_api_tokens_listed_and_revoked(alice_client, bob_client, db, alice, bob):
    from app.services import tokens

    _, mine = tokens.issue_token(db, alice, name="iPhone")
    _, theirs = tokens.issue_token(db, bob, name="Pixel")
    db.commit()
    page = alice_client.get("/settings")
    assert "iPhone" in page.text and "Pixel" not in page.text
    assert (
        post(bob_client, f"/settings/tokens/{mine.id}/revoke", page="/settings").status_code == 404
    )
    # another user can neither extend it; its owner can
    before = mine.expires_at
    assert (
        post(bob_client, f"/settings/tokens/{mine.id}/refresh", page="/settings").status_code == 404
    )
    db.refresh(mine)
    assert mine.expires_at == before
    assert (
        post(alice_client, f"/settings/tokens/{mine.id}/refresh", page="/settings").status_code
        == 303
    )
    assert (
        post(alice_client, f"/settings/tokens/{mine.id}/revoke", page="/settings").status_code
        == 303
    )
    db.refresh(mine)
    db.refresh(theirs)
    assert mine.revoked_at is not None and theirs.revoked_at is None


def test_change_password_keeps_this_browser_and_logs_out_others(app, alice_client, db, alice):
    from tests.app.web.forms import log_in, new_client

    other = new_client(app)
    log_in(other, alice.email)
    wrong = post(
        alice_client,
        "/settings/password",
        {
            "current_password": "not-it-at-all",
            "password": "brand-new-pass",
            "password2": "brand-new-pass",
        },
        page="/settings",
    )
    assert wrong.status_code == 403 and "当前密码不正确" in wrong.text
    ok = post(
        alice_client,
        "/settings/password",
        {
            "current_password": "password123",
            "password": "brand-new-pass",
            "password2": "brand-new-pass",
        },
        page="/settings",
    )
    assert ok.status_code == 303
    assert "密码已修改" in alice_client.get("/settings").text
    assert other.get("/settings").status_code == 303
    log_in(new_client(app), alice.email, "brand-new-pass")


def test_unverified_users_can_ask_for_the_link_again(alice_client):
    page = alice_client.get("/settings")
    assert "重新发送验证链接" in page.text
    response = post(alice_client, "/verify/resend", page="/settings")
    assert response.status_code == 303 and response.headers["location"] == "/settings"
    assert "验证链接已发送到" in alice_client.get("/settings").text


def test_test_a_channel_sends_now_and_says_what_happened(alice_client, db, alice):
    from tests.push.fixtures import verify_signature
    from tests.push.servers import HttpReceiver

    hook = HttpReceiver()
    try:
        post(alice_client, "/settings/webhook", {"webhook_url": hook.url + "/in"}, page="/settings")
        sent = post(alice_client, "/settings/test/webhook", page="/settings")
        assert sent.status_code == 303
        assert "测试消息已发送" in alice_client.get("/settings").text
        assert len(hook.requests) == 1 and hook.requests[0].json()["type"] == "test"
        db.refresh(alice)
        assert alice.webhook_secret  # created for the signature
        # a rotated secret signs too (the one shown to the user verifies the request)
        post(alice_client, "/settings/webhook/rotate", page="/settings")
        db.refresh(alice)
        post(alice_client, "/settings/test/webhook", page="/settings")
        assert "测试消息已发送" in alice_client.get("/settings").text
        last = hook.requests[-1]
        assert len(hook.requests) == 2
        assert verify_signature(alice.webhook_secret, last.headers, last.body)
    finally:
        hook.close()
    # no phone number: the failure is shown, nothing is sent
    post(alice_client, "/settings/test/sms", page="/settings")
    assert "测试失败" in alice_client.get("/settings").text
    assert post(alice_client, "/settings/test/pigeon", page="/settings").status_code == 404


def test_download_data_and_delete_account_from_the_dashboard(alice_client, client, alice):
    exported = alice_client.get("/settings/export")
    assert exported.status_code == 200
    assert "attachment" in exported.headers["content-disposition"]
    assert exported.json()["profile"]["email"] == alice.email
    wrong = post(alice_client, "/settings/delete", {"delete_password": "nope"}, page="/settings")
    assert wrong.status_code == 403 and "当前密码不正确" in wrong.text
    done = post(
        alice_client, "/settings/delete", {"delete_password": "password123"}, page="/settings"
    )
    assert done.status_code == 303 and done.headers["location"] == "/login"
    assert "您的账户及全部数据已删除" in alice_client.get("/login").text
    failed = post(client, "/login", {"email": alice.email, "password": "password123"})
    assert failed.status_code == 401


def test_api_tokens_show_when_they_expire(alice_client, db, alice):
    from datetime import UTC, datetime

    from app.services import tokens

    _, phone = tokens.issue_token(db, alice, name="iPhone")
    _, laptop = tokens.issue_token(db, alice, name="Laptop")
    laptop.expires_at = datetime(2027, 3, 1, 4, 0, tzinfo=UTC)  # 12:00 in Shanghai
    db.add(laptop)
    db.commit()
    page = alice_client.get("/settings").text
    expiries = re.findall(r'<td data-label="到期时间" class="expires">(.*?)</td>', page)
    by_name = dict(
        zip(re.findall(r'<td data-label="名称">(.*?)</td>', page), expiries, strict=True)
    )
    assert by_name["Laptop"] == "2027-03-01 12:00"
    if phone.expires_at is None:
        assert by_name["iPhone"] == "不过期（直到吊销）"
    else:  # tokens issued with a lifetime show its end in the user's time zone
        from zoneinfo import ZoneInfo

        local = phone.expires_at.astimezone(ZoneInfo("Asia/Shanghai"))
        assert by_name["iPhone"] == local.strftime("%Y-%m-%d %H:%M")


# A value the API's model refuses, on each settings form: the form's path and fields, the
# field the message goes next to, the longest text allowed, and the same value for the API.
TOO_LONG = [
    ("/settings/profile", {"timezone": "Asia/" + "x" * 60}, "timezone", 64,
     ("PATCH", "/api/v1/me", {"timezone": "Asia/" + "x" * 60})),
    ("/settings/profile", {"phone": "1" * 33}, "phone", 32,
     ("PATCH", "/api/v1/me", {"phone": "1" * 33})),
    ("/settings/webhook", {"webhook_url": "https://example.com/" + "a" * 2030}, "webhook_url", 2048,
     ("PATCH", "/api/v1/me", {"webhook_url": "https://example.com/" + "a" * 2030})),
    ("/settings/channels", {"channel_name": "群" * 101, "channel_url": "json://127.0.0.1/bot"},
     "channel_name", 100,
     ("POST", "/api/v1/me/channels", {"name": "群" * 101, "url": "json://127.0.0.1/bot"})),
]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "fields", "field", "n", "api"), TOO_LONG, ids=[t[2] for t in TOO_LONG]
)
def test_a_value_the_api_refuses_is_explained_next_to_its_field(
    app, alice_client, db, alice, path, fields, field, n, api
):
    from fastapi.testclient import TestClient
    from sqlmodel import select

    from app.models import PushChannel

    profile = {"email": alice.email, "timezone": "Asia/Shanghai", "language": "zh"}
    for language, expected in (
        ("zh", f"最多只能输入 {n} 个字符。"),
        ("en", f"Enter at most {n} characters."),
    ):
        alice.language = language
        db.add(alice)
        db.commit()
        form = {**profile, **fields} if path == "/settings/profile" else fields
        response = post(alice_client, path, {**form, "language": language}, page="/settings")
        assert response.status_code == 422, response.text
        start = response.text.index(f'id="{field}"')
        end = response.text.find("</div>", response.text.find("field-error", start))
        assert f'<div class="field-error">{expected}</div>' in response.text[start : end + 6]
    db.refresh(alice)
    assert (alice.timezone, alice.phone, alice.webhook_url) == ("Asia/Shanghai", None, None)
    assert db.exec(select(PushChannel)).all() == []
    method, api_path, body = api
    with TestClient(app) as api_client:
        api_client.post(
            "/api/v1/auth/register", json={"email": "carol@example.com", "password": "long enough"}
        )
        token = api_client.post(
            "/api/v1/auth/token", data={"username": "carol@example.com", "password": "long enough"}
        ).json()["access_token"]
        resp = api_client.request(
            method, api_path, headers={"Authorization": f"Bearer {token}"}, json=body
        )
        assert resp.status_code == 422, resp.text
        assert resp.json()["error"]["code"] == "validation_error"
    assert db.exec(select(PushChannel)).all() == []


def test_a_webhook_that_answered_410_says_so_until_its_url_is_saved_again(alice_client, db, alice):
    from app.models import utcnow

    alice.webhook_url, alice.webhook_enabled = "http://127.0.0.1:9/hook", True
    alice.webhook_disabled_at = utcnow()
    db.add(alice)
    db.commit()
    page = alice_client.get("/settings")
    assert 'id="webhook-gone"' in page.text and "410" in page.text
    # saving the push preferences with the box as it was leaves it stopped
    form = {"push_mode": "instant", "digest_time": "08:00", "webhook_enabled": "1"}
    assert post(alice_client, "/settings/push", form, page="/settings").status_code == 303
    db.refresh(alice)
    assert alice.webhook_disabled_at is not None
    saved = post(
        alice_client, "/settings/webhook", {"webhook_url": alice.webhook_url}, page="/settings"
    )
    assert saved.status_code == 303
    db.refresh(alice)
    assert alice.webhook_disabled_at is None
    assert 'id="webhook-gone"' not in alice_client.get("/settings").text


@pytest.mark.parametrize(
    ("path", "fields", "card"),
    [
        ("/settings/password", {"current_password": "not-it", "password": "brand-new-pass",
                                "password2": "brand-new-pass"}, "password-form"),
        ("/settings/password", {"current_password": PASSWORD, "password": "brand-new-pass",
                                "password2": "other-new-pass"}, "password-form"),
        ("/settings/delete", {"delete_password": "nope"}, "your-data"),
        ("/settings/webhook", {"webhook_url": "http://10.0.0.1/hook"}, "webhook"),
        ("/settings/channels", {"channel_url": "not a url at all"}, "channels"),
    ],
    ids=["wrong-password", "passwords-differ", "delete", "webhook", "channel"],
)  # fmt: skip
def test_an_error_far_down_the_page_is_summed_up_at_its_top(alice_client, path, fields, card):
    response = post(alice_client, path, fields, page="/settings")
    assert response.status_code >= 400
    page = response.text
    summary = page.index('id="error-summary"')
    assert summary < page.index('id="profile-form"')  # before the first card, seen at once
    assert "没有做任何更改" in page[summary:]
    item = page[summary : page.index("</div>", summary)]
    assert f'href="#{card}"' in item
    field_error = re.search(r'<div class="field-error">([^<]+)</div>', page)
    assert field_error and field_error.group(1) in item


def test_a_page_without_errors_has_no_summary(alice_client):
    assert 'id="error-summary"' not in alice_client.get("/settings").text


def test_a_failed_test_message_says_why_in_the_readers_language(alice_client, db, alice):
    post(alice_client, "/settings/test/sms", page="/settings")  # no phone number
    page = alice_client.get("/settings").text
    assert "测试失败：您的个人资料中没有这个渠道的地址。" in page
    assert "no sms address" not in page
    post(
        alice_client,
        "/settings/webhook",
        {"webhook_url": "http://127.0.0.1:9/in"},
        page="/settings",
    )
    post(alice_client, "/settings/test/webhook", page="/settings")  # nothing listens on port 9
    page = alice_client.get("/settings").text
    assert "测试失败：无法连接到接收方。" in page and "unreachable" not in page


def test_without_an_sms_provider_sms_is_not_offered(alice_client, db, alice, outbox, monkeypatch):
    """A server that cannot send SMS offers no SMS box, no SMS test and no banner asking to
    confirm a phone number it has no way to confirm; with a provider, all three are there."""
    from app.core.config import get_settings

    alice.phone, alice.sms_enabled = "+8613800138000", True
    db.add(alice)
    db.commit()
    page = alice_client.get("/settings").text
    messages = alice_client.get("/messages").text
    assert 'name="sms_enabled"' in page and 'id="test-sms"' in page
    assert "确认手机号" in page and "在设置中确认手机号后" in messages
    monkeypatch.setenv("TIMELYPUSH_SMS_PROVIDER", "none")
    get_settings.cache_clear()
    page = alice_client.get("/settings").text
    messages = alice_client.get("/messages").text
    # the box of a user who had ticked it stays, so that it can be unticked
    assert 'name="sms_enabled"' in page
    assert 'id="test-sms"' not in page and "确认手机号" not in page
    assert "在设置中确认手机号后" not in messages
    alice.sms_enabled = False
    db.add(alice)
    db.commit()
    assert 'name="sms_enabled"' not in alice_client.get("/settings").text
