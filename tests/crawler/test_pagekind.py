"""Page kinds (crawler/pagekind.py): items are pushed, hubs only crawled.

Real saved pages (../shared/data/html), the suite's own fixtures (tests/fixtures/html) and
hand-made Chinese and English pages.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from crawler import HUB, ITEM, parse_html
from crawler.pagekind import url_item_prior

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


@pytest.mark.parametrize(
    ("before", "after"),
    [("", ""), ("<![CDATA[", "]]>"), ("\n//<![CDATA[\n", "\n//]]>\n")],
    ids=["plain", "cdata", "commented-cdata"],
)
def test_an_english_news_article_declared_by_json_ld(before: str, after: str) -> None:
    """JSON-LD as most sites write it, and wrapped in CDATA as XHTML pages and some publishing
    systems do."""
    html = (
        "<html><head><title>City win the derby | Sport</title>"
        f'<script type="application/ld+json">{before}{{"@context": "https://schema.org",'
        f' "@type": "NewsArticle", "headline": "City win the derby"}}{after}</script></head>'
        f"<body><nav><a href='/'>Home</a></nav><h1>City win the derby</h1><p>{PARA_EN}</p>"
        "</body></html>"
    )
    page = parse_html(html, "https://news.example.com/sport/city-win-the-derby-again")
    assert page.kind == ITEM
    assert page.kind_evidence[0] == "json-ld newsarticle"


def test_a_publication_date_counts_and_a_publishers_tag_on_every_page_does_not() -> None:
    # site-wide SEO plugins print ``article:publisher`` on every page, lists included; only a
    # page's publication date says it was published as a piece
    head = '<meta property="article:publisher" content="https://social.example/site">'
    dated = '<meta property="article:published_time" content="2024-03-12T08:00:00+00:00">'
    teasers = "".join(
        f"<li><a href='/news/story-{i}'>Story number {i} of the week in review</a></li>"
        for i in range(12)
    )
    for meta, expected in ((head, False), (head + dated, True)):
        html = (
            f"<html><head><title>What we do</title>{meta}</head>"
            f"<body><h1>What we do</h1><ul>{teasers}</ul></body></html>"
        )
        evidence = parse_html(html, "https://www.example.org/programmes/").kind_evidence
        assert ("publication-date meta" in evidence) is expected, evidence


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


def _teasers(n: int, headline: str, excerpt: str, *, article: bool = True) -> str:
    """A list of teasers as blogs and news sections print them: a linked headline, the first
    lines of the story under it, sometimes a "read more" link; each in an ``<article>``."""
    tag = "article" if article else "div"
    return "".join(
        f"<{tag} class='teaser'><h2><a href='/2026/11/story-{i}/'>{headline}（{i}）</a></h2>"
        f"<p>{excerpt}</p><a href='/2026/11/story-{i}/'>Read more</a></{tag}>"
        for i in range(n)
    )


_EXCERPT_EN = (
    "The club confirmed on Monday that the new manager will take charge before the weekend "
    "match, with the board promising funds for January and the fans asked to stay patient. "
    "Training resumes on Wednesday."
)
_EXCERPT_ZH = (
    "记者从俱乐部获悉，新任主教练将在周末比赛前正式上任，董事会承诺冬季转会窗口会提供资金支持。" * 2
)


@pytest.mark.parametrize(
    ("url", "html"),
    [
        (  # a blog's category page: ten posts, each a headline and its first lines
            "https://blog.example.com/football/",
            "<html><head><title>Football – A Sports Blog</title></head><body><h1>Football</h1>"
            + _teasers(10, "Manager named ahead of the derby at the weekend", _EXCERPT_EN)
            + "</body></html>",
        ),
        (  # its second page, excerpts twice as long and not in <article> elements
            "https://blog.example.com/football/page/2/",
            "<html><head><title>Football – Page 2</title></head><body><main>"
            + _teasers(
                10,
                "Manager named ahead of the derby at the weekend",
                _EXCERPT_EN * 2,
                article=False,
            )
            + "</main></body></html>",
        ),
        (  # an author's page: a short biography, then the author's stories
            "https://blog.example.com/writers/jane-smith",
            "<html><head><title>Jane Smith</title></head><body><h1>Jane Smith</h1>"
            f"<p>{_EXCERPT_EN}</p>"
            + _teasers(8, "Manager named ahead of the derby at the weekend", _EXCERPT_EN)
            + "</body></html>",
        ),
        (  # a Chinese section page with summaries, under a month's archive
            "http://sports.example.cn/2024/06/",
            "<html><head><title>2024年6月 体育新闻</title></head><body>"
            + _teasers(12, "国安主场二比一击败申花，三分收入囊中", _EXCERPT_ZH)
            + "</body></html>",
        ),
        (  # a tag page of three posts
            "https://blog.example.com/tag/derby/",
            "<html><head><title>Posts tagged derby</title></head><body><h1>Posts tagged derby"
            "</h1>"
            + _teasers(3, "Manager named ahead of the derby at the weekend", _EXCERPT_EN * 2)
            + "</body></html>",
        ),
    ],
)
def test_lists_of_teasers_are_hubs(url: str, html: str) -> None:
    """A page of teasers has much running text and little link text, like a story; what
    tells it apart is that headline links break its text into many short stretches."""
    page = parse_html(html, url)
    assert page.kind == HUB, page.kind_evidence
    assert any("headlines" in why for why in page.kind_evidence)


@pytest.mark.parametrize(
    ("url", "title", "heading", "teasers"),
    [
        # a category's last page: one post and its long excerpt, under a heading that the
        # title repeats, as blog engines title a list's later pages
        (
            "https://blog.example.com/category/sport/page/6/",
            "Sport – Page 6 – A Blog",
            "Sport – Page 6",
            1,
        ),
        (
            "https://blog.example.com/2024/05/page/3/",
            "Archive: May 2024 · Page 3 | A Blog",
            "Archive: May 2024 · Page 3",
            2,
        ),
        (
            "http://blog.example.cn/category/tiyu/index_3.html",
            "体育 – 第3页 – 山中来信",
            "体育 – 第3页",
            1,
        ),
        # a tag's list of two posts
        (
            "https://blog.example.com/tag/wales/",
            "Posts tagged “wales” – A Blog",
            "Posts tagged “wales”",
            2,
        ),
    ],
)
def test_a_lists_last_page_of_one_or_two_teasers_is_a_hub(
    url: str, title: str, heading: str, teasers: int
) -> None:
    """Too few teasers to read as a list (a blog engine's excerpt of about fifty words under
    each), and as much running text as a short post: the path and a heading that names the
    list's page say what the page is."""
    html = (
        f"<html><head><title>{title}</title></head><body><main><h1>{heading}</h1>"
        + _teasers(teasers, "Manager named ahead of the derby at the weekend", _EXCERPT_EN)
        + "</main></body></html>"
    )
    page = parse_html(html, url)
    assert page.kind == HUB, page.kind_evidence
    assert "headline h1 = title" not in page.kind_evidence


