"""Details of the real pages in headless Chromium: what asks before it deletes, and what the
style sheet shows or hides at 1280 and 375 px."""

from __future__ import annotations

import os
from pathlib import Path
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


def _browser(p: Any, width: int = 1280, language: str = "zh") -> Any:
    browser = p.chromium.launch(
        executable_path=test_browser.CHROMIUM, args=test_browser.CHROMIUM_ARGS
    )
    locale = {"zh": "zh-CN", "en": "en-US"}[language]
    context = browser.new_context(
        locale=locale,
        viewport={"width": width, "height": 860 if width > 500 else 740},
        extra_http_headers={"Accept-Language": f"{locale},{language};q=0.9"},
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


# The controls of the pages before signing in: the form's button and links, and the link to
# the other form under it ("No account yet? Register").
_SIGN_IN = {"login": "/login", "register": "/register"}

# The controls of each list a reader works through with a thumb: page → the parts holding them.
_LISTS = {
    "messages": "#verify-notice, #bulk, .pager",
    "concerns": ".concern",
    "message": ".verdict, .actions, #deliveries",
    "report": "#learned",
    "settings": ".channel-list, #feeds, #tokens",
}

# Each control in ``parts`` whose tap area (a checkbox's: its label) is under 44 × 44 CSS px,
# whose area another element covers (the middle of its top, centre and bottom rows must land
# on the control itself), or which overlaps another control.
_TAP_AREAS = """parts => {
  const out = [], seen = new Set(), boxes = [];
  const sel = 'a[href], button, summary, select, input[type=checkbox], input[type=radio]';
  for (const part of document.querySelectorAll(parts)) {
    for (const el of part.querySelectorAll(sel)) {
      const target = el.matches('input') ? (el.closest('label') || el) : el;
      if (seen.has(target) || !target.getClientRects().length) continue;
      seen.add(target);
      target.scrollIntoView({block: 'center'});
      const r = target.getBoundingClientRect(), x = r.left + r.width / 2;
      const rows = [r.top + 1, r.top + r.height / 2, r.bottom - 1];
      const hit = rows.every(y => {
        const at = document.elementFromPoint(x, y);
        return at !== null && target.contains(at);
      });
      const y = window.scrollY;  // boxes on the page, wherever it is scrolled
      const box = {left: r.left, right: r.right, top: r.top + y, bottom: r.bottom + y};
      const overlaps = boxes.some(b => b.left < box.right - 0.5 && box.left < b.right - 0.5
        && b.top < box.bottom - 0.5 && box.top < b.bottom - 0.5);
      boxes.push(box);
      if (r.height < 44 - 0.5 || r.width < 44 - 0.5 || !hit || overlaps) {
        out.push(target.tagName + '.' + target.className + ' "'
          + (target.textContent || el.name).trim().slice(0, 20) + '" '
          + Math.round(r.width) + 'x' + Math.round(r.height) + (hit ? '' : ' covered')
          + (overlaps ? ' overlaps' : ''));
      }
    }
  }
  return out;
}"""


def _lists_to_tap(language: str) -> dict[str, str]:
    """A reader (email not yet confirmed, in ``language``) with three messages, one of them
    with a failed push, a concern with learned and removed words, a chat app, per-concern feed
    links and an API token; the address of each page holding their lists."""
    from sqlmodel import Session

    from app.core.db import get_engine
    from app.models import ApiToken, Concern, Delivery, PushChannel, User
    from app.services import feed

    data = _reader(3)
    first = data["matches"][0]
    with Session(get_engine(), expire_on_commit=False) as db:
        user = db.get(User, data["user"])
        user.email_verified_at = None
        user.language = language
        feed.feed_token(db, user)
        concern = db.get(Concern, data["concern"].id)
        concern.learned_terms = {"恒大": 0.91, "联赛": 0.74}
        concern.blocked_terms = ["彩票"]
        db.add_all([user, concern])
        db.add(
            Delivery(
                idempotency_key=f"i:{user.id}:webhook:{first}",
                user_id=user.id,
                match_id=first,
                match_ids=[first],
                channel="webhook",
                target="http://127.0.0.1:9/in",
                status="dead",
                attempts=8,
                last_error="webhook answered HTTP 500",
            )
        )
        db.add(PushChannel(user_id=user.id, name="球队群", url="ntfy://topic", service="ntfy"))
        db.add(ApiToken(user_id=user.id, name="phone", token_hash="not-a-real-token-hash"))
        db.commit()
    return {
        "messages": "/messages",
        "concerns": "/concerns",
        "message": f"/messages/{first}",
        "report": f"/concerns/{concern.id}/report",
        "settings": "/settings",
    }


@pytest.mark.parametrize("language", ["zh", "en"])
def test_every_action_in_a_list_is_a_44px_tap_target_on_a_phone(
    live: dict[str, Any], tmp_path: Path, language: str
) -> None:
    """At 375 px every link, button and checkbox in the lists — messages (their titles and
    checkboxes too), concerns, a message's pushes, the learned words of the report, and the
    settings' chat apps, feed links and API tokens — and on the login and register forms (the
    link to the other form too) is a tap area of at least 44 × 44 px that no other element
    covers; at 1280 px they keep their compact desktop size. Both widths fit without sideways
    scrolling, with a screenshot of each page."""
    from playwright.sync_api import sync_playwright

    shots = Path(os.environ.get("TIMELYPUSH_SCREENSHOT_DIR") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    base = live["url"]
    pages = _lists_to_tap(language)
    with sync_playwright() as p:
        for width in (375, 1280):
            browser, page = _browser(p, width, language)
            for name, path in _SIGN_IN.items():
                page.goto(base + path)
                assert page.locator("html").get_attribute("lang").startswith(language)
                test_browser._look(page, shots, f"{name}-{language}", phone=width < 500)
                if width < 500:
                    small = page.evaluate(_TAP_AREAS, "main .card")
                    assert not small, f"{name}: tap areas under 44 px or covered: {small}"
                else:  # the link to the other form stays a line of small print
                    height = page.locator(".switch a").bounding_box()["height"]
                    assert height < 30, f"{name}: the link to the other form grew: {height}"
            _log_in(page, base)
            for name, path in pages.items():
                page.goto(base + path)
                test_browser._look(page, shots, f"{name}-lists-{language}", phone=width < 500)
                if width < 500:
                    small = page.evaluate(_TAP_AREAS, _LISTS[name])
                    assert not small, f"{name}: tap areas under 44 px or covered: {small}"
                    if name == "messages":  # a tap beside the box, in its area, ticks it
                        page.locator(".msg .pick").first.click(position={"x": 2, "y": 2})
                        assert page.locator(".msg input[name=ids]").first.is_checked()
                else:  # the phone's sizes stay on the phone
                    tall = page.evaluate(
                        """parts => [...document.querySelectorAll(parts)].flatMap(p =>
                          [...p.querySelectorAll('.btn.small, a.title, a.concern-feed')])
                          .map(e => e.getBoundingClientRect().height).filter(h => h >= 40)""",
                        _LISTS[name],
                    )
                    assert not tall, f"{name}: desktop controls grew: {tall}"
            browser.close()
