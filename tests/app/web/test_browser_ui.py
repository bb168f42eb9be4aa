"""Details of the real pages in headless Chromium: what asks before it deletes, and what the
style sheet shows or hides at 1280 and 375 px."""

from __future__ import annotations

from typing import Any

import pytest

from tests.app.web import test_browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]

smtp, live = test_browser.smtp, test_browser.live
EMAIL = "xiaoli@example.com"
PASSWORD = "correct-horse-battery"


def _reader(matches: int = 3) -> dict[str, Any]:
    """A verified reader with a concern and ``matches`` messages; their ids."""
    from sqlmodel import Session

    from app.core.db import get_engine
    from app.models import utcnow
    from tests.factories import make_account, make_concern, make_match

    with Session(get_engine(), expire_on_commit=False) as db:
        user = make_account(db, EMAIL, PASSWORD, email_verified_at=utcnow())
        concern = make_concern(db, user)
        found = [make_match(db, concern, n, age_minutes=n) for n in range(matches)]
        return {"user": user.id, "concern": concern, "matches": [m.id for m in found]}


def _alive(match_id: int) -> bool:
    from sqlmodel import Session

    from app.core.db import get_engine
    from app.models import Match

    with Session(get_engine()) as db:
        match = db.get(Match, match_id)
        return match is not None and match.deleted_at is None


def _account_exists(user_id: int) -> bool:
    from sqlmodel import Session

    from app.core.db import get_engine
    from app.models import User

    with Session(get_engine()) as db:
        return db.get(User, user_id) is not None


