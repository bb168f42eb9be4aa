"""Folding: exactly NFKC + lower case, whatever the text."""

from __future__ import annotations

import random
import unicodedata
from pathlib import Path

from crawler.fold import fold
from crawler.parse import parse_html

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "html"


def _reference(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def test_fold_is_nfkc_and_lower_case_on_any_text() -> None:
    """Characters folded ahead of NFKC next to the ones that compose with them: half-width
    katakana before a half-width voiced mark, a full-width letter before a combining accent,
    Hangul jamo, ligatures, the Kelvin and Ohm signs, spaces and the ellipsis."""
    ranges = [(0x20, 0x250), (0x300, 0x370), (0x1100, 0x1180), (0x2000, 0x2070)]
    ranges += [(0x3000, 0x3100), (0xAC00, 0xAC40), (0xFB00, 0xFB08), (0xFF00, 0xFFF0)]
    pool = [chr(c) for low, high in ranges for c in range(low, high)]
    pool += ["中", "文", "\u1e9b", "\u212b", "\u2126", "\u212a", "\u0345", "\u0f73"]
    rng = random.Random(11)
    for _ in range(50_000):
        text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 12)))
        assert fold(text) == _reference(text), repr(text)
    assert fold("ｶﾞ") == "ガ" and fold("Ａ\u0301") == "á" and fold("……") == "......"
    assert fold("ＮＢＡ，足球　Ｃ罗") == "nba,足球 c罗"


def test_fold_on_real_pages() -> None:
    for path in sorted(FIXTURES.glob("*.htm*")):
        page = parse_html(path.read_bytes(), "http://a/")
        for text in (page.title, page.text, page.description):
            assert fold(text) == _reference(text)
