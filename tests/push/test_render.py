"""Bilingual templates and digest shaping."""

from __future__ import annotations

import gettext
from datetime import UTC, datetime, timedelta

import pytest

from app.core.config import ROOT
from push import DigestItem, Renderer, RenderError, build_digest, language, why

T0 = datetime(2026, 11, 22, 8, tzinfo=UTC)


def _item(i: int, concern: int) -> DigestItem:
    return DigestItem(
        match_id=i,
        concern_id=concern,
        concern=f"site{concern}.cn · 政策",
        title=f"标题 {i} <b>",
        url=f"https://site{concern}.cn/{i}",
        snippet="摘要",
        why=why(["政策"], 0.5, "zh"),
        created_at=T0 + timedelta(minutes=i),
    )


@pytest.fixture
def renderer() -> Renderer:
    catalogues = {
        lang: gettext.translation("messages", ROOT / "app" / "locale", languages=[lang])
        for lang in ("zh", "en")
    }
    return Renderer(ROOT / "templates" / "email", catalogues)


def test_language_picks_zh_for_chinese_locales() -> None:
    assert [language(x) for x in ("zh", "zh-TW", "zh_CN", "en", "fr", None)] == [
        "zh", "zh", "zh", "en", "en", "zh",
    ]  # fmt: skip


def test_digest_groups_newest_first_and_caps() -> None:
    items = [_item(i, concern=i % 3) for i in range(60)]
    digest = build_digest(items, cap=50)
    assert digest.total == 60 and digest.shown == 50 and digest.more == 10
    assert digest.groups[0].concern_id == 59 % 3
    for group in digest.groups:
        stamps = [i.created_at for i in group.items]
        assert stamps == sorted(stamps, reverse=True)
    shown = {i.match_id for g in digest.groups for i in g.items}
    assert shown == set(range(10, 60))


def test_digest_template_in_both_languages(renderer: Renderer) -> None:
    digest = build_digest([_item(i, i % 2) for i in range(55)])
    ctx = {
        "digest": digest,
        "date": "2026-11-22",
        "dashboard_url": "https://tp/",
        "unsubscribe_url": "https://tp/u/x",
    }
    zh = renderer.render("digest", "zh", **ctx)
    assert zh.subject == "[及时推] 2026-11-22 每日摘要：55 条新内容"
    assert "还有 5 条" in zh.text and "== site1.cn · 政策 ==" in zh.text
    assert zh.html is not None and "标题 54 &lt;b&gt;" in zh.html and "退订" in zh.html
    assert "标题 54 <b>" in zh.text
    en = renderer.render("digest", "en", **ctx)
    assert en.subject.startswith("[Timely Push] Daily digest for 2026-11-22")
    assert "5 more on your dashboard" in en.text


def test_empty_digest_says_nothing_today(renderer: Renderer) -> None:
    ctx = {
        "digest": build_digest([]),
        "date": "2026-11-22",
        "dashboard_url": "d",
        "unsubscribe_url": "u",
    }
    assert "今天没有新内容" in renderer.render("digest", "zh", **ctx).text


def test_account_templates(renderer: Renderer) -> None:
    verify = renderer.render("verify", "zh", email="a@b.cn", link="https://tp/v/1")
    assert verify.subject == "[及时推] 请验证您的邮箱" and "https://tp/v/1" in verify.text
    reset = renderer.render("reset", "en", email="a@b.cn", link="https://tp/r/1", hours=2)
    assert "valid for 2 hours" in reset.text and reset.html and "https://tp/r/1" in reset.html


def test_missing_context_is_an_error(renderer: Renderer) -> None:
    with pytest.raises(RenderError):
        renderer.render("verify", "zh", email="a@b.cn")
