"""Headlines without the site's name, summaries without the headline again."""

from __future__ import annotations

import pytest

from push import clean_title, site_suffixes, summary


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("国足世预赛名单公布_体育_门户新闻", "国足世预赛名单公布"),
        ("Cup final tonight | Sports | Daily Site", "Cup final tonight"),
        ("iPhone 15 review - The Verge", "iPhone 15 review"),
        ("中超前瞻｜争冠悬念延续到最后一轮｜体育频道", "中超前瞻｜争冠悬念延续到最后一轮"),
        # no clear separator, or too little left to stand alone: unchanged
        ("Covid-19 vaccines: what we know", "Covid-19 vaccines: what we know"),
        ("中超第28轮前瞻：争冠悬念延续", "中超第28轮前瞻：争冠悬念延续"),
        ("Apple - Wikipedia", "Apple - Wikipedia"),
        ("新浪体育_新浪网", "新浪体育_新浪网"),
        ("Breaking — Storm hits the coast", "Breaking — Storm hits the coast"),
        ("", ""),
    ],
)
def test_separator_rule(raw: str, shown: str) -> None:
    assert clean_title(raw) == shown


def test_suffix_that_repeats_across_a_sites_titles() -> None:
    titles = ["国足名单公布_体育_门户新闻", "中超前瞻_体育_门户新闻", "台风预警_新闻_门户新闻"]
    suffixes = site_suffixes(titles)
    assert suffixes == {"体育", "门户新闻"}
    # short headlines the separator rule alone would keep whole
    assert clean_title("短讯_体育_门户新闻", suffixes) == "短讯"
    assert clean_title("台风预警_新闻_门户新闻", suffixes) == "台风预警_新闻"
    assert (
        clean_title("Apple - Wikipedia", site_suffixes(["Pear - Wikipedia", "Plum - Wikipedia"]))
        == "Apple"
    )
    assert site_suffixes(["only one_体育"]) == frozenset()


def test_summary_never_repeats_the_title() -> None:
    title = "国足世预赛名单公布_体育_门户新闻"
    assert summary(title, title) == ""  # a description that is only the title: nothing
    assert summary("国足世预赛名单公布", title) == ""
    body = "国足世预赛名单公布 国家队公布世预赛集训名单，中超多名新人入选。足球迷热议。"
    assert summary(body, title) == "国家队公布世预赛集训名单，中超多名新人入选。足球迷热议。"


def test_summary_ends_on_a_whole_sentence() -> None:
    text = "The final starts at eight. Fans queued since noon. Tickets sold out within the hour."
    assert (
        summary(text, "Cup final", limit=60) == "The final starts at eight. Fans queued since noon."
    )
    long = "没有标点的一段很长的文字" * 30
    cut = summary(long, "", limit=50)
    assert len(cut) == 50 and cut.endswith("…")


def test_summary_drops_the_headline_as_shown() -> None:
    """A short headline the site's suffixes revealed ("短讯") is not repeated either."""
    text = "短讯 市体育局发布训练营报名通知。"
    assert summary(text, "短讯_体育_门户新闻", headline="短讯") == "市体育局发布训练营报名通知。"
