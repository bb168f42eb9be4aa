"""A new user's first hour in a real browser (headless Debian Chromium), at 1280 px and at
375 px: register → verify from the mail the loopback SMTP sink received → add a concern with
synonyms → messages arrive → 👍 / 👎 → unsubscribe from the link in a received push email.

Every page fits its viewport (no sideways scroll) and the Chinese pages and mails carry no
English words (product and proper names, URLs and addresses aside). Screenshots go to
``$TIMELYPUSH_SCREENSHOT_DIR`` (docs/screenshots/ when regenerating them), else a temp dir.
"""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.app.test_i18n_catalogue import english_words
from tests.app.web import test_browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]

smtp, live = test_browser.smtp, test_browser.live

# names a Chinese page shows as they are: the language switch, products, standards
PAGE_NAMES = {"English", "Timely", "Push"}
_ADDRESS = re.compile(r"\S+@\S+|https?://\S+|\b\d+(?:\.\d+){3}(?::\d+)?\S*")


def _no_english(text: str, where: str) -> None:
    words = [w for w in english_words(_ADDRESS.sub(" ", text)) if w not in PAGE_NAMES]
    assert not words, f"{where}: English words on a Chinese page: {sorted(set(words))}"


def _check(page: Any, shots: Path, name: str, *, phone: bool) -> None:
    """No sideways scroll, tap targets on a phone, a screenshot, and Chinese only."""
    test_browser._look(page, shots, name, phone=phone)
    _no_english(page.locator("body").inner_text(), name)


def _mail_text(mail: Any) -> str:
    return str(mail.get_body(preferencelist=("plain",)).get_content())


