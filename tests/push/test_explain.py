"""The why-line: the model's explanation in plain words; the seed scorers' line unchanged."""

from __future__ import annotations

from push import explain_why, why


def test_seed_scorer_explanations_keep_their_line() -> None:
    kp = {"method": "kp", "parts": {"title": 0.5}, "hits": [], "learned": []}
    assert explain_why(kp, ["足球"], 1.25, "zh") == why(["足球"], 1.25, "zh")
    assert explain_why(None, [], 0.5, "en") == "Matched: on topic (relevance 0.50)"
    # a model explanation without a probability is not trusted to say one
    assert explain_why({"method": "model"}, ["AI"], 0.7, "en") == why(["AI"], 0.7, "en")


def test_a_page_judged_by_the_topic_alone_says_so() -> None:
    info = {"method": "model", "probability": 0.412, "kind": "item", "learned": ["恒大"]}
    assert explain_why(info, [], 0.4, "zh") == (
        "命中关键词：无（按学习到的主题判断）；学习到的词：恒大；相关概率 41%，文章页"
    )
    assert explain_why(info, [], 0.4, "en") == (
        "Matched: none (judged by the topic); learned: 恒大; probability 41%, article"
    )


def test_odd_shapes_do_not_break_the_line() -> None:
    info = {
        "method": "model",
        "probability": 1,
        "kind": "weird",
        "hits": [
            "x",
            {"term": ""},
            {"term": "AI", "where": "title"},
            {"term": "GPU", "where": {"url": 1}},
        ],
        "learned": "not a list",
        "feedback": 1,
    }
    assert explain_why(info, ["AI"], 1.0, "en") == (
        "Matched: AI, GPU (URL); probability 100%; shaped by 1 of your verdict"
    )