def test_an_articles_second_page_by_a_bare_number_is_still_an_item() -> None:
    """A story split over pages (``/slug/2/``) names its page by a number alone; "Page 2" in
    the heading of a story about a newspaper's page 3 is a headline still."""
    html = (
        "<html><head><title>The day the cup came home, page 2</title></head><body><main>"
        f"<h1>The day the cup came home, page 2</h1><p>{PARA_EN}</p><p>{PARA_EN}</p></main>"
        "</body></html>"
    )
    page = parse_html(html, "https://news.example.com/sport/the-day-the-cup-came-home/2/")
    assert page.kind == ITEM, page.kind_evidence
    story = parse_html(
        "<html><head><title>Why Page 3 mattered to a generation of readers</title></head>"
        f"<body><main><h1>Why Page 3 mattered to a generation of readers</h1><p>{PARA_EN}</p>"
        "</main></body></html>",
        "https://news.example.com/media/why-page-3-mattered-to-a-generation",
    )
    assert story.kind == ITEM and "headline h1 = title" in story.kind_evidence


def test_a_story_followed_by_related_headlines_is_an_item() -> None:
    related = "".join(
        f"<li><a href='/news/related-story-number-{i}'>Another story about the cup draw {i}</a>"
        "</li>"
        for i in range(6)
    )
    html = (
        "<html><head><title>What we know about the cup draw</title></head><body>"
        f"<main><h1>What we know about the cup draw</h1><p>{PARA_EN}</p><p>{PARA_EN}</p>"
        f"<h3>Related</h3><ul>{related}</ul></main></body></html>"
    )
    page = parse_html(html, "https://news.example.com/sport/what-we-know-about-the-cup-draw")
    assert page.kind == ITEM, page.kind_evidence
    # "about" inside a story's slug is not an about page
    assert "list-like path" not in page.kind_evidence


