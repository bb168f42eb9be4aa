"""crawler.text: jieba segmentation, normalisation, user words, stop words, TF-IDF keywords."""

from __future__ import annotations

from crawler import text


def test_normalize_folds_full_width_and_case() -> None:
    assert text.normalize("ＮＢＡ　Ｆｉｎａｌｓ，足球！") == "nba finals,足球!"


def test_tokenize_chinese_and_english_without_punctuation() -> None:
    assert text.tokenize("梅西 Messi-World Cup：世界杯！") == [
        "梅西",
        "messi",
        "world",
        "cup",
        "世界杯",
    ]
    assert text.tokenize("ＮＢＡ总决赛") == ["nba", "总决赛"]
    assert text.tokenize("") == []


def test_user_words_stay_one_token() -> None:
    # (a word no other test adds: jieba's dictionary is per process)
    assert text.tokenize("蓝鲸杯开幕") == ["蓝鲸", "杯", "开幕"]
    text.add_words(["蓝鲸杯", "ＡＢ联赛"])
    assert text.tokenize("蓝鲸杯开幕") == ["蓝鲸杯", "开幕"]
    assert "ab联赛" in text.tokenize("AB联赛开幕")


def test_stop_words() -> None:
    assert text.is_stopword("的") and text.is_stopword("the") and text.is_stopword("2024")
    assert text.is_stopword("x")  # single Latin letters
    assert not text.is_stopword("足球") and not text.is_stopword("球")


def test_extract_keywords_drops_stop_words_and_numbers() -> None:
    words = text.extract_keywords(
        "中超联赛第五轮，北京国安2比1战胜上海申花。国安升至积分榜第二。", 5
    )
    terms = [w for w, _ in words]
    assert "国安" in terms or "北京国安" in terms
    assert all(len(t) >= 2 and not t.isdigit() for t in terms)
    assert all(weight > 0 for _, weight in words)
    assert text.extract_keywords("") == []
