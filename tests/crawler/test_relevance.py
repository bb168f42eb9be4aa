"""Page relevance: the keyword-position formula (docs/algorithms.md §4.1) on worked examples,
Fish, VSM."""

from __future__ import annotations

import pytest

from crawler import text
from crawler.profile import TopicProfile
from crawler.relevance import kp_max, score_page
from crawler.types import Link, Page


def make(title: str, meta: str = "", anchors: tuple[str, ...] = (), body: str = "") -> Page:
    links = [Link(f"http://t.test/{i}", anchor=a) for i, a in enumerate(anchors)]
    return Page(
        "http://t.test/",
        "http://t.test/",
        200,
        title=title,
        meta_keywords=meta,
        links=links,
        text=body,
    )


def test_worked_example_title_meta_anchors() -> None:
    profile = TopicProfile.from_keywords("足球")
    title = "足球比赛：国安 胜 申花 足球"
    # jieba: 足球比赛 | 国安 | 胜 | 申花 | 足球 → S_t = 5; 足球比赛 contains 足球 → N_t = 2
    assert text.tokenize(title) == ["足球比赛", "国安", "胜", "申花", "足球"]
    anchors = ("足球新闻", "天气预报", "国安 官网")
    # anchors: 足球 | 新闻(stop) · 天气预报 · 国安 | 官网 → S_a = 4, N_a = 1
    assert [text.tokenize(a) for a in anchors] == [["足球", "新闻"], ["天气预报"], ["国安", "官网"]]
    rel = score_page(make(title, "体育,足球", anchors), profile)
    # sim = N_t/S_t + 0.75·B_k + 0.25·N_a/S_a = 2/5 + 0.75 + 0.25/4
    assert rel.score == pytest.approx(2 / 5 + 0.75 + 0.25 / 4)
    assert rel.matched and rel.threshold == 0.5
    assert rel.explanation["parts"] == {"title": 0.4, "meta": 0.75, "anchor": 0.0625}
    assert rel.explanation["hits"] == [
        {
            "term": "足球",
            "weight": 1.0,
            "learned": False,
            "where": {"title": 2, "meta": 1, "anchor": 1},
        }
    ]


def test_worked_example_below_threshold() -> None:
    profile = TopicProfile.from_keywords("中超")
    # 北京国安 | 中超 | 夺冠 | 庆典 | 今晚 | 举行 → 1/6 < T
    rel = score_page(make("北京国安中超夺冠庆典今晚举行"), profile)
    assert rel.score == pytest.approx(1 / 6)
    assert not rel.matched and rel.terms == ["中超"]


def test_weights_and_threshold_are_parameters() -> None:
    profile = TopicProfile.from_keywords("足球")
    page = make("足球 战报", "足球")
    assert score_page(page, profile, params={"w_meta": 0.5, "T": 1.1}).score == pytest.approx(1.0)
    assert not score_page(page, profile, params={"w_meta": 0.5, "T": 1.1}).matched
    assert kp_max() == 2.0


def test_learned_and_synonym_terms_count_with_their_weights() -> None:
    profile = TopicProfile.from_keywords("足球", synonyms="soccer")
    profile.learned = {"中超": 0.4}
    profile._index = None
    rel = score_page(make("中超 soccer 战报 新闻"), profile)
    # S_t = 3 (新闻 is a stop word); N_t = 0.4 + 1
    assert rel.score == pytest.approx(1.4 / 3)
    assert rel.explanation["learned"] == ["中超"]
    assert [h["learned"] for h in rel.explanation["hits"]] == [False, True]


def test_body_text_is_an_optional_signal() -> None:
    profile = TopicProfile.from_keywords("足球")
    page = make("体育新闻", body="足球 足球 足球 今天的比赛")
    assert score_page(page, profile).score == 0
    rel = score_page(page, profile, params={"w_body": 0.5})
    assert rel.score == pytest.approx(0.5 * 3 / 5)
    assert rel.explanation["hits"][0]["where"] == {"body": 3}


def test_fish_is_binary_anywhere_on_the_page() -> None:
    profile = TopicProfile.from_keywords("足球")
    assert score_page(make("体育", body="今天有足球"), profile, method="fish").score == 1.0
    assert not score_page(make("体育", body="篮球"), profile, method="fish").matched


def test_vsm_cosine_prefers_on_topic_text() -> None:
    profile = TopicProfile.from_keywords("足球", examples=["足球 比赛 球员 进球 联赛"])
    on = score_page(make("足球比赛", body="球员 进球 足球 联赛"), profile, method="vsm")
    off = score_page(make("股市", body="股票 基金 涨停"), profile, method="vsm")
    assert on.matched and on.score > 0.3
    assert off.score == 0 and not off.matched


def test_unknown_method() -> None:
    with pytest.raises(ValueError, match="unknown relevance method"):
        score_page(make("x"), TopicProfile.from_keywords("足球"), method="bm25")