def test_the_main_text_of_a_list_of_teasers_holds_every_teaser() -> None:
    """Each teaser in its own ``<article>``: the largest is not the page's main text."""
    html = (
        "<html><head><title>Football</title></head><body>"
        + _teasers(5, "Manager named ahead of the derby at the weekend", _EXCERPT_EN)
        + "</body></html>"
    )
    page = parse_html(html, "https://blog.example.com/football/")
    assert page.text.count("Manager named ahead of the derby") == 5


def test_a_feed_is_a_hub() -> None:
    rss = (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>体育</title>'
        "<item><title>国安取胜</title><link>http://example.cn/a/1.html</link></item>"
        "</channel></rss>"
    )
    assert parse_html(rss, "http://example.cn/rss.xml").kind == HUB


@pytest.mark.parametrize(
    ("url", "item_like"),
    [
        ("https://news.example.com/technology/", False),
        ("https://news.example.com/entertainment/", False),
        ("https://news.example.com/international/", False),
        ("https://www.example.cn/shehuixinwen/", False),
        ("https://news.example.com/2005/12/08/holmes-feted-with-further-honour.html", True),
        ("https://news.example.com/v/dQw4w9WgXcQ", True),
        ("https://news.example.com/a/5f3a9c2e1b/", True),
        ("https://news.sina.com.cn/c/doc-ihmutuee1234567.shtml", True),
        # blog engines' permalinks: a post's number on the root, after a day, under archives
        ("https://blog.example.com/?p=123", True),
        ("https://blog.example.com/2019/05/17/771/", True),
        ("https://blog.example.cn/archives/123.html", True),
        ("https://blog.example.cn/archives/123/", True),
        ("https://blog.example.cn/post/231/", True),
        ("https://news.example.com/sport/2/", False),
        # and their lists: pages, a month's archive, a year's, a search
        ("https://blog.example.com/?paged=2", False),
        ("https://blog.example.com/?s=derby", False),
        ("https://blog.example.com/2019/05/page/2/", False),
        ("https://blog.example.cn/archives/2019/", False),
        ("https://blog.example.com/page/3/", False),
        ("https://forum.example.com/list.php?p=3", False),
    ],
)
def test_a_long_section_name_is_not_an_id(url: str, item_like: bool) -> None:
    """A URL not yet fetched looks like a story by a date, a number or an id in it; a long
    word is a section's name ("/entertainment/"), and it was taken for an id, so the crawl
    expected a story behind every long-named channel link."""
    assert (url_item_prior(url) > 0.5) is item_like


def test_a_story_with_links_to_other_stories_between_its_paragraphs_is_an_item() -> None:
    """Three "read more" headlines inside a story break its text as three teasers would:
    its headline and its paragraphs still make it a story."""
    inline = "".join(
        f"<p>{PARA_EN}</p><p>Read more: <a href='/news/other-story-{i}'>Another story about "
        f"the cup draw, number {i}</a></p>"
        for i in range(3)
    )
    html = (
        "<html><head><title>What we know about the cup draw</title></head><body><main>"
        f"<h1>What we know about the cup draw</h1>{inline}<p>{PARA_EN}</p></main></body></html>"
    )
    page = parse_html(html, "https://news.example.com/sport/what-we-know-about-the-cup-draw")
    assert page.kind == ITEM, page.kind_evidence


