"""Fingerprints: exact hash ignores layout noise; simhash recognises reprinted articles."""

from __future__ import annotations

from pathlib import Path

from crawler.fingerprint import content_hash, fingerprints, hamming, near_duplicate, simhash
from crawler.parse import parse_html

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "html"


def _article(directory: Path, name: str) -> str:
    return parse_html((directory / name).read_bytes(), "http://a/").text


def test_content_hash_ignores_whitespace_case_and_width():
    assert content_hash("中超 联赛\n\nABC") == content_hash("  中超　联赛 ａｂｃ ")
    assert content_hash("中超联赛") != content_hash("中超联赛。")
    assert len(content_hash("")) == 40


def test_simhash_is_a_signed_int64_and_stable():
    values = [simhash(t) for t in ("足球", "football match report " * 30, "x" * 10_000)]
    assert all(-(2**63) <= v < 2**63 for v in values)
    assert simhash("国足 今晚 迎战 叙利亚 队") == simhash("国足 今晚 迎战 叙利亚 队")
    assert simhash("") == 0 and simhash([]) == 0
    assert simhash(["国足", "今晚", "迎战", "叙利亚"]) != 0


def _reprint_is_a_near_duplicate(original: str, old: str, new: str) -> None:
    assert old in original
    reprint = "转载自澎湃新闻。\n" + original.replace(old, new, 2) + "\n（责任编辑：王某）"
    assert hamming(simhash(original), simhash(reprint)) <= 3
    assert near_duplicate(simhash(original), simhash(reprint))
    assert content_hash(original) != content_hash(reprint)


def _far_apart(texts: list[str]) -> None:
    hashes = [simhash(t) for t in texts]
    for i, a in enumerate(hashes):
        for b in hashes[i + 1 :]:
            assert hamming(a, b) > 10
            assert not near_duplicate(a, b)


def test_reprint_of_an_own_article_is_a_near_duplicate():
    original = _article(FIXTURES, "article_utf8.html")
    assert len(original) > 1000
    _reprint_is_a_near_duplicate(original, "海港队", "上海海港队")


def test_own_pages_are_far_apart():
    names = ["article_utf8.html", "article_gbk.html", "story_en.html", "list_page.html"]
    _far_apart([_article(FIXTURES, n) for n in names])


def test_reprint_with_small_edits_is_a_near_duplicate(shared_data: Path):
    original = _article(shared_data / "html", "tests_ifeng_1.html")
    assert len(original) > 1000
    _reprint_is_a_near_duplicate(original, "小花", "小华")


def test_different_articles_are_far_apart(shared_data: Path):
    names = ["tests_163_1.html", "tests_ifeng_1.html", "tests_qq_2.html", "tests_sina_1.html"]
    _far_apart([_article(shared_data / "html", n) for n in names])


def test_hamming_handles_signed_values():
    assert hamming(-1, 0) == 64
    assert hamming(5, 5) == 0
    assert not near_duplicate(0, 0)  # no fingerprint is not a duplicate of anything


def test_the_hash_text_collapses_exactly_the_whitespace_it_always_did() -> None:
    """Stored content hashes stay valid: every Unicode whitespace character, mixed with text,
    is collapsed exactly as by the pattern ``\\s+`` the hash was first defined with."""
    import random
    import re
    import unicodedata

    from crawler.fingerprint import normalize_for_hash

    spaces = [chr(c) for c in range(0x110000) if re.fullmatch(r"\s", chr(c))]
    assert len(spaces) >= 25 and "\u3000" in spaces and "\x1f" in spaces
    pieces = [*spaces, "a", "Ｂ", "中", ".", "\u200b", "\ufeff"]
    rng = random.Random(7)
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        folded = unicodedata.normalize("NFKC", text).lower()
        assert normalize_for_hash(text) == re.sub(r"\s+", " ", folded).strip(), repr(text)


def test_fingerprints_are_the_stored_values() -> None:
    """Fingerprints are stored in the database: the values a release computed stay the same
    (the per-unit CRC table is a cache, not a change of hash)."""
    assert simhash("国足 今晚 迎战 叙利亚 队") == -1508515034415829866
    assert simhash("Football match report: Arsenal 2 Chelsea 1.") == -4150682759995145463
    assert simhash(["国足", "今晚", "迎战", "叙利亚"]) == -8907792949308817344
    assert content_hash("中超 联赛") == "14afdc223255009e3ab06136dd0b2466ca91e61d"


def test_both_fingerprints_at_once_equal_each_alone() -> None:
    """``fingerprints`` normalises once for both; texts longer than the simhash reads (80,000
    characters), with characters NFKC widens at the cut, give the same values as alone."""
    import random

    rng = random.Random(3)
    alphabet = ["a", "B", " ", "\n", "中", "超", "ﬁ", "Ａ", "１", "，", "é", "\u3000"]
    texts = ["", "足球", "ﬁ" * 80_001, "x" * 79_999 + "ﬁﬁﬁ" + "y" * 10]
    texts += ["".join(rng.choices(alphabet, k=rng.choice([3, 500, 90_000]))) for _ in range(12)]
    for text in texts:
        assert fingerprints(text) == (content_hash(text), simhash(text))
