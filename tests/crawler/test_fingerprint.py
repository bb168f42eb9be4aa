"""Fingerprints: exact hash ignores layout noise; simhash recognises reprinted articles."""

from __future__ import annotations

from pathlib import Path

from crawler.fingerprint import content_hash, hamming, near_duplicate, simhash
from crawler.parse import parse_html


def _article(shared_data: Path, name: str) -> str:
    return parse_html((shared_data / "html" / name).read_text(encoding="utf-8"), "http://a/").text


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


def test_reprint_with_small_edits_is_a_near_duplicate(shared_data: Path):
    original = _article(shared_data, "tests_ifeng_1.html")
    assert len(original) > 1000
    reprint = "转载自澎湃新闻。\n" + original.replace("小花", "小华", 2) + "\n（责任编辑：王某）"
    assert hamming(simhash(original), simhash(reprint)) <= 3
    assert near_duplicate(simhash(original), simhash(reprint))
    assert content_hash(original) != content_hash(reprint)


def test_different_articles_are_far_apart(shared_data: Path):
    names = ["tests_163_1.html", "tests_ifeng_1.html", "tests_qq_2.html", "tests_sina_1.html"]
    hashes = [simhash(_article(shared_data, n)) for n in names]
    for i, a in enumerate(hashes):
        for b in hashes[i + 1 :]:
            assert hamming(a, b) > 10
            assert not near_duplicate(a, b)


def test_hamming_handles_signed_values():
    assert hamming(-1, 0) == 64
    assert hamming(5, 5) == 0
    assert not near_duplicate(0, 0)  # no fingerprint is not a duplicate of anything
