"""👍 / 👎 in a real browser (headless Debian Chromium) at desktop and phone widths: the
verdict is recorded, shown as pressed, and can be cleared; the model's why is readable.
Screenshots go to ``$TIMELYPUSH_SCREENSHOT_DIR`` (docs/screenshots/ when regenerating them),
else a temp dir."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.app.web import test_browser
from tests.app.web.test_feedback import seldom_state

pytestmark = [pytest.mark.browser, pytest.mark.slow]

smtp, live = test_browser.smtp, test_browser.live


def _user_concern(db: Any, email: str, password: str, keywords: str) -> tuple[Any, Any]:
    """A verified user and one concern of theirs (not committed): (user, concern)."""
    from app.models import ConcernCreate, utcnow
    from app.services import auth, concerns

    user = auth.register_user(db, email=email, password=password)
    user.email_verified_at = utcnow()
    db.add(user)
    data = ConcernCreate(seed_url="http://127.0.0.1:9/sports/", keywords=keywords)
    return user, concerns.create_concern(db, user, data, probe=False)


def _seed(email: str, password: str, language: str = "zh") -> int:
    """A user (who reads ``language``) with a concern and one message the learned model
    pushed."""
    from sqlmodel import Session

    from app.core.db import get_engine
    from app.models import Match, Page

    with Session(get_engine(), expire_on_commit=False) as db:
        user, concern = _user_concern(db, email, password, "足球, 中超")
        user.language = language
        concern.learned_terms = {"恒大": 0.91, "联赛": 0.74, "主场": 0.52}
        db.add(concern)
        url = "https://sports.example.com/news/2026/1120.html"
        page = Page(canonical_url=url, final_url=url, title="中超第28轮前瞻：争冠悬念延续")
        db.add(page)
        db.flush()
        match = Match(
            concern_id=concern.id,  # type: ignore[arg-type]
            page_id=page.id,  # type: ignore[arg-type]
            user_id=user.id,  # type: ignore[arg-type]
            fingerprint="browser-feedback",
            score=0.83,
            probability=0.83,
            matched_keywords=["中超"],
            explanation={
                "method": "model",
                "probability": 0.83,
                "threshold": 0.65,
                "kind": "item",
                "kind_evidence": ["headline h1 = title"],
                "parts": {"literal": 0.9, "model": 0.4},
                "hits": [
                    {
                        "term": "中超",
                        "weight": 1.0,
                        "learned": False,
                        "where": {"title": 1, "body": 2},
                    },
                    {"term": "恒大", "weight": 0.9, "learned": True, "where": {"body": 3}},
                ],
                "learned": ["恒大", "联赛"],
                "model_warm": True,
                "feedback": 3,
                "site_area": 0.86,
            },
            title=page.title,
            url=url,
            snippet="中超联赛第28轮周末开战，积分榜前三名同日出战，争冠悬念延续到最后一轮。",
        )
        db.add(match)
        db.commit()
        assert match.id is not None
        return match.id


def _verdict(match_id: int) -> int | None:
    from sqlmodel import Session

    from app.core.db import get_engine
    from app.models import Match

    with Session(get_engine()) as db:
        match = db.get(Match, match_id)
        assert match is not None
        return match.feedback


def _signed_in(
    browser: Any, base: str, email: str, password: str, width: int, height: int
) -> tuple[Any, Any]:
    """A Chinese-speaking browser context of this size, signed in: (context, page)."""
    context = browser.new_context(
        locale="zh-CN",
        viewport={"width": width, "height": height},
        extra_http_headers={"Accept-Language": "zh-CN,zh;q=0.9"},
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(base + "/login")
    page.fill("#email", email)
    page.fill("#password", password)
    page.click("button[type=submit]:has-text('登录')")
    return context, page


def _shots(tmp_path: Path) -> Path:
    shots = Path(os.environ.get("TIMELYPUSH_SCREENSHOT_DIR") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    return shots


@contextmanager
def _chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=test_browser.CHROMIUM, args=test_browser.CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


def _at_both_widths(browser: Any, base: str, email: str, password: str) -> Iterator[Any]:
    """(page, width, "desktop" | "phone"): signed in at 1280 px, then at 375 px."""
    for width, height, name in ((1280, 860, "desktop"), (375, 812, "phone")):
        context, page = _signed_in(browser, base, email, password, width, height)
        try:
            yield page, width, name
        finally:
            context.close()


def test_why_it_matched_keeps_each_label_beside_its_value(
    live: dict[str, Any], tmp_path: Path
) -> None:
    shots = _shots(tmp_path)
    base = live["url"]
    email, password = "reader@example.com", "correct-horse-battery"
    # English labels are the long ones ("Learned terms that fired"): at a fixed label width
    # they wrapped, and every label below them sat one row above its value
    match_id = _seed(email, password, language="en")
    with _chromium() as browser:
        for page, width, name in _at_both_widths(browser, base, email, password):
            page.goto(f"{base}/messages/{match_id}")
            why = page.locator(".why")
            labels, values = why.locator("dt").all(), why.locator("dd").all()
            assert len(labels) == len(values) >= 5
            assert "Learned terms that fired" in why.inner_text()
            for label, value in zip(labels, values, strict=True):
                top, under = label.bounding_box(), value.bounding_box()
                assert top is not None and under is not None
                if name == "desktop":  # side by side, on one row
                    assert abs(top["y"] - under["y"]) < 6, label.inner_text()
                    assert top["x"] + top["width"] <= under["x"]
                else:  # the label above its value, inside the phone's width
                    assert top["y"] < under["y"] and under["x"] + under["width"] <= width
            why.screenshot(path=str(shots / f"why-{name}.png"))


def test_feedback_buttons_at_desktop_and_phone_widths(live: dict[str, Any], tmp_path: Path) -> None:
    from playwright.sync_api import expect

    shots = _shots(tmp_path)
    base = live["url"]
    email, password = "xiaohong@example.com", "correct-horse-battery"
    match_id = _seed(email, password)
    with _chromium() as browser:
        for page, width, name in _at_both_widths(browser, base, email, password):
            page.goto(f"{base}/messages/{match_id}")
            form = page.locator("#verdict")
            no = form.locator("button[value=not_relevant]")
            expect(no).to_have_attribute("aria-pressed", "false")
            expect(page.locator(".why")).to_contain_text("83%")
            expect(page.locator(".why-learned")).to_contain_text("恒大")
            expect(page.locator(".why-area")).to_contain_text("接近度 86%")
            no.click()
            expect(page.locator(".flash.success")).to_contain_text("已标为不相关")
            expect(page.locator("#verdict button[value=not_relevant]")).to_have_attribute(
                "aria-pressed", "true"
            )
            assert _verdict(match_id) == -1
            # every button is on screen, none wider than the phone
            for button in page.locator("#verdict button").all():
                box = button.bounding_box()
                assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
            page.screenshot(path=str(shots / f"message-feedback-{name}.png"), full_page=True)

            # the message list shows and changes the same verdict
            page.goto(base + "/messages")
            item = page.locator(f"article#m{match_id}")
            expect(item.locator("button[value=not_relevant]")).to_have_attribute(
                "aria-pressed", "true"
            )
            item.locator("button[value=clear]").click()
            expect(page).to_have_url(re.compile(rf"/messages#m{match_id}$"))
            expect(page.locator(".flash.success")).to_contain_text("评价已撤销")
            expect(page.locator(f"article#m{match_id} button[value=clear]")).to_have_count(0)
            assert _verdict(match_id) is None
            page.screenshot(path=str(shots / f"messages-feedback-{name}.png"), full_page=True)

            page.goto(f"{base}/concerns/1/report")
            expect(page.locator("#learned")).to_contain_text("恒大")
            page.locator("#learned").screenshot(path=str(shots / f"learned-{name}.png"))
            page.goto(f"{base}/concerns/1/edit")
            expect(page.locator("#sensitivity input[value=balanced]")).to_be_checked()
            page.locator("#advanced-judgment summary").click()
            expect(page.locator("#scorer")).to_have_value("model")
            page.locator("#concern-form").screenshot(path=str(shots / f"concern-form-{name}.png"))

        # the "not relevant" link of an email, opened on a phone without logging in
        from app.core.config import get_settings
        from app.services.feedback import feedback_url

        context = browser.new_context(
            locale="zh-CN",
            viewport={"width": 375, "height": 700},
            extra_http_headers={"Accept-Language": "zh-CN,zh;q=0.9"},
        )
        page = context.new_page()
        page.goto(feedback_url(get_settings(), match_id))
        expect(page.locator("#feedback-yes")).to_have_text("是的，不相关")
        page.screenshot(path=str(shots / "feedback-link-phone.png"), full_page=True)
        assert _verdict(match_id) is None
        page.click("#feedback-yes")
        expect(page.locator("#feedback-done")).to_contain_text("已标为不相关")
        assert _verdict(match_id) == -1
        page.screenshot(path=str(shots / "feedback-link-done-phone.png"), full_page=True)
        context.close()
    for name in ("desktop", "phone"):
        assert (shots / f"message-feedback-{name}.png").stat().st_size > 10_000


def test_why_nothing_was_learned_at_desktop_and_phone_widths(
    live: dict[str, Any], tmp_path: Path
) -> None:
    from playwright.sync_api import expect
    from sqlmodel import Session

    from app.core.db import get_engine

    shots = _shots(tmp_path)
    email, password = "xiaoming@example.com", "correct-horse-battery"
    with Session(get_engine(), expire_on_commit=False) as db:
        _, concern = _user_concern(db, email, password, "足球")
        # a visit read 200 pages and 2 printed 足球: no model was fitted
        concern.model_state = seldom_state(200, 2)
        db.add(concern)
        db.commit()
        concern_id = concern.id
    with _chromium() as browser:
        for page, width, name in _at_both_widths(browser, live["url"], email, password):
            page.goto(f"{live['url']}/concerns/{concern_id}/report")
            hint = page.locator("#sparse")
            expect(hint).to_contain_text("最近读过的 200 个页面中，只有 2 个")
            box = hint.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
            page.locator("#learned").screenshot(path=str(shots / f"learned-sparse-{name}.png"))
    for name in ("desktop", "phone"):
        assert (shots / f"learned-sparse-{name}.png").stat().st_size > 5_000
