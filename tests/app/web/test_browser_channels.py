"""Chat and push apps and Atom feed links on the real settings page, in headless Chromium at
1280 and 375 px: add an Apprise channel that points at a loopback receiver, press its test
button (the receiver gets the message), make the feed link and read the feed it names."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import feedparser
import pytest

from tests.app.web.test_browser import CHROMIUM, CHROMIUM_ARGS, live, smtp  # noqa: F401
from tests.push.servers import HttpReceiver

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def receiver() -> Iterator[HttpReceiver]:
    server = HttpReceiver()
    yield server
    server.close()


def _user(email: str) -> None:
    from sqlmodel import Session

    from app.core.db import get_engine
    from app.services import auth

    with Session(get_engine()) as db:
        auth.register_user(db, email=email, password="correct-horse-battery")
        db.commit()


def test_add_test_channel_and_follow_the_feed(
    live: dict[str, Any],  # noqa: F811
    receiver: HttpReceiver,
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect, sync_playwright

    shots = Path(os.environ.get("TIMELYPUSH_SCREENSHOT_DIR") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    base = live["url"]
    _user("xiaohong@example.com")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(
            locale="zh-CN",
            viewport={"width": 1280, "height": 860},
            extra_http_headers={"Accept-Language": "zh-CN,zh;q=0.9"},
        )
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.goto(base + "/login")
        page.fill("#email", "xiaohong@example.com")
        page.fill("#password", "correct-horse-battery")
        page.click("button[type=submit]")
        page.goto(base + "/settings#channels")
        expect(page.locator("#channels h2")).to_have_text("聊天与推送应用")

        page.fill("#channel_name", "钉钉群")
        page.fill("#channel_url", receiver.url.replace("http://", "json://") + "/bot")
        page.select_option("#channel_mode", "both")
        page.click("#channel-form button[type=submit]")
        expect(page.locator(".flash.success")).to_contain_text("推送渠道已添加")
        row = page.locator("li.push-channel")
        expect(row).to_have_count(1)
        expect(row).to_contain_text("钉钉群")

        row.locator("button:has-text('测试')").click()
        expect(page.locator(".flash.success")).to_contain_text("测试消息已发送")
        assert receiver.requests[-1].json()["title"] == "[及时推] 测试消息"

        page.click("#rotate-feed")
        expect(page.locator(".flash.success")).to_contain_text("订阅链接已生成")
        feed_url = page.locator("#feed-url").input_value()
        feed = page.request.get(feed_url)
        assert feed.ok and not feedparser.parse(feed.body()).bozo
        page.screenshot(path=str(shots / "settings-channels.png"), full_page=True)

        page.set_viewport_size({"width": 375, "height": 800})
        page.goto(base + "/settings#channels")
        # on a phone the channel and feed cards stay within the screen
        widest = page.evaluate(
            "Math.max(...[...document.querySelectorAll('#channels, #channels *, #feeds, #feeds *')]"
            ".map(e => e.getBoundingClientRect().right))"
        )
        page.screenshot(path=str(shots / "settings-channels-375.png"), full_page=True)
        assert widest <= 375, f"the channel cards reach {widest}px on a 375px screen"
        context.close()
        browser.close()