def test_a_guide_whose_headings_link_to_themselves_is_an_item() -> None:
    """Documentation and many blogs make each section heading a link to itself (``#id``)
    for sharing: those are no teasers of other stories, and a long guide is one piece."""
    sections = [
        "Installing the command line tools",
        "Creating your first repository today",
        "Committing changes to the history",
        "Sharing changes with other people",
        "Undoing mistakes in your working copy",
    ]
    para = (
        "This section explains the step in detail, with the commands to type and what each "
        "of them prints on the screen. "
    )
    body = "".join(
        f'<div class="section" id="s{i}"><h2><a href="#s{i}">{t}</a></h2><p>{para * 2}</p></div>'
        for i, t in enumerate(sections)
    )
    html = (
        "<html><head><title>A quick guide to version control</title></head><body>"
        f"<div class='body'><h1>A quick guide to version control</h1>{body}</div></body></html>"
    )
    page = parse_html(html, "https://docs.example.org/guide/quickstart.html")
    assert page.kind == ITEM, page.kind_evidence
    # the same headings linking to other pages are a list of teasers
    listed = parse_html(
        html.replace('href="#s', 'href="/guide/part-'), "https://docs.example.org/guide/"
    )
    assert any("headlines" in e for e in listed.kind_evidence), listed.kind_evidence


def test_a_blogs_name_in_an_h1_before_the_posts_headline() -> None:
    """Many blog themes print the blog's name as an ``<h1>`` in the header and the post's
    headline as a second one: the headline is the one the title repeats."""
    html = (
        "<html><head><title>Why I moved my notes to plain text – Field Notes</title></head>"
        "<body><header><h1><a href='/'>Field Notes</a></h1></header>"
        f"<main><h1>Why I moved my notes to plain text</h1><p>{PARA_EN}</p></main></body></html>"
    )
    page = parse_html(html, "https://fieldnotes.example/2024/05/plain-text-notes/")
    assert page.kind == ITEM
    assert "headline h1 = title" in page.kind_evidence, page.kind_evidence


def _portal_page(head: str, under: str, text: str) -> str:
    """A portal page: a navigation bar, ``head`` as its ``<h1>`` with ``under`` below it,
    ``text``, then lists of other stories, as Chinese portals print around a story."""
    others = [
        "".join(
            f"<li><a href='/2018/0{1 + i % 9}1{i % 10}/doc-{i:04d}.shtml'>"
            f"第{i}条其他新闻的标题在这里显示出来</a></li>"
            for i in range(start, start + 20)
        )
        for start in (0, 20)
    ]
    nav = "".join(f"<a href='/{c}/'>{c}</a>" for c in ("体育", "财经", "科技", "社会", "汽车"))
    return (
        f"<html><head><title>{head}_财经_示例网</title></head><body><div class='nav'>{nav}</div>"
        f"<div class='main'><h1>{head}</h1>{under}<div class='article'><p>{text}</p></div></div>"
        f"<div class='box'><h3>相关新闻</h3><ul>{others[0]}</ul></div>"
        f"<div class='box'><h3>热点排行</h3><ul>{others[1]}</ul></div>"
        "</body></html>"
    )


