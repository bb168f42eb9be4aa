"""Every text on the pages goes through the catalogue, in Chinese and English."""

from __future__ import annotations

import re

import pytest

from app.web import i18n


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
        assert i18n.has("zh", key) and i18n.has("en", key), key
        assert not re.match(r"[a-z-]+:", i18n.translate("en", key)), key


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
    assert i18n.translate("zh", "%(n)s unread", n=3) == "3 条未读"
    assert i18n.translate("en", "%(n)s unread", n=3) == "3 unread"
    assert i18n.translate("en", "status:weird") == "status:weird"  # logged, shown as written
    assert i18n.translate("zh", "push:both") == "即时推送 + 每日摘要"
