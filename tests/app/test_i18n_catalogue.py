"""The translation catalogues: every message id the code and templates use has a Chinese and
an English text, the compiled ``.mo`` files are current, and the Chinese speaks to the user
with 您 and without English words (product and proper names aside)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from app.core import i18n

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "app" / "locale"

# names a Chinese text may carry as they are: products, services, standards, protocols
PROPER_NAMES = {
    "Apprise", "Webhook", "Webhooks", "Standard", "PageRank", "IPageRank", "Fish", "Search",
    "API", "REST", "JSON", "Atom", "RSS", "Bark", "ntfy", "Telegram", "Server", "Discord",
    "Slack", "POST", "HTTP", "Asia", "Shanghai",
}  # fmt: skip
_PLACEHOLDER = re.compile(r"%\(\w+\)s")
_CODE = re.compile(r"<[^>]*>|[a-z]+://\S*|/[\w/.-]+|\b\w+(?:[-.]\w+)+\b")  # tags, URLs, …
_WORD = re.compile(r"[A-Za-z]{2,}")


def english_words(text: str) -> list[str]:
    """Latin words in a Chinese text that are not a proper name, URL, path or identifier."""
    text = _CODE.sub(" ", _PLACEHOLDER.sub(" ", text))
    return [w for w in _WORD.findall(text) if w not in PROPER_NAMES]


def _catalogue(lang: str):
    with open(LOCALE / lang / "LC_MESSAGES" / "messages.po", "rb") as f:
        return read_po(f)


def _extracted() -> set[str]:
    """The ids ``make i18n`` extracts, with the Makefile's keywords and babel.cfg."""
    makefile = (ROOT / "Makefile").read_text()
    block = makefile.split("I18N_KEYWORDS :=", 1)[1].split("\n\n", 1)[0].split("\ni18n:")[0]
    keywords: dict[str, object] = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None}
    for spec in re.findall(r"-k (\S+)", block):
        name, _, arg = spec.partition(":")
        keywords[name] = (int(arg),) if arg else None
    with open(ROOT / "babel.cfg") as f:
        method_map, options_map = parse_mapping_cfg(f)
    ids: set[str] = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT), method_map, options_map, keywords=keywords
    ):
        ids.add(message if isinstance(message, str) else message[0])
    return ids


@pytest.fixture(scope="module")
def catalogues():
    return {lang: _catalogue(lang) for lang in i18n.LANGUAGES}


def test_every_message_id_has_chinese_and_english(catalogues):
    ids = {lang: {m.id for m in cat if m.id} for lang, cat in catalogues.items()}
    assert ids["zh"] == ids["en"]
    for lang, cat in catalogues.items():
        missing = [m.id for m in cat if m.id and (not m.string or m.fuzzy)]
        assert not missing, (lang, missing)


def test_the_catalogues_hold_exactly_what_the_code_uses(catalogues):
    used = _extracted()
    known = {m.id for m in catalogues["zh"] if m.id}
    assert len(used) > 300
    assert not sorted(used - known), "run `make i18n` and translate the new ids"
    assert not sorted(known - used), "ids no code uses: run `make i18n`"


def test_compiled_catalogues_are_current(catalogues):
    for lang, cat in catalogues.items():
        with open(LOCALE / lang / "LC_MESSAGES" / "messages.mo", "rb") as f:
            compiled = read_mo(f)
        po = {m.id: m.string for m in cat if m.id}
        mo = {m.id: m.string for m in compiled if m.id}
        assert mo == po, f"{lang}: run `make i18n-compile`"


def test_placeholders_match(catalogues):
    for lang, cat in catalogues.items():
        for m in cat:
            if m.id:
                assert set(_PLACEHOLDER.findall(m.string)) == set(_PLACEHOLDER.findall(m.id)), (
                    lang,
                    m.id,
                )
                m.string % dict.fromkeys(re.findall(r"%\((\w+)\)s", m.id), "x")  # well formed


def test_chinese_says_nin_and_has_no_english_words(catalogues):
    for m in catalogues["zh"]:
        if not m.id:
            continue
        assert "你" not in m.string, m.string
        assert not english_words(m.string), (m.string, english_words(m.string))


def test_the_word_check_finds_english():
    assert english_words("网站无法访问：The site answered 404") == ["The", "site", "answered"]
    assert english_words("粘贴 Apprise 地址，例如 dingtalk://TOKEN/ 或 %(url)s") == []


def test_gettext_in_both_languages():
    assert i18n.translate("zh", "%(n)s unread", n=3) == "3 条未读"
    assert i18n.translate("en", "%(n)s unread", n=3) == "3 unread"
    assert i18n.translate("en", "status:interrupted") == "interrupted"
    assert i18n.translate("zh", "status:interrupted") == "已中断"
    assert i18n.translate("zh", "push:both") == "即时推送 + 每日摘要"