def _push_the_matches(email: str) -> None:
    """What the outbox does after a crawl: enqueue the user's new matches and send them."""
    from sqlmodel import Session, col, select

    from app.core.db import get_engine
    from app.models import Match, User, utcnow
    from app.services import delivery

    with Session(get_engine(), expire_on_commit=False) as db:
        user = db.exec(select(User).where(User.email == email)).one()
        found = db.exec(
            select(Match).where(Match.user_id == user.id, col(Match.deleted_at).is_(None))
        ).all()
        assert delivery.enqueue_for_matches(db, found) >= 1
        db.commit()
    later = utcnow() + timedelta(minutes=10)  # past the grouping window
    for _ in range(20):
        if delivery.process_outbox(limit=100, now=later) == 0:
            break


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_first_hour_walk(live: dict[str, Any], tmp_path: Path, phone: bool) -> None:
    from playwright.sync_api import expect, sync_playwright

    shots = Path(os.environ.get("TIMELYPUSH_SCREENSHOT_DIR") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    base, inbox = live["url"], live["inbox"]
    email = f"walk-{'phone' if phone else 'desktop'}@example.com"
    suffix = "-phone" if phone else ""
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=test_browser.CHROMIUM,
            args=[
                *test_browser.CHROMIUM_ARGS,
                "--lang=zh-CN",
            ],  # date fields as a Chinese browser shows them
        )
        context = browser.new_context(
            locale="zh-CN",
            viewport=test_browser.PHONE if phone else test_browser.DESKTOP,
            extra_http_headers={"Accept-Language": "zh-CN,zh;q=0.9"},
        )
        page = context.new_page()
        page.set_default_timeout(15_000)

        # register; a bad address first: the error is Chinese and what was typed stays
        page.goto(base + "/register")
        page.fill("#email", "xiaoming@nodot")
        page.fill("#password", "correct-horse-battery")
        page.fill("#password2", "correct-horse-battery")
        page.click("button[type=submit]:has-text('注册')")
        expect(page.locator("body")).to_contain_text("请输入有效的邮箱地址")
        _check(page, shots, "walk-register-error", phone=phone)
        page.fill("#email", email)
        page.fill("#password", "correct-horse-battery")
        page.fill("#password2", "correct-horse-battery")
        page.click("button[type=submit]:has-text('注册')")
        expect(page.locator(".flash.success")).to_contain_text("验证链接已发送")
        _check(page, shots, "walk-registered", phone=phone)

        # verify with the link of the mail the SMTP sink received
        sent = len(inbox.messages)
        mail = inbox.wait(sent if sent else 1)
        assert mail["To"] == email and "验证" in str(mail["Subject"])
        body = _mail_text(mail)
        _no_english(body, "verification mail")
        link = re.search(r"http://127\.0\.0\.1:\d+/verify-email\?token=\S+", body)
        assert link is not None
        page.goto(link.group(0))
        expect(page.locator("h1")).to_have_text("邮箱已验证")
        _check(page, shots, "walk-verified", phone=phone)

        # a concern with synonyms; an address that is not a web page is refused in Chinese first
        page.goto(base + "/concerns/new")
        page.fill("#seed_url", "ftp://example.com/")
        page.fill("#keywords", "足球，中超")
        page.fill("#synonyms", "国足")
        page.click("button:has-text('保存')")
        expect(page.locator("body")).to_contain_text("网址无效")
        _check(page, shots, "walk-concern-error", phone=phone)
        page.fill("#seed_url", live["site"])
        page.click("button:has-text('保存')")
        expect(page.locator(".flash.success")).to_contain_text("关注已添加")
        _check(page, shots, "walk-concerns", phone=phone)
        page.click(".concern a:has-text('编辑')")
        expect(page.locator("#synonyms")).to_have_value("国足")

        # a visit finds pages: they show as messages and go out by email
        test_browser._simulate_crawl(email)
        mails_before = len(inbox.messages)
        _push_the_matches(email)
        pushed = inbox.wait(mails_before + 1)
        assert pushed["To"] == email and pushed["List-Unsubscribe"]
        text = _mail_text(pushed)
        _no_english(text, "push mail")
        page.goto(base + "/messages")
        expect(page.locator("article.msg")).to_have_count(3)
        first, second = page.locator("article.msg").nth(0), page.locator("article.msg").nth(1)
        first.locator("summary").click()
        expect(first.locator(".why")).to_contain_text("出现位置")
        _check(page, shots, "walk-messages", phone=phone)

        # 👍 on one, 👎 on another: both recorded and shown as pressed
        first.locator("button[value=relevant]").click()
        first = page.locator("article.msg").nth(0)
        expect(first.locator("button[value=relevant]")).to_have_attribute("aria-pressed", "true")
        expect(page.locator(".flash.success")).to_contain_text("已标为相关")
        second = page.locator("article.msg").nth(1)
        second.locator("button[value=not_relevant]").click()
        second = page.locator("article.msg").nth(1)
        expect(second.locator("button[value=not_relevant]")).to_have_attribute(
            "aria-pressed", "true"
        )
        expect(page.locator(".flash.success")).to_contain_text("已标为不相关")
        _check(page, shots, "walk-feedback", phone=phone)

        # unsubscribe from the link in the push mail, without being logged in
        unsubscribe = re.search(r"http://127\.0\.0\.1:\d+/unsubscribe/\S+", text)
        assert unsubscribe is not None
        context.clear_cookies()
        page.goto(unsubscribe.group(0))
        _check(page, shots, "walk-unsubscribe", phone=phone)
        page.click("#unsubscribe-confirm")
        expect(page.locator("h1")).to_have_text("您已退订")
        _check(page, shots, "walk-unsubscribed", phone=phone)
        context.close()
        browser.close()
    _assert_unsubscribed(email)
    for name in ("walk-verified", "walk-messages", "walk-feedback", "walk-unsubscribed"):
        assert (shots / f"{name}{suffix}.png").stat().st_size > 10_000


def _assert_unsubscribed(email: str) -> None:
    from sqlmodel import Session, select

    from app.core.db import get_engine
    from app.models import Match, User

    with Session(get_engine()) as db:
        user = db.exec(select(User).where(User.email == email)).one()
        assert user.email_enabled is False
        verdicts = sorted(
            m.feedback
            for m in db.exec(select(Match).where(Match.user_id == user.id)).all()
            if m.feedback
        )
        assert verdicts == [-1, 1]
