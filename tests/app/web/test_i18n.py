"""Every text on the pages goes through the catalogue, in Chinese and English."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.web import i18n

ROOT = Path(__file__).resolve().parents[3]


def _template_keys() -> set[str]:
    keys: set[str] = set()
    for path in (ROOT / "templates" / "web").rglob("*.html"):
        text = path.read_text()
        keys |= set(re.findall(r'\bt\("([^"]+)"', text))
    for path in (ROOT / "app" / "web").glob("*.py"):
        text = path.read_text()
        for m in re.finditer(
            r'(?:message\(\s*request,\s*\w+,\s*|flash\(\s*request,\s*)((?:"[^"]*"\s*)+)', text
        ):
            keys.add("".join(re.findall(r'"([^"]*)"', m.group(1))))
    return {k for k in keys if not k.endswith(":")}


def test_every_key_has_a_chinese_text():
    missing = sorted(k for k in _template_keys() if k not in i18n.ZH)
    assert not missing, missing


def test_dynamic_keys_are_translated():
    from app.models import PUSH_MODES, STRATEGIES
    from app.web.concerns import PARAMS

    for key in [
        *STRATEGIES,
        *(f"push:{m}" for m in PUSH_MODES),
        *(f"scope:{s}" for s in ("host", "domain", "any")),
        *(p.label for p in PARAMS),
        *(p.help for p in PARAMS),
    ]:
        assert key in i18n.ZH, key
        assert i18n.translate("en", key)


@pytest.mark.parametrize(
    ("header", "lang"),
    [
        (None, "zh"),
        ("", "zh"),
        ("en", "en"),
        ("en-GB,en;q=0.8", "en"),
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh"),
        ("fr-FR,en;q=0.5,zh;q=0.9", "zh"),
        ("fr,de", "zh"),
        ("en;q=0", "zh"),
        ("zh-TW;q=0.3, en;q=0.7", "en"),
    ],
)
def test_accept_language(header, lang):
    assert i18n.negotiate(header) == lang


def test_translate_fills_parameters_and_falls_back():
    assert i18n.translate("zh", "{n} unread", n=3) == "3 条未读"
    assert i18n.translate("en", "{n} unread", n=3) == "3 unread"
    assert i18n.translate("en", "status:weird") == "weird"
    assert i18n.translate("zh", "push:both") == "即时推送 + 每日摘要"