@pytest.mark.parametrize(
    "url",
    [
        "http://finance.example.cn/content/2384756.html",
        "http://finance.example.cn/show.php?id=2384756",
        "http://finance.example.cn/a/2384756",
    ],
)
def test_a_brief_dated_under_its_headline_is_an_item_at_any_address(url: str) -> None:
    """A story of a headline and a line, on a page thick with other stories' links, at an
    address with no date in it: the date under its headline says it is a story."""
    head = "创业板收跌0.18% 成交萎缩四成结束三连阳"
    line = "创业板收跌0.18%，成交萎缩四成结束三连阳。本文涉及：创业板、成交量、三连阳、深市。"
    dated = _portal_page(head, "<div class='date-source'>2018-01-12 示例网财经</div>", line)
    page = parse_html(dated, url)
    assert page.kind == ITEM, page.kind_evidence
    assert "dated under its headline" in page.kind_evidence
    # the date stands under the headline only before any link to another page
    linked = _portal_page(
        head, "<p><a href='/2018/0112/doc-9.shtml'>上一篇</a> 2018-01-12</p>", line
    )
    assert "dated under its headline" not in parse_html(linked, url).kind_evidence


def test_a_lists_heading_and_id_are_the_lists() -> None:
    """ "标签：x" / "Posts tagged x" over a list of one post is no story's headline, and the
    number in /tag/178270/ is the tag's, however the one teaser under it is dated."""
    for heading, url in (
        ("标签：美式音标及其发音", "http://blog.example.cn/tag/178270/"),
        ("Posts tagged “scotland rugby union”", "http://blog.example.com/tag/2024551/"),
    ):
        html = (
            f"<html><head><title>{heading} – 半亩方塘</title></head><body><main>"
            f"<h1>{heading}</h1><div class='entry'><h2><a href='/2024/02/08/1695/'>"
            "怎样零基础学好英语？</a></h2><p class='meta'>2024-02-08</p>"
            f"<p>{PARA_ZH}</p><a href='/2024/02/08/1695/'>阅读全文»</a></div></main></body></html>"
        )
        page = parse_html(html, url)
        assert page.kind == "hub", page.kind_evidence
        assert "headline h1 = title" not in page.kind_evidence
        assert "id or slug in path" not in page.kind_evidence


@pytest.mark.parametrize("tag", ["h2", "div class='title'", "p class='article-title'"])
def test_a_brief_whose_headline_is_in_no_h1_is_an_item(tag: str) -> None:
    """Templates that print a story's headline as an ``<h2>`` or a ``<div>``: the title's
    headline shown on its own, in no link, counts as the ``<h1>`` would, and so does the date
    under it."""
    head = "创业板收跌0.18% 成交萎缩四成结束三连阳"
    line = "创业板收跌0.18%，成交萎缩四成结束三连阳。本文涉及：创业板、成交量、三连阳、深市。"
    html = _portal_page(head, "<div class='date-source'>2018-01-12 示例网财经</div>", line)
    close = tag.split()[0]
    html = html.replace(f"<h1>{head}</h1>", f"<{tag}>{head}</{close}>")
    page = parse_html(html, "http://finance.example.cn/content/2384756.html")
    assert page.kind == ITEM, page.kind_evidence
    assert "headline shown = title" in page.kind_evidence
    assert "dated under its headline" in page.kind_evidence
    # the same words as a link to another page are another story's teaser
    linked = html.replace(f">{head}</{close}>", f"><a href='/b/1.html'>{head}</a></{close}>")
    assert "headline shown = title" not in parse_html(linked, page.url).kind_evidence


