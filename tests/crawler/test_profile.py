"""Topic profiles: parsing user input, merging, persistence, and learning without drift."""

from __future__ import annotations

import pytest

from crawler.profile import TopicProfile, split_terms
from crawler.relevance import score_page
from crawler.text import joined
from crawler.text import tokenize as text_tokens
from tests.crawler.focus_graphs import order, page, run, site


def test_keywords_accept_full_width_separators_and_dedupe() -> None:
    assert split_terms("足球，中超、足球; ＮＢＡ,world  cup") == [
        "足球",
        "中超",
        "nba",
        "world cup",
    ]
    profile = TopicProfile.from_keywords("足球,中超", synonyms="国足，中超", exclude="彩票")
    assert profile.keywords == ["足球", "中超"]
    assert profile.synonyms == ["国足"]
    assert profile.terms() == {"足球": 1.0, "中超": 1.0, "国足": 1.0}


def test_phrases_and_compound_tokens_match() -> None:
    profile = TopicProfile.from_keywords("world cup, 中超")
    assert profile.match(["the", "world", "cup", "final"]) == ["world cup"]
    # jieba keeps 中超联赛 whole; it is still about 中超
    assert profile.match(["中超联赛", "第五轮"]) == ["中超"]


@pytest.mark.parametrize(
    ("tokens", "found"),
    [
        (["国", "足", "主帅"], ["国足"]),  # a word the dictionary does not hold, cut apart
        (["国足队", "主帅"], ["国足"]),  # inside a longer word, where it starts
        (["国", "足队"], ["国足"]),  # across a cut, starting where a token does
        (["中国", "足球"], ["足球"]),  # 国足 crosses the cut with neither end on it
        (["中国足球队"], ["足球"]),  # inside one word: the one nearest its end
        (["中国足协"], ["足协"]),  # ends where the word does
        (["恒大", "在", "权健亚冠", "主场"], ["恒大", "权健", "亚冠"]),  # two in one word
        (["c", "罗", "梅开二度"], ["c罗"]),
        (["亚冠", "the", "world", "cup", "亚冠"], ["亚冠", "world cup", "亚冠"]),
        (["亚冠中", "超加"], ["亚冠"]),  # not 中超: neither of its ends is on a cut
    ],
)
def test_chinese_terms_match_however_the_text_was_cut(tokens: list[str], found: list[str]) -> None:
    profile = TopicProfile.from_keywords("国足,足球,足协,恒大,权健,亚冠,C罗,world cup,中超")
    assert profile.match(tokens) == found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("NBA中，超巨、巨星", []),  # 中 / 超 across a comma
        ("调查中 超过半数", []),  # and across a space
        ("中超联赛，国足队", ["中超", "国足"]),
        ("梅西和C罗", ["c罗"]),  # C / 罗: a cut inside one run, healed
        ("今天的C，罗马", []),
    ],
)
def test_a_chinese_term_never_spans_punctuation_or_a_space(text: str, found: list[str]) -> None:
    profile = TopicProfile.from_keywords("国足,中超,C罗")
    assert profile.match(text_tokens(text)) == found
    assert profile.match(text_tokens(text, profile.words)) == found
    # several texts read together (a page's links' anchors) break between one and the next
    assert profile.match(joined([text_tokens("NBA中"), text_tokens("超巨")])) == []
    assert profile.match(joined([text_tokens("国"), text_tokens("足队")])) == []


def test_exclude_words_zero_the_score() -> None:
    profile = TopicProfile.from_keywords("足球", exclude="彩票")
    rel = score_page(page("/", "足球 彩票 推荐"), profile)
    assert rel.score == 0 and not rel.matched
    assert rel.explanation["excluded"] == ["彩票"]


def test_merged_profile_for_a_union_crawl() -> None:
    a = TopicProfile.from_keywords("足球", exclude="彩票,广告")
    b = TopicProfile.from_keywords("篮球", synonyms="nba", exclude="广告")
    a.learned = {"中超": 0.4}
    merged = TopicProfile.merged([a, b])
    assert merged.keywords == ["足球", "篮球"]
    assert merged.synonyms == ["nba"]
    assert merged.exclude == ["广告"]  # only what every concern excludes
    assert merged.learned == {"中超": 0.4}


def test_to_dict_round_trip() -> None:
    profile = TopicProfile.from_keywords("足球", synonyms="soccer", exclude="彩票")
    profile.learned = {"中超": 0.5}
    profile.df_strong = {"中超": 3}
    copy = TopicProfile.from_dict(profile.to_dict())
    assert copy.to_dict() == profile.to_dict()
    assert copy.is_learned("中超") and not copy.is_learned("足球")


