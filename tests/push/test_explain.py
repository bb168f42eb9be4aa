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


def test_how_close_the_page_sits_to_the_topics_pages_is_said() -> None:
    info = {"method": "model", "probability": 0.8, "kind": "item", "site_area": 0.864}
    assert explain_why(info, [], 0.8, "zh") == (
        "命中关键词：无（按学习到的主题判断）；与站内主题文章的接近度 86%；相关概率 80%，文章页"
    )
    assert explain_why(info, [], 0.8, "en") == (
        "Matched: none (judged by the topic); 86% as close to the topic's pages on the site; "
        "probability 80%, article"
    )
    # a value out of range is held to it, not shown as more than the positives' own
    assert "100%" in explain_why(dict(info, site_area=1.7), [], 0.8, "en").split(";")[1]


def test_a_keyword_the_url_names_is_said_to_be_in_the_url() -> None:
    from crawler import Judge, Page, TopicProfile

    url = "https://www.example.com/news/sport/2024/story-1.html"
    page = Page(url, url, 200, title="Holmes is hit by hamstring injury", kind="item")
    judged = Judge(TopicProfile.from_keywords("sports")).judge(page)
    info, p = judged.explanation, judged.probability
    assert explain_why(info, ["sports"], p, "en").startswith("Matched: sports (URL);")
    assert explain_why(info, ["sports"], p, "zh").startswith("命中关键词：sports（网址）；")


def test_a_hit_in_the_breadcrumb_is_named_as_the_section() -> None:
    from crawler import Judge, Page, TopicProfile

    url = "https://www.example.cn/a/20240601/x1.html"
    page = Page(url, url, 200, title="于涛伤愈复出", kind="item", sections=("首页", "体育"))
    judged = Judge(TopicProfile.from_keywords("体育")).judge(page)
    info, p = judged.explanation, judged.probability
    assert explain_why(info, ["体育"], p, "zh").startswith("命中关键词：体育（栏目）；")
    assert explain_why(info, ["体育"], p, "en").startswith("Matched: 体育 (section);")


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
        "site_area": "near",
    }
    assert explain_why(info, ["AI"], 1.0, "en") == (
        "Matched: AI, GPU (URL); probability 100%; shaped by 1 of your verdict"
    )
