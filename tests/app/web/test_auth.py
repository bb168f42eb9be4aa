"""Account pages: register → verify, log in / out, forgotten password, CSRF, cookies."""

from __future__ import annotations

import re

import pytest

from tests.app.web.forms import csrf_of, log_in, new_client, post
from tests.factories import make_account


def test_start_page_sends_visitors_to_login(client):
    response = client.get("/")
    assert response.status_code == 303
    assert response.headers["location"] == "/login"


def test_login_page_is_chinese_by_default_and_english_on_request(client):
    zh = client.get("/login")
    assert zh.status_code == 200
    assert "登录" in zh.text and '<html lang="zh-CN">' in zh.text
    en = client.get("/login", headers={"Accept-Language": "en-US,en;q=0.9,zh;q=0.5"})
    assert "Log in" in en.text and "登录" not in en.text


def test_language_switch_is_remembered_for_visitors(client):
    client.get("/lang/en?next=/register")
    assert "Create your account" in client.get("/register").text
    client.get("/lang/zh?next=//evil.example")
    assert "创建账户" in client.get("/register").text


def test_register_logs_in_and_sends_a_verification_link(client, db):
    response = post(
        client,
        "/register",
        {
            "email": "new@example.com",
            "password": "password123",
            "password2": "password123",
        },
        page="/register",
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/concerns"
    page = client.get("/concerns")
    assert "new@example.com" in page.text
    assert "验证链接已发送到 new@example.com" in page.text

    from app.core.config import get_settings
    from app.services.auth import get_user_by_email
    from app.services.verification import make_email_verification_token

    user = get_user_by_email(db, email="new@example.com")
    token = make_email_verification_token(get_settings(), user)
    verified = client.get(f"/verify-email?token={token}")
    assert verified.status_code == 200 and "邮箱已验证" in verified.text
    db.refresh(user)
    assert user.email_verified_at is not None


@pytest.mark.parametrize(
    ("sent", "language", "kept"),
    [
        ("Europe/London", "zh-CN", "Europe/London"),  # the browser's zone, sent by app.js
        ("Mars/Olympus_Mons", "zh-CN", "Asia/Shanghai"),  # unknown: the language's default
        ("", "en-US", "UTC"),  # no script
    ],
)
def test_a_new_account_takes_the_browsers_time_zone(client, db, sent, language, kept):
    client.headers["Accept-Language"] = language
    fields = {"email": "tz@example.com", "password": "password123", "password2": "password123"}
    response = post(client, "/register", {**fields, "timezone": sent}, page="/register")
    assert response.status_code == 303
    from app.services.auth import get_user_by_email

    assert get_user_by_email(db, email="tz@example.com").timezone == kept


def test_the_forms_examples_are_in_the_readers_language(client, db, alice):
    log_in(client, alice.email)
    assert 'placeholder="足球, 中超"' in client.get("/concerns/new").text
    alice.language = "en"
    db.add(alice)
    db.commit()
    english = client.get("/concerns/new").text
    assert 'placeholder="football, Premier League"' in english
    assert "足球" not in english and "国家足球队" not in english


def test_the_language_picked_before_logging_in_stays_after_it(client, db, alice):
    assert alice.language == "zh"
    client.get("/lang/en?next=/login")
    assert "Log in" in client.get("/login").text
    log_in(client, alice.email)
    assert "My concerns" in client.get("/concerns").text
    db.refresh(alice)
    assert alice.language == "en"


def test_the_header_switches_a_signed_in_readers_language(client, db, alice):
    log_in(client, alice.email)
    page = client.get("/concerns")
    assert "我的关注" in page.text and 'value="en" lang="en" id="language">English<' in page.text
    switched = post(
        client, "/settings/language", {"language": "en", "next": "/concerns"}, page="/concerns"
    )
    assert switched.status_code == 303 and switched.headers["location"] == "/concerns"
    assert "My concerns" in client.get("/concerns").text
    db.refresh(alice)
    assert alice.language == "en"
    # without the form's token nothing changes
    bare = client.post("/settings/language", data={"language": "zh"}, follow_redirects=False)
    assert bare.status_code == 403
    db.refresh(alice)
    assert alice.language == "en"


def test_bad_verification_link_is_refused(client):
    response = client.get("/verify-email?token=forged")
    assert response.status_code == 400
    assert "验证链接无效或已过期" in response.text


def test_register_errors_keep_what_was_typed(client, alice):
    differ = post(
        client,
        "/register",
        {
            "email": "typed@example.com",
            "password": "password123",
            "password2": "other-pass",
        },
        page="/register",
    )
    assert differ.status_code == 422
    assert 'value="typed@example.com"' in differ.text and "两次输入的密码不一致" in differ.text
    assert "password123" not in differ.text
    taken = post(
        client,
        "/register",
        {
            "email": alice.email,
            "password": "password123",
            "password2": "password123",
        },
        page="/register",
    )
    assert taken.status_code == 409 and "该邮箱已经注册" in taken.text
    short = post(
        client,
        "/register",
        {
            "email": "x@example.com",
            "password": "short",
            "password2": "short",
        },
        page="/register",
    )
    assert short.status_code == 422 and "密码至少需要 8 个字符" in short.text


def test_login_rotates_the_session_and_logout_clears_it(client, alice):
    before = csrf_of(client)
    response = post(
        client, "/login", {"email": alice.email, "password": "password123", "next": "/settings"}
    )
    assert response.status_code == 303 and response.headers["location"] == "/settings"
    after = csrf_of(client, "/settings")
    assert after != before
    assert alice.email in client.get("/settings").text
    out = post(client, "/logout", page="/settings")
    assert out.status_code == 303 and out.headers["location"] == "/login"
    assert client.get("/messages").status_code == 303
    assert csrf_of(client) != after


def test_wrong_password_shows_an_error_and_keeps_the_email(client, alice):
    response = post(client, "/login", {"email": alice.email, "password": "wrong-password"})
    assert response.status_code == 401
    assert "邮箱或密码错误" in response.text and f'value="{alice.email}"' in response.text


def test_login_is_throttled_after_repeated_failures(client, alice, monkeypatch):
    from dataclasses import replace
    from datetime import timedelta

    from app.services import throttle

    slow = replace(throttle.DEFAULTS["login"], base_delay=timedelta(minutes=1))
    monkeypatch.setitem(throttle.DEFAULTS, "login", slow)
    monkeypatch.setattr(throttle, "_parsed", {})
    for _ in range(slow.attempts + 1):  # the free ones and the one the back-off lets through
        post(client, "/login", {"email": alice.email, "password": "wrong-password"})
    response = post(client, "/login", {"email": alice.email, "password": "password123"})
    assert response.status_code == 429 and "尝试次数过多" in response.text
    assert 0 < int(response.headers["retry-after"]) <= 60


def test_next_only_follows_local_paths(client, alice):
    response = post(
        client,
        "/login",
        {"email": alice.email, "password": "password123", "next": "https://evil.example/"},
    )
    assert response.headers["location"] == "/messages"


def test_pages_need_login_and_come_back_after_it(client, alice):
    response = client.get("/concerns/new")
    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=/concerns/new"


@pytest.mark.parametrize("token", [None, "wrong-token"])
def test_post_without_or_with_a_wrong_csrf_token_is_refused(alice_client, token):
    data = {"seed_url": "https://example.com/", "keywords": "足球"}
    if token:
        data["csrf_token"] = token
    response = alice_client.post("/concerns/new", data=data)
    assert response.status_code == 403
    assert "表单已失效" in response.text
    logout = alice_client.post("/logout", data={"csrf_token": token} if token else {})
    assert logout.status_code == 403


def test_anonymous_post_without_token_is_refused(client):
    response = client.post("/login", data={"email": "a@example.com", "password": "x" * 10})
    assert response.status_code == 403


def test_session_cookie_flags(client, alice):
    response = post(client, "/login", {"email": alice.email, "password": "password123"})
    cookie = response.headers["set-cookie"]
    assert "tp_session=" in cookie and "httponly" in cookie.lower()
    assert "samesite=lax" in cookie.lower() and "secure" not in cookie.lower()


def test_secure_cookies_setting_marks_the_cookie_secure(web_env, monkeypatch):
    from app.core.config import get_settings
    from app.main import create_app

    monkeypatch.setenv("TIMELYPUSH_SECURE_COOKIES", "true")
    get_settings.cache_clear()
    client = new_client(create_app())
    response = client.get("/login")
    assert "secure" in response.headers["set-cookie"].lower()
    # unset, the public address decides: an https service sends its cookie over https only
    monkeypatch.delenv("TIMELYPUSH_SECURE_COOKIES")
    for base, secure in (("https://push.example.com", True), ("http://127.0.0.1:8000", False)):
        monkeypatch.setenv("TIMELYPUSH_BASE_URL", base)
        get_settings.cache_clear()
        cookie = new_client(create_app()).get("/login").headers["set-cookie"].lower()
        assert ("; secure" in cookie) is secure, (base, cookie)
    get_settings.cache_clear()


def test_password_reset_link_works_once(client, db, alice):
    from app.core.config import get_settings
    from app.services.password_reset import make_password_reset_token

    sent = post(client, "/forgot", {"email": alice.email}, page="/forgot")
    # post/redirect/get: reloading the notice asks for no second mail
    assert sent.status_code == 303 and sent.headers["location"] == "/forgot/sent"
    notice = client.get("/forgot/sent")
    assert notice.status_code == 200 and "请查收邮件" in notice.text and alice.email in notice.text
    token = make_password_reset_token(get_settings(), alice)
    form = client.get(f"/reset-password?token={token}")
    assert form.status_code == 200 and token in form.text
    done = post(
        client,
        "/reset-password",
        {"token": token, "password": "brand-new-pass", "password2": "brand-new-pass"},
        page="/forgot",
    )
    assert done.status_code == 303 and done.headers["location"] == "/login"
    again = post(
        client,
        "/reset-password",
        {"token": token, "password": "another-pass1", "password2": "another-pass1"},
        page="/forgot",
    )
    assert again.status_code == 422 and "链接无效、已过期或已被使用" in again.text
    log_in(client, alice.email, "brand-new-pass")


def test_a_dead_reset_link_says_so_before_the_form_is_filled_in(client, db, alice):
    from app.core.config import get_settings
    from app.services.password_reset import make_password_reset_token

    token = make_password_reset_token(get_settings(), alice)
    for bad in ("bad", token[:-3] + "xyz"):
        page = client.get(f"/reset-password?token={bad}")
        assert page.status_code == 400 and "链接无效" in page.text
        assert 'name="password"' not in page.text and 'href="/forgot"' in page.text
    # the check the page's script makes for a token in the fragment: in the body, with CSRF
    check = post(client, "/reset-password/check", {"token": token}, page="/forgot")
    assert check.status_code == 200 and check.json() == {"valid": True}
    assert post(client, "/reset-password/check", {"token": "bad"}, page="/forgot").json() == {
        "valid": False
    }
    assert client.post("/reset-password/check", data={"token": token}).status_code == 403
    post(
        client,
        "/reset-password",
        {"token": token, "password": "brand-new-pass", "password2": "brand-new-pass"},
        page="/forgot",
    )
    used = client.get(f"/reset-password?token={token}")  # used once: dead
    assert used.status_code == 400 and 'name="password"' not in used.text
    assert post(client, "/reset-password/check", {"token": token}, page="/forgot").json() == {
        "valid": False
    }


def test_password_reset_logs_out_other_browsers(app, client, db, alice, alice_client):
    from app.core.config import get_settings
    from app.services.password_reset import make_password_reset_token

    token = make_password_reset_token(get_settings(), alice)
    post(
        client,
        "/reset-password",
        {"token": token, "password": "brand-new-pass", "password2": "brand-new-pass"},
        page="/forgot",
    )
    assert alice_client.get("/settings").status_code == 303


def test_sms_reset_is_offered_only_when_configured(client, monkeypatch, db):
    assert "/forgot/sms" not in client.get("/forgot").text
    from app.core.config import get_settings

    monkeypatch.setenv("TIMELYPUSH_SMS_PROVIDER", "console")  # delivers nothing: not offered
    get_settings.cache_clear()
    assert "/forgot/sms" not in client.get("/forgot").text
    for name, value in {
        "SMS_PROVIDER": "twilio",
        "TWILIO_ACCOUNT_SID": "AC0",
        "TWILIO_AUTH_TOKEN": "not-a-token",
        "TWILIO_FROM": "+15550000",
    }.items():
        monkeypatch.setenv(f"TIMELYPUSH_{name}", value)
    get_settings.cache_clear()
    assert "/forgot/sms" in client.get("/forgot").text


def test_sms_code_reset_rejects_a_wrong_code(client, db):
    make_account(db, "phone@example.com", phone="+8613800138000")
    response = post(
        client,
        "/reset-password/sms",
        {
            "email": "phone@example.com",
            "code": "000000",
            "password": "brand-new-pass",
            "password2": "brand-new-pass",
        },
        page="/reset-password/sms?email=phone@example.com",
    )
    assert response.status_code == 422
    assert "验证码错误或已过期" in response.text
    assert re.search(r'value="phone@example.com"', response.text)


def test_html_pages_carry_security_headers(client):
    headers = client.get("/login").headers
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"
    assert "script-src 'self'" in headers["content-security-policy"]
    assert "frame-ancestors 'none'" in headers["content-security-policy"]


def test_a_cookie_replayed_after_logout_is_refused(app, client, alice):
    log_in(client, alice.email)
    assert client.get("/settings").status_code == 200
    stolen = dict(client.cookies)
    assert post(client, "/logout", page="/settings").status_code == 303
    thief = new_client(app)
    thief.cookies.update(stolen)
    response = thief.get("/settings")
    assert response.status_code == 303 and response.headers["location"].startswith("/login")


def test_password_change_ends_other_browsers_and_api_tokens(app, db, alice):
    from sqlmodel import select

    from app.models import ApiToken
    from app.services import tokens

    here, there = new_client(app), new_client(app)
    log_in(here, alice.email)
    log_in(there, alice.email)
    plaintext, _ = tokens.issue_token(db, alice, name="phone")
    db.commit()
    api = {"Authorization": f"Bearer {plaintext}"}
    assert here.get("/api/v1/me", headers=api).status_code == 200
    changed = post(
        here,
        "/settings/password",
        {
            "current_password": "password123",
            "password": "a new one 123",
            "password2": "a new one 123",
        },
        page="/settings",
    )
    assert changed.status_code == 303
    assert here.get("/settings").status_code == 200  # this browser stays in
    assert there.get("/settings").status_code == 303  # the other one is out
    assert here.get("/api/v1/me", headers=api).status_code == 401
    db.expire_all()
    assert all(t.revoked_at for t in db.exec(select(ApiToken)))


def test_reset_links_keep_the_token_out_of_requests(client, db, alice, monkeypatch):
    """The emailed link has the token in the fragment; the page's script fills the form."""
    from app.core.config import get_settings
    from app.services import account_messages, password_reset

    sent = []
    monkeypatch.setattr(
        account_messages, "send_email", lambda s, to, subject, text, html=None: sent.append(text)
    )
    password_reset.request_password_reset(db, get_settings(), email=alice.email)
    [text] = sent
    assert "/reset-password#token=" in text and "?token=" not in text
    page = client.get("/reset-password")
    assert 'id="reset-token" name="token" value=""' in page.text
    assert '<script src="/static/js/reset.js"></script>' in page.text
    assert "location.hash" in client.get("/static/js/reset.js").text
