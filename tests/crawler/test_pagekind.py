"""Page kinds (crawler/pagekind.py): items are pushed, hubs only crawled.

Real saved pages (../shared/data/html), the suite's own fixtures (tests/fixtures/html) and
hand-made Chinese and English pages.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from crawler import HUB, ITEM, parse_html

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "html"
PARA_ZH = (
    "记者从现场获悉，本场比赛观众超过三万人，双方在上半场均有多次射门机会，下半场节奏明显加快。" * 4
)
PARA_EN = (
    "The visitors took the lead early in the first half and held on despite late pressure "
    "from the home side, who had two goals ruled out for offside in the closing minutes. "
) * 3


def kind_of(html: str, url: str) -> str:
    return parse_html(html, url).kind


def test_the_saved_real_pages_are_fifteen_articles_and_one_list(shared_data: Path) -> None:
    pages = sorted((shared_data / "html").glob("*.html"))
    assert len(pages) == 16
    wrong = []
    for path in pages:
        raw = path.read_bytes()
        found = re.search(rb"https?://[^\s\"'<>]+", raw[:400])
        url = found.group(0).decode() if found else "http://example.com/x"
        expected = HUB if "list_page" in path.name else ITEM
        page = parse_html(raw, url)
        if page.kind != expected:
            wrong.append((path.name, page.kind, page.kind_evidence))
    assert wrong == []


@pytest.mark.parametrize(
    ("name", "url", "expected"),
    [
        ("portal_home.html", "http://news.example.cn/", HUB),
        ("list_page.html", "http://news.example.cn/sports/list_2.html", HUB),
        ("article_utf8.html", "http://news.example.cn/2024/0312/a123456.html", ITEM),
        ("article_gbk.html", "http://news.example.cn/2024/0312/a123457.html", ITEM),
        ("story_en.html", "http://www.example.co.uk/sport/12345678", ITEM),
    ],
)
def test_the_suites_own_pages(name: str, url: str, expected: str) -> None:
    page = parse_html((FIXTURES / name).read_bytes(), url)
    assert page.kind == expected, page.kind_evidence
    assert page.kind_evidence  # the decision names what it used


def test_an_english_news_article_declared_by_json_ld() -> None:
    html = (
        "<html><head><title>City win the derby | Sport</title>"
        '<script type="application/ld+json">{"@context": "https://schema.org",'
        ' "@type": "NewsArticle", "headline": "City win the derby"}</script></head>'
        f"<body><nav><a href='/'>Home</a></nav><h1>City win the derby</h1><p>{PARA_EN}</p>"
        "</body></html>"
    )
    page = parse_html(html, "https://news.example.com/sport/city-win-the-derby-again")
    assert page.kind == ITEM
    assert page.kind_evidence[0] == "json-ld newsarticle"


def test_a_chinese_article_with_headline_and_running_text() -> None:
    html = (
        "<html><head><title>国安主场二比一击败申花_体育_示例网</title></head><body>"
        "<div class='nav'><a href='/'>首页</a><a href='/sports/'>体育</a></div>"
        f"<h1>国安主场二比一击败申花</h1><div class='content'><p>{PARA_ZH}</p></div></body></html>"
    )
    assert kind_of(html, "http://sports.example.cn/2024/0601/doc-abc123.shtml") == ITEM


def _link_list(n: int, words: str) -> str:
    return "".join(
        f"<li><a href='/a/{i}.html'>{words}第{i}条新闻标题</a> 2024-06-01</li>" for i in range(n)
    )


@pytest.mark.parametrize(
    ("url", "html"),
    [
        (  # a channel page: a list of links under a short heading
            "http://sports.example.cn/",
            "<html><head><title>体育频道</title></head><body><h1>体育</h1>"
            f"<ul>{_link_list(40, '足球')}</ul></body></html>",
        ),
        (  # pagination
            "http://sports.example.cn/roll/index_3.shtml",
            "<html><head><title>滚动新闻 第3页</title></head>"
            f"<body><ul>{_link_list(30, '体育')}</ul></body></html>",
        ),
        (  # an English tag page
            "https://www.example.com/tag/football?page=2",
            "<html><head><title>Football | Example News</title></head><body><h1>Football</h1><ul>"
            + "".join(
                f"<li><a href='/story/{i}'>Match report number {i} from the weekend</a></li>"
                for i in range(30)
            )
            + "</ul></body></html>",
        ),
        (  # an about page
            "https://www.example.com/about",
            "<html><head><title>About us</title></head><body><h1>About us</h1>"
            "<p>Contact the desk.</p><a href='/'>Home</a><a href='/contact'>Contact</a>"
            "</body></html>",
        ),
    ],
)
def test_hubs(url: str, html: str) -> None:
    page = parse_html(html, url)
    assert page.kind == HUB, page.kind_evidence


def test_a_feed_is_a_hub() -> None:
    rss = (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>体育</title>'
        "<item><title>国安取胜</title><link>http://example.cn/a/1.html</link></item>"
        "</channel></rss>"
    )
    assert parse_html(rss, "http://example.cn/rss.xml").kind == HUB