def _log_in(page: Any, base: str) -> None:
    page.goto(base + "/login")
    page.fill("#email", EMAIL)
    page.fill("#password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(base + "/messages")


def _browser(p: Any, width: int = 1280) -> Any:
    browser = p.chromium.launch(
        executable_path=test_browser.CHROMIUM, args=test_browser.CHROMIUM_ARGS
    )
    context = browser.new_context(
        locale="zh-CN",
        viewport={"width": width, "height": 860 if width > 500 else 740},
        extra_http_headers={"Accept-Language": "zh-CN,zh;q=0.9"},
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    return browser, page


def test_deleting_a_message_or_the_account_asks_first(live: dict[str, Any]) -> None:
    from playwright.sync_api import expect, sync_playwright

    base = live["url"]
    data = _reader()
    first, second, third = data["matches"]
    asked: list[str] = []
    answer = {"accept": False}

    def on_dialog(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept() if answer["accept"] else dialog.dismiss()

    with sync_playwright() as p:
        browser, page = _browser(p)
        page.on("dialog", on_dialog)
        _log_in(page, base)

        # one message, from its page: cancelled, then confirmed
        page.goto(base + f"/messages/{first}")
        page.click("#delete-message")
        expect(page).to_have_url(base + f"/messages/{first}")
        assert asked == ["删除这条消息？"] and _alive(first)
        answer["accept"] = True
        page.click("#delete-message")
        page.wait_for_url(base + "/messages")
        assert not _alive(first)

        # the list's bulk delete asks; marking read does not
        asked.clear()
        page.check(f"input[name=ids][value='{second}']")
        page.click("#bulk button[value=read]")
        page.wait_for_load_state()
        assert asked == []
        answer["accept"] = False
        page.check(f"input[name=ids][value='{third}']")
        page.click("#bulk button[value=delete]")
        assert asked == ["删除选中的消息？"] and _alive(third)
        answer["accept"] = True
        page.click("#bulk button[value=delete]")
        expect(page.locator(f"#m{third}")).to_have_count(0)
        assert not _alive(third) and _alive(second)

        # the account: cancelled, it stays
        asked.clear()
        answer["accept"] = False
        page.goto(base + "/settings")
        page.fill("#delete_password", PASSWORD)
        page.click("#delete-form button[type=submit]")
        expect(page).to_have_url(base + "/settings")
        assert len(asked) == 1 and "无法撤销" in asked[0]
        assert _account_exists(data["user"])
        browser.close()


def test_more_filters_is_a_phone_button_only(live: dict[str, Any]) -> None:
    """On a desktop every filter shows and the "more filters" button does not; on a phone the
    button shows and unfolds them."""
    from playwright.sync_api import expect, sync_playwright

    base = live["url"]
    _reader(1)
    with sync_playwright() as p:
        for width in (1280, 375):
            browser, page = _browser(p, width)
            _log_in(page, base)
            toggle = page.locator("#filters .filters-toggle")
            if width > 500:
                expect(toggle).to_be_hidden()
                expect(page.locator("#keyword")).to_be_visible()
            else:
                expect(toggle).to_be_visible()
                expect(page.locator("#keyword")).to_be_hidden()
                toggle.click()
                expect(page.locator("#keyword")).to_be_visible()
            browser.close()


def test_a_failed_runs_chart_counts_pages_in_whole_numbers(live: dict[str, Any]) -> None:
    """A run that fetched nothing: the pages axis goes 0, 1, 2 …, not 0.1, 0.2 … 1.0."""
    from playwright.sync_api import expect, sync_playwright
    from sqlmodel import Session

    from app.core.db import get_engine
    from tests.factories import make_run

    base = live["url"]
    data = _reader(0)
    with Session(get_engine(), expire_on_commit=False) as db:
        make_run(db, data["concern"], 0, 0, status="failed", error="FetchTimeout: timed out")
    with sync_playwright() as p:
        browser, page = _browser(p)
        _log_in(page, base)
        page.goto(base + f"/concerns/{data['concern'].id}/report")
        expect(page.locator("#harvest-chart")).to_have_attribute("data-rendered", "1")
        ticks = page.evaluate(
            "Chart.getChart('harvest-chart').scales.pages.ticks.map(t => t.value)"
        )
        assert ticks and all(float(t).is_integer() for t in ticks) and max(ticks) >= 5, ticks
        browser.close()


def test_the_phone_menu_badge_is_styled_and_thumbs_keep_apart_from_their_labels(
    live: dict[str, Any],
) -> None:
    """At 375 px the unread count beside the menu button is the same orange pill as in the
    menu, and the 👍 / 👎 icons do not touch their words."""
    from playwright.sync_api import expect, sync_playwright

    base = live["url"]
    _reader(2)
    with sync_playwright() as p:
        browser, page = _browser(p, 375)
        _log_in(page, base)
        badge = page.locator(".menu-toggle .badge")
        expect(badge).to_have_text("2")
        look = "b => ['backgroundColor', 'color', 'borderRadius'].map(k => getComputedStyle(b)[k])"
        style = badge.evaluate(look)
        assert style == page.locator(".nav .badge").evaluate(look), style
        assert style[0] != "rgba(0, 0, 0, 0)", style
        button = page.locator(".msg .verdict button[value=relevant]").first
        gap = button.evaluate(
            """b => { const icon = b.querySelector('svg').getBoundingClientRect();
                const words = document.createRange();
                words.selectNodeContents([...b.childNodes].filter(n => n.nodeType === 3
                  && n.data.trim()).pop());
                return words.getBoundingClientRect().left - icon.right; }"""
        )
        assert gap >= 4, gap
        browser.close()


def test_a_dead_reset_link_in_the_fragment_says_so_at_once(live: dict[str, Any]) -> None:
    """The emailed link carries its token after #, which only the page sees: a used or forged
    one shows "link not valid" and no form; a good one the form."""
    from playwright.sync_api import expect, sync_playwright

    from app.core.config import get_settings
    from app.services.password_reset import make_password_reset_token

    base = live["url"]
    data = _reader(0)
    from sqlmodel import Session

    from app.core.db import get_engine
    from app.models import User

    with Session(get_engine()) as db:
        good = make_password_reset_token(get_settings(), db.get(User, data["user"]))
    with sync_playwright() as p:
        browser, page = _browser(p, 375)
        page.goto(base + "/reset-password#token=" + good[:-3] + "xyz")
        expect(page.locator("#reset-invalid")).to_be_visible()
        expect(page.locator("h1")).to_have_text("链接无效")
        expect(page.locator("#password")).to_be_hidden()
        page.goto("about:blank")  # a new load, not a jump within the page
        page.goto(base + "/reset-password#token=" + good)
        expect(page.locator("#password")).to_be_visible()
        page.wait_for_timeout(300)  # the check has answered
        expect(page.locator("#reset-invalid")).to_be_hidden()
        assert page.locator("#reset-token").input_value() == good
        browser.close()