def strong(i: int) -> object:
    return page(
        f"/s{i}", "足球 中超 战报", meta_keywords="足球,中超", text=f"中超第{i}轮 国安 申花"
    )


def test_learning_needs_support_specificity_and_user_terms() -> None:
    profile = TopicProfile.from_keywords("足球")
    background = ("天气预报 晴", "股市 行情", "电影 排行", "手机 评测")
    for p in (page(f"/b{i}", title) for i, title in enumerate(background)):
        profile.learn(p, score_page(p, profile))
    learned: list[str] = []
    for i in range(3):
        p = strong(i)
        learned += profile.learn(p, score_page(p, profile))
    assert "中超" in learned
    # lift = P(中超 | strong) / P(中超 | any page) = 1 / (3/7); weight 0.5·(1 − 1/lift)
    assert profile.learned["中超"] == pytest.approx(0.5 * (1 - 3 / 7), abs=1e-4)
    # pages that match only through learned terms never teach anything
    before = dict(profile.df_strong)
    only_learned = page("/z", "中超 积分榜", meta_keywords="中超")
    rel = score_page(only_learned, profile)
    assert rel.score > 0 and rel.explanation["learned"] == ["中超"]
    profile.learn(only_learned, rel)
    assert profile.df_strong == before
    assert "积分榜" not in profile.learned


def test_site_chrome_on_every_page_is_never_learned() -> None:
    profile = TopicProfile.from_keywords("足球")
    for i in range(6):
        p = page(f"/s{i}", "足球 新浪体育", meta_keywords="足球")
        profile.learn(p, score_page(p, profile))
    for i in range(6):
        p = page(f"/o{i}", "篮球 新浪体育")
        profile.learn(p, score_page(p, profile))
    assert "新浪体育" not in profile.learned


def test_learning_is_capped() -> None:
    profile = TopicProfile.from_keywords("足球", params={"learn_max_terms": 2, "learn_min_lift": 0})
    for i in range(4):
        p = page(f"/s{i}", "足球 中超 国安 申花 恒大", meta_keywords="足球")
        profile.learn(p, score_page(p, profile))
    assert len(profile.learned) == 2


BACKGROUND = ("天气预报", "股市行情", "电影", "手机", "汽车", "美食", "旅游") * 3
STRONG_LINKS = [(f"/s{i}", "链接") for i in range(3)]


def football_site() -> dict:
    """足球 pages that also say 中超, background pages, and a hub of 中超-only pages.

    When the hub is fetched, 24 pages were seen, 4 strong (the seed and /s0–/s2): lift(中超) =
    (3/4) / (3/24) = 6, weight 0.5·(1 − 1/6) = 0.417, so 中超 积分榜 (meta 中超) scores
    0.417/2 + 0.75·0.417 = 0.52 ≥ T.
    """
    hub = [("/w1", "天气"), ("/z1", "中超积分榜"), ("/w2", "股市"), ("/z2", "中超赛程")]
    return site(
        page(
            "/",
            "足球新闻",
            [*((f"/b{i}", "链接") for i in range(len(BACKGROUND))), *STRONG_LINKS, ("/h", "链接")],
        ),
        *(page(f"/b{i}", title) for i, title in enumerate(BACKGROUND)),
        *(strong(i) for i in range(3)),
        page("/h", "赛事导航", hub),
        page("/w1", "天气"),
        page("/w2", "股市"),
        page("/z1", "中超 积分榜", meta_keywords="中超"),
        page("/z2", "中超 赛程", meta_keywords="中超"),
    )


async def test_a_football_crawl_learns_to_find_pages_that_never_say_football() -> None:
    # the seed scorer (kp) with learned terms: the learned model has its own tests
    plain = await run(football_site(), "足球", "topic-pagerank", learn=False, scorer="kp")
    learned = await run(football_site(), "足球", "topic-pagerank", learn=True, scorer="kp")
    assert order(plain)[-4:] == ["/w1", "/z1", "/w2", "/z2"]  # hub links in page order
    assert order(learned)[-4:] == ["/z1", "/z2", "/w1", "/w2"]  # 中超 links first
    z_plain = {e.url[-3:]: e for e in plain}["/z1"]
    z_learned = {e.url[-3:]: e for e in learned}["/z1"]
    assert not z_plain.matched
    assert z_learned.matched
    hit = z_learned.explanation["hits"][0]
    assert hit["term"] == "中超" and hit["learned"] is True