def test_a_byline_may_link_its_author_before_the_date() -> None:
    """文/<author> · 2024-06-15 under the headline dates the story (a short one on a page thick
    with links is an item by it); a list's short headline linked before its date does not."""
    head = "影游联动巨制不删档测试预约开启"
    line = "影游联动巨制不删档测试预约开启。关键词：游戏、回合制、手游。"
    byline = (
        "<p class='byline'>文/<a href='/author/9/'>徐瑶</a> · "
        "<time datetime='2024-06-15'>2024-06-15</time></p>"
    )
    page = parse_html(_portal_page(head, byline, line), "http://mag.example.cn/105068")
    assert "dated under its headline" in page.kind_evidence
    assert page.kind == ITEM, page.kind_evidence
    # the same line under a list's heading, its link an item's address: a teaser, not a byline
    teaser = (
        "<ul><li><a href='/2004/02/04/chelsea-sack-mutu-68461.html'>Chelsea sack Mutu</a> "
        "<time datetime='2004-02-04'>2004-02-04</time></li></ul>"
    )
    html = (
        "<html><head><title>In depth: the road to the final | The Herald</title></head><body>"
        f"<main><h1>In depth: the road to the final</h1>{teaser}</main></body></html>"
    )
    listed = parse_html(html, "http://www.example.com/topics/champions-league/")
    assert "dated under its headline" not in listed.kind_evidence
    assert listed.kind == HUB, listed.kind_evidence
    # a byline's line holds the date: a short link on a line of its own before it is no byline's
    apart = "<p><a href='/author/9/'>徐瑶</a></p><p>2024-06-15</p>"
    page = parse_html(_portal_page(head, apart, line), "http://mag.example.cn/105068")
    assert "dated under its headline" not in page.kind_evidence


def _cards(n: int, headline: str, excerpt: str, start: int = 0) -> str:
    """Cards as magazines print them: a heading that is a link, an excerpt, author and date."""
    return "".join(
        f"<div class='card'><h3><a href='/read/{i:08x}'>{headline} {i}</a></h3>"
        f"<p class='excerpt'>{excerpt}</p><p class='meta'><span>Liam Nash</span> · "
        f"<time datetime='2024-05-05'>05 May 2024</time></p></div>"
        for i in range(start, start + n)
    )


@pytest.mark.parametrize(
    ("url", "heading", "cards"),
    [
        # a section's last "load more" page of two cards with long excerpts
        ("https://mag.example.com/s/future/more/3", "Future · page 3", 2),
        # an author's last page of one card
        ("https://mag.example.com/author/liam-nash/?page=4", "Liam Nash", 1),
        # five cards whose headlines are short: a heading that is a link is a teaser's
        ("https://mag.example.com/s/future/", "Future", 5),
    ],
)
def test_a_list_of_few_cards_is_a_hub(url: str, heading: str, cards: int) -> None:
    html = (
        f"<html><head><title>{heading} — Coastline</title></head><body>"
        f"<main><h1>{heading}</h1><div class='grid'>"
        f"{_cards(cards, 'Patches', _EXCERPT_EN * 3)}</div></main></body></html>"
    )
    page = parse_html(html, url)
    assert page.kind == HUB, page.kind_evidence


def test_a_story_that_shows_its_headline_keeps_its_related_cards() -> None:
    """A story with its own headline and a "Related" grid of cards stays an item."""
    html = (
        "<html><head><title>Gamer buys virtual island for $26,500 — Coastline</title></head>"
        "<body><main><article><h1>Gamer buys virtual island for $26,500</h1>"
        f"<p>{PARA_EN}</p><aside><h2>Related</h2>{_cards(2, 'Patches', _EXCERPT_EN)}</aside>"
        "</article></main></body></html>"
    )
    page = parse_html(html, "https://mag.example.com/read/0a1b2c3d")
    assert page.kind == ITEM, page.kind_evidence


def test_three_cards_one_excerpt_longer_are_a_list() -> None:
    """Three cards under a heading the title repeats, one excerpt twice the others: 40 % of
    the running text in one stretch is still a list's third, not a story's body."""
    cards = (
        _cards(1, "Patches", _EXCERPT_EN * 2)
        + _cards(1, "Bond game fails to shake", _EXCERPT_EN, start=1)
        + _cards(1, "Gallery unveils tree", _EXCERPT_EN, start=2)
    )
    html = (
        "<html><head><title>Stories by David Okafor — Metro Dispatch</title></head><body>"
        f"<main><h1>Stories by David Okafor</h1><div class='grid'>{cards}</div></main>"
        "</body></html>"
    )
    page = parse_html(html, "http://metrodispatch.example/author/david-okafor/")
    assert "main block lists 3 headlines" in page.kind_evidence, page.kind_evidence
    assert page.kind == HUB
