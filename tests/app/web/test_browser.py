"""The real pages in headless Debian Chromium (Playwright): register → verify (the link is
read from a mail really sent to a loopback SMTP server) → add a concern (a loopback site) →
see a match arrive → mark it read → log out. Screenshots of the main pages are written to
``$TIMELYPUSH_SCREENSHOT_DIR`` (docs/screenshots/ when regenerating them), else a temp dir.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Inbox:
    """aiosmtpd handler keeping every received message."""

    def __init__(self) -> None:
        self.messages: list[Any] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.content, policy=policy.default))
        return "250 OK"

    def wait(self, count: int, timeout: float = 20.0) -> Any:
        deadline = time.monotonic() + timeout
        while len(self.messages) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(self.messages) >= count, "no mail arrived"
        return self.messages[count - 1]


@pytest.fixture
def smtp() -> Iterator[tuple[int, _Inbox]]:
    from aiosmtpd.controller import Controller

    inbox = _Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=_free_port())
    controller.start()
    yield controller.port, inbox
    controller.stop()


@pytest.fixture
def live(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, smtp: tuple[int, _Inbox], site_url: str
) -> Iterator[dict[str, Any]]:
    """The real application under uvicorn on 127.0.0.1, on a fresh SQLite database."""
    import uvicorn

    from app.core.config import get_settings
    from app.core.db import get_engine
    from app.core.migrate import upgrade

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    env = {
        "TIMELYPUSH_DATABASE_URL": f"sqlite:///{tmp_path / 'browser.db'}",
        "TIMELYPUSH_VAR_DIR": str(tmp_path / "var"),
        "TIMELYPUSH_SECRET_KEY": "browser-test-secret-key",
        "TIMELYPUSH_BASE_URL": f"http://127.0.0.1:{port}",
        "TIMELYPUSH_SMTP_HOST": "127.0.0.1",
        "TIMELYPUSH_SMTP_PORT": str(smtp[0]),
        "TIMELYPUSH_SMTP_SECURITY": "none",
        "TIMELYPUSH_URL_ALLOWLIST": "127.0.0.1",
        "TIMELYPUSH_SCHEDULER_ENABLED": "false",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("TIMELYPUSH_REDIS_URL", raising=False)
    get_settings.cache_clear()
    get_engine.cache_clear()
    upgrade()
    from app.main import create_app

    server = uvicorn.Server(uvicorn.Config(create_app(), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    yield {"url": f"http://127.0.0.1:{port}", "inbox": smtp[1], "site": site_url}
    server.should_exit = True
    thread.join(timeout=10)
    sock.close()
    get_engine().dispose()
    get_settings.cache_clear()
    get_engine.cache_clear()


def _harvest(fetched: int, matched: int) -> list[list[int]]:
    """Cumulative [fetched, matched] every 10 pages: a crawl that finds its topic as it goes."""
    return [
        [k, round(k * matched / fetched * (0.6 + 0.4 * k / fetched))]
        for k in range(10, fetched + 1, 10)
    ]


def _simulate_crawl(email: str) -> None:
    """What a crawl of the concern's site writes: pages, matches and runs."""
    from sqlmodel import Session, select

    from app.core.db import get_engine
    from app.models import Concern, CrawlRun, Match, Page, User, utcnow

    stories = [
        (
            "国足世预赛名单公布 中超多名新人入选",
            "足球",
            "title",
            "国家队公布世预赛集训名单，中超联赛多名新人首次入选，足球迷热议。",
        ),
        (
            "中超第28轮前瞻：争冠悬念延续",
            "中超",
            "title",
            "中超联赛第28轮周末开战，积分榜前三名同日出战，争冠悬念延续到最后一轮。",
        ),
        (
            "青少年足球训练营报名开始",
            "足球",
            "anchor",
            "市体育局主办的青少年足球训练营今天开始报名，面向8至14岁孩子。",
        ),
    ]
    with Session(get_engine(), expire_on_commit=False) as db:
        user = db.exec(select(User).where(User.email == email)).one()
        concern = db.exec(select(Concern).where(Concern.owner_id == user.id)).one()
        now = utcnow()
        for n, (title, keyword, place, snippet) in enumerate(stories):
            url = f"https://sports.example.com/news/2026/{1120 + n}.html"
            page = Page(canonical_url=url, final_url=url, title=title, excerpt=snippet)
            db.add(page)
            db.flush()
            db.add(
                Match(
                    concern_id=concern.id,
                    page_id=page.id,
                    user_id=user.id,
                    fingerprint=f"browser-{n}",
                    score=1.42 - n * 0.31,
                    matched_keywords=[keyword],
                    explanation={
                        "method": "kp",
                        "score": 1.42 - n * 0.31,
                        "parts": {place: 0.5, "meta": 0.75 if n == 0 else 0.0},
                        "hits": [
                            {
                                "term": keyword,
                                "weight": 1.0,
                                "learned": False,
                                "where": {place: 2, **({"meta": 1} if n == 0 else {})},
                            }
                        ],
                        "learned": [],
                    },
                    title=title,
                    url=url,
                    snippet=snippet,
                    created_at=now - timedelta(minutes=27 + n),  # during the latest visit
                )
            )
        for n, (fetched, matched) in enumerate(
            [(120, 31), (180, 62), (95, 44), (200, 97), (160, 88), (140, 71)]
        ):
            started = now - timedelta(hours=6 * (5 - n), minutes=30)
            for k in range(matched // 5 if n < 5 else 0):  # this concern's older, deleted finds
                url = f"https://sports.example.com/news/2026/old-{n}-{k}.html"
                page = Page(canonical_url=url, final_url=url, title=f"旧闻 {n}-{k}")
                db.add(page)
                db.flush()
                db.add(
                    Match(
                        concern_id=concern.id,
                        page_id=page.id,
                        user_id=user.id,
                        fingerprint=f"browser-old-{n}-{k}",
                        title=page.title,
                        url=url,
                        created_at=started + timedelta(minutes=1),
                        deleted_at=now,
                    )
                )
            db.add(
                CrawlRun(
                    site_id=concern.site_id,
                    strategy=concern.strategy,
                    status="ok",
                    started_at=started,
                    finished_at=started + timedelta(minutes=4),
                    pages_fetched=fetched,
                    pages_new=fetched // 3,
                    pages_matched=matched,
                    errors=n % 2,
                    error="timeout: /video/live.html" if n == 3 else None,
                    stats={"harvest": _harvest(fetched, matched)},
                )
            )
        db.commit()


def _account(email: str) -> Any:
    from sqlmodel import Session

    from app.core.db import get_engine
    from app.services.auth import get_user_by_email

    with Session(get_engine()) as db:
        return get_user_by_email(db, email=email)


def test_register_verify_follow_read_logout(live: dict[str, Any], tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    shots = Path(os.environ.get("TIMELYPUSH_SCREENSHOT_DIR") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    base = live["url"]
    email = "xiaoming@example.com"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(
            locale="zh-CN",
            timezone_id="Asia/Tokyo",  # a reader of Chinese living in Tokyo
            viewport={"width": 1280, "height": 860},
            extra_http_headers={"Accept-Language": "zh-CN,zh;q=0.9"},
        )
        page = context.new_page()
        page.set_default_timeout(15_000)

        page.goto(base + "/")
        expect(page.locator("h1")).to_have_text("登录")
        page.screenshot(path=str(shots / "login.png"))

        # register → the verification mail really goes out over SMTP
        page.click("text=注册")
        page.fill("#email", email)
        page.fill("#password", "correct-horse-battery")
        page.fill("#password2", "correct-horse-battery")
        page.click("button[type=submit]:has-text('注册')")
        expect(page.locator(".flash.success")).to_contain_text("验证链接已发送")
        assert _account(email).timezone == "Asia/Tokyo"  # the browser's, not a default
        mail = live["inbox"].wait(1)
        assert mail["To"] == email
        body = mail.get_body(preferencelist=("plain",)).get_content()
        link = re.search(r"http://127\.0\.0\.1:\d+/verify-email\?token=\S+", body).group(0)
        page.goto(link)
        expect(page.locator("h1")).to_have_text("邮箱已验证")

        # add a concern on the loopback site
        page.goto(base + "/concerns/new")
        page.fill("#seed_url", live["site"])
        page.fill("#keywords", "足球，中超")
        page.fill("#exclude", "彩票")
        page.fill("#priority", "3")
        page.screenshot(path=str(shots / "concern-form.png"), full_page=True)
        page.click("button:has-text('保存')")
        expect(page.locator(".flash.success")).to_contain_text("关注已添加")
        expect(page.locator(".concern .tag.kw").first).to_have_text("足球")
        page.screenshot(path=str(shots / "concerns.png"))

        # a crawl finds pages; the feed shows them after a reload
        page.goto(base + "/messages")
        expect(page.locator(".empty")).to_be_visible()
        _simulate_crawl(email)
        page.reload()
        first = page.locator("article.msg").first
        expect(first).to_have_class(re.compile(r"\bunread\b"))
        expect(first.locator(".title")).to_contain_text("国足世预赛名单公布")
        expect(page.locator("article.msg.unread")).to_have_count(3)
        first.locator("summary").click()
        expect(first.locator(".why")).to_contain_text("标题")
        page.screenshot(path=str(shots / "messages.png"), full_page=True)

        # mark it read
        first.locator("button.mark-read").click()
        expect(page.locator("article.msg").first).to_have_class(re.compile(r"\bread\b"))
        expect(page.locator("article.msg.unread")).to_have_count(2)

        # the crawl report draws its chart with Chart.js
        page.goto(base + "/concerns")
        page.click("text=抓取报告")
        expect(page.locator("#harvest-chart")).to_have_attribute("data-rendered", "1")
        expect(page.locator("#run-chart")).to_have_attribute("data-rendered", "1")
        expect(page.locator("#run-chart")).to_have_attribute("data-rendered", "1")
        page.screenshot(path=str(shots / "report.png"), full_page=True)

        page.goto(base + "/settings")
        expect(page.locator("h1")).to_have_text("设置")
        page.screenshot(path=str(shots / "settings.png"), full_page=True)

        # log out
        page.click("#logout")
        expect(page.locator(".flash")).to_contain_text("您已退出登录")
        page.goto(base + "/messages")
        expect(page).to_have_url(re.compile(r"/login\?next=/messages$"))
        context.close()
        browser.close()
    for name in ("login", "concern-form", "concerns", "messages", "report", "settings"):
        assert (shots / f"{name}.png").stat().st_size > 10_000


PHONE = {"width": 375, "height": 740}
DESKTOP = {"width": 1280, "height": 860}

# Visible controls a thumb has to hit, each with its box when under 44 × 44 CSS px (inline text
# links inside sentences are exempt, as WCAG 2.5.8 exempts them).
_SMALL_TARGETS = """() => {
  const sel = 'button, .btn, select, summary, .nav a, .menu-toggle, label.inline, a.back,'
    + ' .langs a, .actions > a, .empty a,'
    + ' input:not([type=hidden]):not([type=checkbox]):not([type=radio])';
  const out = [];
  for (const el of document.querySelectorAll(sel)) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') continue;
    if (el.closest('label.inline') && el.tagName === 'INPUT') continue;
    if (r.height < 44 - 0.5 || r.width < 44 - 0.5) {
      out.push(el.tagName + '.' + el.className + ' "' + (el.textContent || el.name || '').trim()
        .slice(0, 20) + '" ' + Math.round(r.width) + 'x' + Math.round(r.height));
    }
  }
  return out;
}"""


def _look(page: Any, shots: Path, name: str, *, phone: bool) -> None:
    """The page fits the viewport (no sideways scroll), on a phone every control is big
    enough to tap, and a full-page screenshot is kept."""
    page.wait_for_load_state("load")
    width, inner = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"{name}: the page scrolls sideways ({width} > {inner} px)"
    if phone:
        small = page.evaluate(_SMALL_TARGETS)
        assert not small, f"{name}: tap targets under 44 px: {small}"
    page.screenshot(path=str(shots / f"{name}{'-phone' if phone else ''}.png"), full_page=True)
    if phone:
        for narrow in (360, 414):  # the common range of phone widths
            page.set_viewport_size({"width": narrow, "height": PHONE["height"]})
            width = page.evaluate("() => document.documentElement.scrollWidth")
            assert width <= narrow, f"{name}: scrolls sideways at {narrow} px ({width})"
        page.set_viewport_size(PHONE)
    # let the layout settle (two frames) before the caller clicks anything
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def test_every_page_fits_a_phone_and_a_desktop(live: dict[str, Any], tmp_path: Path) -> None:
    """Every page at 375 px (a phone) and 1280 px: no sideways scroll, tap targets ≥ 44 px on
    the phone, the navigation folds into a menu button there, and screenshots of each."""
    from playwright.sync_api import expect, sync_playwright
    from sqlmodel import Session, col, select

    from app.core.config import get_settings
    from app.core.db import get_engine
    from app.models import Match, User, utcnow
    from app.services import auth
    from app.services.delivery_compose import unsubscribe_url

    shots = Path(os.environ.get("TIMELYPUSH_SCREENSHOT_DIR") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    base = live["url"]
    email = "xiaohong@example.com"
    with Session(get_engine(), expire_on_commit=False) as db:
        user = auth.register_user(db, email=email, password="correct-horse-battery")
        user.email_verified_at = utcnow()
        db.add(user)
        db.commit()
        unsubscribe = unsubscribe_url(get_settings(), user.id)  # type: ignore[arg-type]

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for phone in (True, False):
            context = browser.new_context(
                locale="zh-CN",
                viewport=PHONE if phone else DESKTOP,
                extra_http_headers={"Accept-Language": "zh-CN,zh;q=0.9"},
            )
            page = context.new_page()
            page.set_default_timeout(15_000)

            for path, name in (
                ("/login", "login"),
                ("/register", "register"),
                ("/forgot", "forgot"),
            ):
                page.goto(base + path)
                _look(page, shots, name, phone=phone)
            page.goto(base + "/login")
            page.fill("#email", email)
            page.fill("#password", "correct-horse-battery")
            page.click("button[type=submit]:has-text('登录')")
            expect(page).to_have_url(re.compile(r"/messages$"))

            nav = page.locator("nav.nav a[href='/concerns']")
            if phone:  # the navigation is folded behind the menu button
                expect(nav).to_be_hidden()
                page.click(".menu-toggle")
                expect(nav).to_be_visible()
                _look(page, shots, "menu", phone=True)
                nav.click()
                expect(page).to_have_url(re.compile(r"/concerns$"))
            else:
                expect(page.locator(".menu-toggle")).to_be_hidden()
                expect(nav).to_be_visible()
                page.goto(base + "/concerns")
            if phone:
                _look(page, shots, "concerns-empty", phone=True)

            page.goto(base + "/concerns/new")
            _look(page, shots, "concern-form", phone=phone)
            if phone:
                page.fill("#seed_url", live["site"])
                page.fill("#keywords", "足球，中超")
                page.click("button:has-text('保存')")
                expect(page.locator(".flash.success")).to_contain_text("关注已添加")
                _simulate_crawl(email)
            page.goto(base + "/concerns")
            _look(page, shots, "concerns", phone=phone)
            page.click(".concern a:has-text('编辑')")
            # strategy parameters wait under "网站如何抓取", explained in plain words
            expect(page.locator("#param_W")).to_be_hidden()
            page.click("#advanced summary")
            expect(page.locator("#param_W")).to_be_visible()
            expect(page.locator("#advanced")).to_contain_text("每个页面最多继续访问多少个链接")
            _look(page, shots, "concern-edit", phone=phone)

            page.goto(base + "/messages")
            expect(page.locator("article.msg")).to_have_count(3)
            if phone:  # the feed comes first: filters beyond search fold away
                expect(page.locator("#keyword")).to_be_hidden()
                page.click(".filters-toggle")
                expect(page.locator("#keyword")).to_be_visible()
                page.click(".filters-toggle")
            page.locator("article.msg").first.locator("summary").click()
            _look(page, shots, "messages", phone=phone)
            page.locator("article.msg .title").first.click()
            expect(page.locator("#deliveries")).to_be_visible()
            _look(page, shots, "message", phone=phone)

            page.goto(base + "/concerns")
            page.click(".concern a:has-text('抓取报告')")
            expect(page.locator("#harvest-chart")).to_have_attribute("data-rendered", "1")
            _look(page, shots, "report", phone=phone)

            page.goto(base + "/settings")
            _look(page, shots, "settings", phone=phone)
            # a new webhook secret is shown once, on a GET page: reloading does not rotate again
            page.click("#rotate-secret")
            expect(page.locator("#new-secret")).to_be_visible()
            expect(page).to_have_url(re.compile(r"/settings(#webhook)?$"))
            page.reload()  # a GET of /settings (the unit test checks the secret is unchanged)
            expect(page.locator("#new-secret")).to_have_count(0)

            page.goto(base + "/no/such/page")
            _look(page, shots, "not-found", phone=phone)
            answer = page.goto(base + "/logout")  # typed into the address bar: a form's address
            assert answer is not None and answer.status == 405
            expect(page.locator("h1")).to_have_text("无法以这种方式打开此页面")
            _look(page, shots, "wrong-method", phone=phone)
            page.click("main a[href='/']")  # home, still signed in
            expect(page).to_have_url(re.compile(r"/messages$"))
            page.goto(unsubscribe)
            _look(page, shots, "unsubscribe", phone=phone)
            if phone:  # the link from the mail: confirm, then offered to subscribe again
                page.click("#unsubscribe-confirm")
                expect(page.locator("h1")).to_have_text("您已退订")
                expect(page).to_have_url(unsubscribe)  # a GET page: reloading is harmless
                _look(page, shots, "unsubscribed", phone=True)
                page.click("#resubscribe")
                expect(page.locator("h1")).to_have_text("已重新订阅")
            context.close()
        browser.close()
    with Session(get_engine()) as db:
        owner = db.exec(select(User).where(User.email == email)).one()
        shown = select(Match).where(Match.user_id == owner.id, col(Match.deleted_at).is_(None))
        assert len(db.exec(shown).all()) == 3


def test_api_docs_render_from_the_app_itself(live: dict[str, Any], tmp_path: Path) -> None:
    """/docs (Swagger UI) and /redoc draw the API under the app's own Content-Security-Policy,
    with every script and style from the app: nothing is fetched from another host."""
    from playwright.sync_api import expect, sync_playwright

    shots = Path(os.environ.get("TIMELYPUSH_SCREENSHOT_DIR") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    base = live["url"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport=DESKTOP)
        requested: list[str] = []
        context.on("request", lambda r: requested.append(r.url))
        answered: list[str] = []
        context.on("response", lambda r: answered.append(r.url))
        page = context.new_page()
        page.set_default_timeout(20_000)
        refused: list[str] = []
        page.on(
            "console", lambda m: refused.append(m.text) if "Security Policy" in m.text else None
        )

        page.goto(base + "/docs")
        expect(page.locator(".swagger-ui .info .title")).to_contain_text("Timely Push API")
        concerns = page.locator(".opblock-summary-path", has_text="/api/v1/concerns").first
        expect(concerns).to_be_visible()
        page.screenshot(path=str(shots / "api-docs.png"))
        foreign = [u for u in requested if not u.startswith((base, "data:", "blob:"))]
        assert not foreign, foreign
        assert not refused, refused

        page.goto(base + "/redoc")
        expect(page.locator("h1", has_text="Timely Push API")).to_be_visible()
        expect(page.get_by_text("/api/v1/concerns").first).to_be_attached()
        context.close()
        browser.close()
    # ReDoc's built-in credit logo points at its CDN; the policy stops it in the browser
    assert not [u for u in answered if not u.startswith((base, "data:", "blob:"))]
    assert all("cdn.redoc.ly" in text for text in refused), refused
