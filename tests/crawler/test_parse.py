"""Page analysis on the suite's own pages (tests/fixtures/html), on the saved real news pages of
../shared/data/html (CI and benchmarks) and on crafted HTML."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urljoin

import pytest

from crawler.fetch import FetchConfig, Fetcher
from crawler.parse import parse_html
from tests.crawler.helpers import source_url
from tests.crawler.server import Reply, TestWeb

LOCAL = "http://127.0.0.1:8000/"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "html"

# the suite's own pages: file → (title, a meta keyword, (link, its anchor text), a phrase of the
# main text); a relative link is resolved against the page's URL
OWN: dict[str, tuple[str, str, tuple[str, str], str]] = {
    "portal_home.html": (
        "星河网 - 新闻门户首页",
        "体育",
        (
            "https://sports.xinghe.example/2024/0512/zhongchao-10.html",
            "中超第十轮：海港客场两球击败国安",
        ),
        "今日要闻",
    ),
    "list_page.html": (
        "中超新闻列表 - 星河体育",
        "中超",
        ("/2024/0428/match-1.html", "中超第20轮：海港对阵国安赛后综述"),
        "中超第11轮",
    ),
    "article_utf8.html": (
        "中超第十轮：海港客场两球击败国安_星河体育",
        "海港",
        ("/2024/0511/guozu.html", "国足集训名单公布 三名新人入选"),
        "海港队在客场拿下宝贵的三分",
    ),
    "article_gbk.html": (
        "江南入梅 多地发布暴雨预警_星河天气",
        "暴雨",
        ("/2024/0510/heat.html", "华南高温持续 最高气温超过三十五度"),
        "比常年偏早五天",
    ),
    "story_en.html": (
        "The Lighthouse Keeper's Last Winter | Harbour Tales",
        "lighthouse",
        ("/stories/salt-and-iron.html", "Salt and Iron"),
        "one hundred and twelve steps",
    ),
}

# file → (title, a meta keyword, (link URL, its anchor text), a phrase of the main text)
EXPECTED: dict[str, tuple[str, str, tuple[str, str], str]] = {
    "test_list_page_163_1.html": (
        "网易新闻",
        "新闻中心",
        ("http://data.163.com/20/0731/20/FIT0B0MS000181IU.html", "在中国，读文科到底有多惨"),
        "网易",
    ),
    "tests_163_1.html": (
        '多地项目连环爆雷 狂奔的龙湖集团"暗伤"曝露？_网易财经',
        "吴亚军",
        (
            "http://news.163.com/19/0907/00/EOEC73F90001899O.html",
            "11城5G基站建设时间表出炉 快看有你的家乡吗？",
        ),
        "龙湖集团即将迎来赴港上市10周年",
    ),
    "tests_163_2.html": (
        "姚明对周琦说了啥？周琦上下半场判若两人_网易新闻",
        "中国男篮",
        (
            "https://news.163.com/19/0908/09/EOHSPFB10001899N.html",
            "香港暴徒7日晚挑衅港警 速龙小队出击制服多人",
        ),
        "中国男篮以77比73战胜韩国队",
    ),
    "tests_163_3.html": (
        '奖金711万元！"中国诺贝尔奖"首位获奖女性啥来头?_网易新闻',
        "基础科学",
        (
            "https://news.163.com/19/0908/09/EOHSPFB10001899N.html",
            "香港暴徒7日晚挑衅港警 速龙小队出击制服多人",
        ),
        "未来科学大奖2019年获奖名单在北京公布",
    ),
    "tests_baijiahao_1.html": (
        "英国美女在殡仪馆工作太痛苦，转行当美人鱼！每小时收入近千元",
        "",
        (
            "https://mbd.baidu.com/newspage/data/landingsuper?context=%7B%22nid%22%3A%22news_"
            "9995317899172640656%22%7D&n_type=1&p_from=3",
            "韩庚将在新西兰大婚，刘诗诗也来过！为何新西兰成明星结婚圣地",
        ),
        "她曾担任当地的殡仪馆主任",
    ),
    "tests_gamersky_gamersky.html": (
        "逆水寒再按照这个速度研发下去 应该马上就要收到律师函了！|游民星空",
        "",
        ("https://wap.gamersky.com/news/Content-1220000_2.html", "下一页"),
        "逆水寒在每个玩家的庄园中",
    ),
    "tests_huanqiu_1.html": (
        "补壹刀：别笑！18人的“新八国联军”今天成立了",
        "国安法",
        ("http://world.huanqiu.com/", "国际"),
        "跨国议会对华政策联盟",
    ),
    "tests_ifeng_1.html": (
        "女童眼睛被塞几十片纸，“无法用科学解释”_凤凰网资讯_凤凰网",
        "禹州市",
        ("https://news.ifeng.com/c/7rtOgmftdT6", "印度8岁女童单手劈瓷砖超轻松一人破两项世界纪录"),
        "调查组仍在紧锣密鼓工作中",
    ),
    "tests_people_1.html": (
        "女儿出嫁，郑板桥画了几笔兰花当嫁妆--文化--人民网",
        "",
        ("http://culture.people.com.cn/n1/2018/0423/c1013-29942426.html", "明星读经典,为你做海报"),
        "今年的6月16日是父亲节",
    ),
    "tests_qq_2.html": (
        "棱镜|数据业大整顿：爬虫与现金贷共生共荣，用户信息几元不等_财经_腾讯网",
        "套路贷",
        ("https://finance.qq.com/a/20180203/002129.htm", "第465期：英国女王到底有多少地产？"),
        "监管方从年初就在酝酿针对数据公司的整顿清理",
    ),
    "tests_sina_1.html": (
        "中国人习以为常的地方 为何老外却说“了不得”？|公园_新浪新闻",
        "公园",
        ("https://weibo.com/u/5436170197", "yangyang13847"),
        "说这话的大叔Gweilo是个加拿大人",
    ),
    "tests_sina_2.html": (
        '60万"12306账号"外泄? 中铁总辟谣称消息不实|辟谣_新浪财经_新浪网',
        "辟谣",
        (
            "https://finance.sina.com.cn/china/gncj/2018-12-28/doc-ihqfskcn1918428.shtml",
            "外媒：美国与中国经济脱钩是自残行为",
        ),
        "铁路12306网站未发生用户信息泄漏",
    ),
    "tests_thepaper_1.html": (
        "共享充电宝涨价告别1元时代：是“收割韭菜”还是回归理性_10%公司_澎湃新闻-The Paper",
        "共享充电宝",
        (LOCAL + "newsDetail_forward_4322765", "面对美团突袭，市面上的共享充电宝们悄然“涨价”"),
        "这完全是‘收割韭菜’行为",
    ),
    "tests_thepaper_2.html": (
        "定了！广州南沙邮轮母港即将开通！地铁直达+无敌免..._政务_澎湃新闻-The Paper",
        "",
        (
            LOCAL + "newsDetail_forward_4561367",
            "朱婷卫冕女排世界杯MVP！颜妮、王梦洁、丁霞入选最佳阵容",
        ),
        "广州南沙国际邮轮母港将于11月17日正式开",
    ),
    "tests_toutiao_2.html": (
        "最不愁吃肉的国家：顿顿有肉吃，却要靠中国运输蔬菜水果",
        "今日头条",
        (
            "https://www.toutiao.com/group/6730512021869036043/",
            "9图 新时代中国奇迹：这片曾威胁过首都的沙漠，被“收服”了",
        ),
        "只有这么一个国家一脸淡定",
    ),
    "tests_xinhuanet_1.html": (
        "法国全国大罢工再次严重影响交通-新华网",
        "退休",
        (
            "http://www.xinhuanet.com/politics/2019-12/10/c_1125327359.htm",
            "雄安等13地区试点“交通强国”建设",
        ),
        "反对政府进行退休制度改革",
    ),
}


def _pages(shared_data: Path) -> list[Path]:
    pages = sorted((shared_data / "html").glob("*.html"))
    assert {p.name for p in pages} >= set(EXPECTED), "a saved page is missing"
    return pages


def _check_page(page: object, url: str, expected: tuple[str, str, tuple[str, str], str]) -> None:
    title, keyword, (link, anchor), phrase = expected
    link_url = urljoin(url, link)
    assert page.title == title  # type: ignore[attr-defined]
    assert keyword in page.meta_keywords  # type: ignore[attr-defined]
    links = {link.url: link for link in page.links}  # type: ignore[attr-defined]
    assert link_url in links, f"{link_url} not among {len(links)} links"
    assert links[link_url].anchor == anchor
    assert anchor[:6] in links[link_url].context
    assert len(links[link_url].context) <= 120
    assert phrase in page.text  # type: ignore[attr-defined]
    assert len(links) == len(page.links)  # type: ignore[attr-defined]  # de-duplicated
    assert all(link.url.startswith(("http://", "https://")) for link in links.values())
    assert all("#" not in link.url and "utm_" not in link.url for link in links.values())
    assert page.content_hash and page.simhash != 0  # type: ignore[attr-defined]


def test_the_suite_has_its_own_pages():
    assert sorted(p.name for p in FIXTURES.glob("*.html")) == sorted(OWN)


@pytest.mark.parametrize("name", sorted(OWN))
def test_own_page(name: str):
    url = "https://news.xinghe.example/a/" + name
    _check_page(parse_html((FIXTURES / name).read_bytes(), url), url, OWN[name])


def test_page_level_facts_of_own_pages():
    def parse(name: str) -> object:
        return parse_html((FIXTURES / name).read_bytes(), "https://www.xinghe.example/" + name)

    portal = parse("portal_home.html")
    assert portal.canonical_url == "https://www.xinghe.example/"  # type: ignore[attr-defined]
    assert portal.feeds == ["https://www.xinghe.example/rss/top.xml"]  # type: ignore[attr-defined]
    assert portal.description.startswith("星河网是一个虚构的新闻门户")  # type: ignore[attr-defined]
    urls = {link.url: link for link in portal.links}  # type: ignore[attr-defined]
    assert urls["https://ads.example.net/click?id=42"].nofollow
    assert "https://finance.xinghe.example/2024/0512/cpi.html" in urls  # utm_ parameters dropped
    assert "https://tech.xinghe.example/2024/0512/chip.html" in urls  # the fragment dropped
    assert not any(u.startswith(("mailto:", "javascript:")) for u in urls)
    article = parse("article_utf8.html")
    assert article.canonical_url.endswith("/2024/0512/zhongchao-10.html")  # type: ignore[attr-defined]
    assert "导航" not in article.text[:50]  # type: ignore[attr-defined]
    assert [link.nofollow for link in article.links if "zhongchao-9" in link.url] == [True]  # type: ignore[attr-defined]
    story = parse("story_en.html")
    assert story.feeds == ["https://tales.example.org/feed.atom"]  # type: ignore[attr-defined]
    assert story.canonical_url in (None, "")  # type: ignore[attr-defined]
    listing = parse("list_page.html")
    assert sum("/match-" in link.url for link in listing.links) == 20  # type: ignore[attr-defined]


async def test_own_pages_fetched_from_the_loopback_server(web: TestWeb, config: FetchConfig):
    for path in sorted(FIXTURES.glob("*.html")):
        # the GBK page is served the way such sites often are: its charset only in <meta>
        web.add("/" + path.name, Reply(body=path.read_bytes(), content_type="text/html"))
    async with Fetcher(config) as fetcher:
        for name, expected in OWN.items():
            page = await fetcher.fetch(web.url("/" + name))
            _check_page(page, web.url("/" + name), expected)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_saved_news_page(shared_data: Path, name: str):
    text = (shared_data / "html" / name).read_text(encoding="utf-8")
    url = source_url(shared_data / "html" / name, text) or LOCAL + name
    _check_page(parse_html(text, url), url, EXPECTED[name])


def test_page_level_facts_of_saved_pages(shared_data: Path):
    def parse(name: str) -> object:
        text = (shared_data / "html" / name).read_text(encoding="utf-8")
        return parse_html(text, source_url(shared_data / "html" / name, text) or LOCAL + name)

    gamersky = parse("tests_gamersky_gamersky.html")
    assert gamersky.canonical_url == "https://ol.gamersky.com/news/201909/1220000.shtml"  # type: ignore[attr-defined]
    sina = parse("tests_sina_1.html")
    assert sina.feeds == ["https://rss.sina.com.cn/news/marquee/ddt.xml"]  # type: ignore[attr-defined]
    assert sina.description.startswith("原标题：视界丨")  # type: ignore[attr-defined]
    qq = parse("tests_qq_2.html")
    assert any(link.nofollow for link in qq.links)  # type: ignore[attr-defined]
    assert "导航" not in parse("tests_thepaper_1.html").text[:50]  # type: ignore[attr-defined]


async def test_saved_pages_fetched_from_the_loopback_server(
    shared_data: Path, web: TestWeb, config: FetchConfig
):
    for path in _pages(shared_data):
        web.add("/" + path.name, Reply(body=path.read_bytes()))
    async with Fetcher(config) as fetcher:
        for name, (title, keyword, _, phrase) in EXPECTED.items():
            page = await fetcher.fetch(web.url("/" + name))
            assert page.title == title
            assert keyword in page.meta_keywords
            assert phrase in page.text
            assert len(page.links) > 5


def test_generic_title_falls_back_to_h1_then_og_then_longest_heading():
    h1 = (
        "<html><head><title>首页</title></head>"
        "<body><h1>中超第30轮：国安2比1胜申花</h1></body></html>"
    )
    assert parse_html(h1, "http://a.example/").title == "中超第30轮：国安2比1胜申花"
    og = (
        '<html><head><title>Untitled</title><meta property="og:title" content="Real headline">'
        "</head><body><p>x</p></body></html>"
    )
    assert parse_html(og, "http://a.example/").title == "Real headline"
    site = (
        "<html><head><title>Example News</title>"
        '<meta property="og:site_name" content="Example News">'
        "</head><body><h2>Short</h2><h3>The longest heading on the page wins</h3></body></html>"
    )
    assert parse_html(site, "http://a.example/").title == "The longest heading on the page wins"
    missing = "<html><body><h1>无标题</h1><h2>国足出线形势分析</h2></body></html>"
    assert parse_html(missing, "http://a.example/").title == "国足出线形势分析"
    assert parse_html("<title> 体育  新闻 </title>", "http://a.example/").title == "体育 新闻"


def test_links_base_href_nofollow_and_dedup():
    html = """<html><head><base href="https://cdn.example.com/news/"></head><body>
    <div class="nav"><a href="a.html">甲</a></div>
    <p>今天的比赛中，<a href="b.html?utm_source=feed#c">国安队获胜</a>，球迷欢呼。</p>
    <a href="b.html"></a>
    <a href="javascript:void(0)">js</a> <a href="mailto:x@example.com">mail</a>
    <a href="https://ads.example.com/" rel="sponsored nofollow">广告</a>
    <a href="/c.html"><img src="x.png" alt="图片新闻"></a>
    </body></html>"""
    page = parse_html(html, "https://www.example.com/index.html")
    links = {link.url: link for link in page.links}
    assert list(links) == [
        "https://cdn.example.com/news/a.html",
        "https://cdn.example.com/news/b.html",
        "https://ads.example.com/",
        "https://cdn.example.com/c.html",
    ]
    assert links["https://cdn.example.com/news/b.html"].anchor == "国安队获胜"
    assert (
        links["https://cdn.example.com/news/b.html"].context
        == "今天的比赛中，国安队获胜，球迷欢呼。"
    )
    assert links["https://ads.example.com/"].nofollow
    assert not links["https://cdn.example.com/news/a.html"].nofollow
    assert links["https://cdn.example.com/c.html"].anchor == "图片新闻"


def test_meta_canonical_feeds_and_boilerplate_free_text():
    html = """<?xml version="1.0" encoding="utf-8"?>
    <!DOCTYPE html><html><head><title>中超新闻</title>
    <META NAME="Keywords" CONTENT="中超, 足球"><meta name="description" content="今日中超">
    <link rel="canonical" href="/news/1.html?utm_medium=x">
    <link rel="alternate" type="application/rss+xml" href="/rss.xml">
    <link rel="alternate" type="application/atom+xml" href="https://example.com/atom">
    <style>.x{color:red}</style><script>var secret = 1;</script></head>
    <body><nav>导航 首页 体育</nav><header>页眉</header>
    <article><h1>中超新闻</h1><p>北京国安在主场以二比一战胜上海申花，取得联赛三连胜。这场比赛吸引了五万名球迷到场观看。</p>
    <p>赛后主教练表示，球队的防守还需要加强。下一轮比赛将在客场进行，对手是广州队。</p></article>
    <aside>热门推荐</aside><footer>版权所有</footer></body></html>"""
    page = parse_html(html, "https://example.com/news/1.html")
    assert page.title == "中超新闻"
    assert page.meta_keywords == "中超, 足球"
    assert page.description == "今日中超"
    assert page.canonical_url == "https://example.com/news/1.html"
    assert page.feeds == ["https://example.com/rss.xml", "https://example.com/atom"]
    assert "北京国安在主场以二比一战胜上海申花" in page.text
    assert "下一轮比赛将在客场进行" in page.text
    for boilerplate in ("secret", "color", "导航", "页眉", "热门推荐", "版权所有"):
        assert boilerplate not in page.text


def test_densest_block_without_article_tag_and_br_lines():
    html = (
        "<html><body><div id='nav'><a href='/1'>首页</a><a href='/2'>新闻</a></div>"
        "<div id='content'>第一段文字，讲述了比赛的经过和结果。<br>"
        "第二段文字，介绍了球员的表现。<br>"
        "第三段文字，总结了本轮联赛的情况。</div><div id='side'><p>短</p></div></body></html>"
    )
    page = parse_html(html, "http://a.example/")
    assert page.text.splitlines() == [
        "第一段文字，讲述了比赛的经过和结果。",
        "第二段文字，介绍了球员的表现。",
        "第三段文字，总结了本轮联赛的情况。",
    ]


def _brief(lang: str) -> str:
    """A story of one line (a brief), with the site's "most read" and "related" lists of
    other stories around it."""
    if lang == "zh":
        head, story, others = (
            "创业板收跌0.18% 成交萎缩四成",
            "创业板收跌0.18%，成交萎缩四成。",
            [
                "国安主场三比零击败申花 中超积分榜登顶",
                "梅西梅开二度 巴萨逆转皇马",
                "男篮世界杯预选赛名单公布",
                "英超第37轮 曼城0:0逼平哈德斯菲尔德",
            ],
        )
        heads = ("热点排行", "相关新闻")
    else:
        head, story, others = (
            "Shares close lower on thin trading",
            "Shares closed 0.2% lower.",
            [
                "Arsenal beat Chelsea in a thrilling derby at the Emirates",
                "Manchester City held to a goalless draw by Huddersfield",
                "Wales name their squad for the Six Nations opener",
                "Murray reaches the Wimbledon quarter-finals in straight sets",
            ],
        )
        heads = ("Most read", "Related")
    links = "".join(
        f'<li><a href="/2024/0601/s{i}.html">{t}</a></li>' for i, t in enumerate(others)
    )
    return (
        f"<html><head><title>{head}</title></head><body>"
        f"<div class='top'><a href='/'>Home</a> <a href='/finance/'>Finance</a></div>"
        f"<div class='main'><h1>{head}</h1><div class='date'>2024-06-01</div>"
        f"<div class='article'><p>{story}</p></div></div>"
        f"<div class='box'><h3>{heads[0]}</h3><ul>{links[: len(links) // 2]}</ul></div>"
        f"<div class='box'><h3>{heads[1]}</h3><ul>{links[len(links) // 2 :]}</ul></div>"
        "</body></html>"
    )


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_story_of_one_line_is_its_own_words_not_the_headlines_it_links_to(lang: str) -> None:
    """A brief has no block of running text, and its main text used to be the whole page's,
    the other stories' headlines in its lists included: read as its words, a finance brief
    said 中超 and 巴萨. It is an item, and its text is what it says."""
    page = parse_html(_brief(lang), "http://news.example.cn/2024/0601/a000123.html")
    assert page.kind == "item", page.kind_evidence
    assert ("创业板收跌0.18%" if lang == "zh" else "Shares closed 0.2% lower.") in page.text
    for word in ("申花", "皇马", "男篮", "曼城", "Arsenal", "Huddersfield", "Wales", "Murray"):
        assert word not in page.text
    # the same page at a section's address is a list, and a list keeps its links' text:
    # that is what it holds
    hub = parse_html(_brief(lang), "http://news.example.cn/finance/")
    assert hub.kind == "hub" and ("申花" if lang == "zh" else "Arsenal") in hub.text


@pytest.mark.parametrize(
    "thread",
    [
        "<section class='comments'><h3>5 条评论</h3>{}</section>",
        "<div id='comments' class='comments-area'><ol class='comment-list'>{}</ol></div>",
        "<div id='disqus_thread'>{}</div>",
    ],
    ids=["theme", "wordpress", "disqus"],
)
def test_readers_comments_are_not_the_storys_words(thread: str) -> None:
    """What a post's readers say is not what it says: the comments below it are left out of
    its text, whatever the theme calls them, and a post reads the same with or without them."""
    comments = "".join(
        f"<div class='comment'><b>{who}</b><p>{said}</p></div>"
        for who, said in (
            ("小林", "学习了，谢谢分享！这篇写得很清楚，收藏了以后慢慢看。"),
            ("Kevin", "楼主有出处吗？股市今天大涨，基金也跟着涨了不少。"),
            ("晓风", "早上也看到了这条，说得很有道理，期待下一篇文章。"),
            ("老周", "写得好！周末去看了一场演出，票价比去年贵了一倍。"),
        )
    )
    story = "国安主场三比零击败申花，球迷在比赛结束后久久不愿离场，主帅赛后表示球队状态正在回升。"

    def post(below: str) -> str:
        return (
            "<html><head><title>国安三比零击败申花 – 半亩方塘</title></head><body><main>"
            "<article><h1>国安三比零击败申花</h1><p class='meta'>发表于 2024-06-20</p>"
            f"<div class='entry-content'><p>{story}</p></div>{below}</article>"
            "</main></body></html>"
        )

    url = "http://blog.example.cn/2024/06/20/1/"
    with_thread = parse_html(post(thread.format(comments)), url)
    assert with_thread.kind == "item"
    assert story in with_thread.text
    for said in ("学习了", "楼主", "股市", "小林", "Kevin"):
        assert said not in with_thread.text
    assert with_thread.text == parse_html(post(""), url).text


def test_a_post_a_theme_names_comment_keeps_its_text() -> None:
    """A theme that names the whole post ``comment`` (it holds the headline) is not a thread."""
    html = (
        "<html><head><title>国安三比零击败申花</title></head><body>"
        "<div class='comment'><h1>国安三比零击败申花</h1><p>"
        "国安主场三比零击败申花，球迷在比赛结束后久久不愿离场，主帅赛后表示状态正在回升。</p></div>"
        "</body></html>"
    )
    page = parse_html(html, "http://forum.example.cn/thread/1")
    assert "球迷在比赛结束后久久不愿离场" in page.text


def test_atom_feed_parsed_as_feed():
    atom = """<?xml version="1.0" encoding="utf-8"?>
    <feed xmlns="http://www.w3.org/2005/Atom"><title>Sports</title>
    <entry><title>Match report</title><link rel="alternate" href="/2026/11/match.html"/>
    <summary>The home side won.</summary></entry>
    <entry><title>No link</title></entry></feed>"""
    page = parse_html(atom, "https://example.com/atom.xml")
    assert page.is_feed and page.title == "Sports"
    assert [(link.url, link.anchor, link.context) for link in page.links] == [
        ("https://example.com/2026/11/match.html", "Match report", "The home side won.")
    ]


def test_xxe_entities_in_feeds_are_not_resolved(tmp_path: Path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET")
    rss = (
        f'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY x SYSTEM "file://{secret}">]>'
        "<rss><channel><title>&x;</title><item><title>a</title>"
        "<link>http://example.com/a</link></item></channel></rss>"
    )
    page = parse_html(rss, "http://example.com/rss")
    assert "TOPSECRET" not in page.title + page.text


def test_bytes_input_is_decoded():
    gbk = "<html><head><meta charset='gbk'><title>足球新闻</title></head><body>内容</body></html>"
    assert parse_html(gbk.encode("gbk"), "http://a.example/").title == "足球新闻"
    assert parse_html(gbk.encode("gbk"), "http://a.example/", encoding="gb2312").title == "足球新闻"


@pytest.mark.parametrize(
    "broken",
    [
        "",
        "   ",
        "<",
        "<html><head><title>未闭合",
        "<html><body><p>段落<div>嵌套<p>错误</div></span></table>",
        "<a href='http://[bad/'>坏链接</a><a href='http://ok.example/'>好</a>",
        "\x00\x01<title>控制字符\x00</title>",
        "<?xml version='1.0' encoding='gbk'?><html><title>声明</title></html>",
        "<rss><channel><item><link>",
        "<html>" + "<div>" * 3000 + "深" + "</div>" * 3000 + "</html>",
    ],
)
def test_broken_html_never_raises(broken: str):
    page = parse_html(broken, "http://a.example/")
    assert page.url == "http://a.example/"
    if "好" in broken:
        assert [link.url for link in page.links] == ["http://ok.example/"]


@pytest.mark.parametrize(
    ("body", "content_type", "text", "encoding"),
    [
        ("<p>足球</p>".encode("gbk"), "text/html; charset=GBK", "<p>足球</p>", "gb18030"),
        ("<p>镕</p>".encode("gb18030"), "text/html; charset=gb2312", "<p>镕</p>", "gb18030"),
        (
            '<meta charset="gb2312"><p>足球</p>'.encode("gbk"),
            "text/html",
            '<meta charset="gb2312"><p>足球</p>',
            "gb18030",
        ),
        (  # a stale <meta> label on a UTF-8 page (as in the saved pages)
            '<meta charset="gb2312"><p>足球新闻</p>'.encode(),
            None,
            '<meta charset="gb2312"><p>足球新闻</p>',
            "utf-8",
        ),
        ("\ufeff<p>足球</p>".encode(), "text/html; charset=gbk", "<p>足球</p>", "utf-8"),
        ("<p>Ünïcode</p>".encode("utf-16"), None, "<p>Ünïcode</p>", "utf-16-le"),
        (b"<p>caf\xe9</p>", "text/html; charset=iso-8859-1", "<p>café</p>", "cp1252"),
        (
            "<p>一段没有任何字符集声明的中文网页内容，用来测试自动检测。</p>".encode("gbk"),
            None,
            "<p>一段没有任何字符集声明的中文网页内容，用来测试自动检测。</p>",
            "gb18030",
        ),
    ],
)
def test_charset_header_bom_meta_detection(
    body: bytes, content_type: str | None, text: str, encoding: str
):
    from crawler.charset import decode_body

    assert decode_body(body, content_type) == (text, encoding)


def test_an_undeclared_utf8_page_needs_no_detection(monkeypatch: pytest.MonkeyPatch):
    """Valid UTF-8 with no charset anywhere is read as UTF-8 without running detection (it
    reads 64 KB); undeclared GBK still goes to detection."""
    from crawler import charset

    calls: list[int] = []
    detect = charset._detect
    monkeypatch.setattr(charset, "_detect", lambda body: calls.append(1) or detect(body))
    page = "<title>多地项目连环爆雷</title><p>足球新闻，“暗伤”曝露？</p>"
    assert charset.decode_body(page.encode(), None) == (page, "utf-8")
    assert charset.decode_body(b"<p>plain ascii</p>", None) == ("<p>plain ascii</p>", "utf-8")
    assert not calls
    assert charset.decode_body(page.encode("gbk"), None) == (page, "gb18030")
    assert calls == [1]


def test_main_text_lines_collapse_every_kind_of_whitespace():
    """One line per block or ``<br>``, words joined by one space whatever whitespace separated
    them (ideographic, no-break, line separator, CR), blank blocks dropped."""
    from crawler.dom import to_root
    from crawler.maintext import main_text

    html = (
        "<html><body><p>a \u2028 b\u3000c</p>\n\n<p> \u00a0 </p><div>c\r\nd<br>e  "
        "<span> f</span></div><ul><li>g</li><li> </li></ul></body></html>"
    )
    root = to_root(html)
    assert root is not None
    assert main_text(root) == "a b c\nc\nd\ne f\ng"


def test_a_text_with_control_characters_keeps_its_words():
    """lxml will not write a control character back into the tree (and drops the text it
    was given): the main text keeps those words, without the control characters."""
    page = parse_html(
        "<html><body><div>\x01\x02 比赛前瞻<p>主队状态出色，客队伤病缠身。</p>尾声\x03 结束"
        "</div></body></html>",
        "http://a.example/x.html",
    )
    assert page.text == "比赛前瞻\n主队状态出色，客队伤病缠身。\n尾声 结束"


def _utf8_cases() -> list[tuple[str, bytes, str | None]]:
    gbk_meta = '<meta charset="gb2312"><title>足球新闻</title><p>正文，“引号”</p>'
    return [
        ("stale gb2312 label", gbk_meta.encode(), None),
        ("BOM", "\ufeff<title>标题</title><p>内容</p>".encode(), "text/html; charset=gbk"),
        ("control character", "<title>控制\x01字符</title><p>段落</p>".encode(), None),
        ("XML declaration", "<?xml version='1.0'?><html><title>声明</title></html>".encode(), None),
        ("bad bytes", "<title>坏字节</title><p>".encode() + b"\xff\xfe" + b"</p>", "utf-8"),
        *((f"fixture {path.name}", path.read_bytes(), None) for path in sorted(FIXTURES.glob("*"))),
    ]


@pytest.mark.parametrize(("name", "body", "content_type"), _utf8_cases())
def test_a_utf8_body_is_parsed_from_its_bytes_with_the_same_result(
    monkeypatch: pytest.MonkeyPatch, name: str, body: bytes, content_type: str | None
):
    """libxml2 reads a UTF-8 body's own bytes (the text would be encoded again); the page is
    the same as from the decoded text, and a body that is not exactly UTF-8 goes by its text."""
    from crawler import parse as parse_module
    from crawler.charset import decode_body, decode_with_source

    text, encoding = decode_body(body, content_type)
    handed: list[bytes | None] = []
    to_root = parse_module.to_root
    monkeypatch.setattr(
        parse_module, "to_root", lambda t, utf8=None: handed.append(utf8) or to_root(t, utf8)
    )
    from_bytes = parse_html(body, "http://a.example/x.html", content_type=content_type)
    monkeypatch.setattr(parse_module, "to_root", to_root)
    assert from_bytes == parse_html(text, "http://a.example/x.html")
    exact = encoding == "utf-8" and text.encode() in (body, body.removeprefix(b"\xef\xbb\xbf"))
    assert (handed[0] is not None) == exact
    assert decode_with_source(body, content_type)[2] == (
        body.removeprefix(b"\xef\xbb\xbf") if exact else None
    )


def test_saved_pages_parse_the_same_from_bytes(shared_data: Path):
    for path in sorted((shared_data / "html").glob("*.html")):
        body = path.read_bytes()
        from_text = parse_html(body.decode("utf-8"), "http://a.example/" + path.name)
        assert parse_html(body, "http://a.example/" + path.name) == from_text, path.name


def test_code_and_boilerplate_go_but_the_text_after_them_stays():
    html = (
        "<html><body><div><p>开头<script>var a = '脚本';</script>中间<style>p {}</style>结尾</p>"
        "<p><noscript><template>模板</template>无脚本</noscript>之后<b>粗</b>体</p>"
        "<nav>导航</nav><script>最后</script>尾巴</div></body></html>"
    )
    page = parse_html(html, "http://a.example/x.html")
    assert "开头中间结尾" in page.text
    assert "之后粗体" in page.text
    assert "尾巴" in page.text
    for gone in ("脚本", "p {}", "模板", "无脚本", "最后"):
        assert gone not in page.text


@pytest.mark.parametrize(
    "fragment",
    [
        "<li><a href='/x'>链接</a></li>",
        "<li> 前 <a href='/x'> 链 接 </a> 后\u3000</li>",
        "<p>文字<br>换行</p>",
        "<td><img src='/a.png' alt='图'></td>",
        "<div>外<span>内<b>深</b>层</span>尾</div>",
        "<li><a href='/x'>甲</a><a href='/y'>乙</a></li>",
        "<h3>\n  <a href='/x'>Headline\n with   spaces</a>\n</h3>",
        "<p>&nbsp;<a href='/x'>a&amp;b</a>&nbsp;tail</p>",
    ],
)
def test_element_text_is_libxml2s_text_cleaned(fragment: str):
    from crawler.dom import TEXT_OF, clean, element_text, to_root

    root = to_root(f"<html><body>{fragment}</body></html>")
    assert root is not None
    for el in root.iter():
        assert element_text(el) == clean(TEXT_OF(el)), fragment


def test_saved_pages_say_which_section_they_are_filed_under(shared_data: Path):
    """The breadcrumbs of real pages (网易首页 > 财经频道 > 正文, 资讯 > 社会 > 正文, 人民网 >>
    文化): their links, not the page's own label."""

    def sections(name: str) -> tuple[str, ...]:
        text = (shared_data / "html" / name).read_text(encoding="utf-8")
        url = source_url(shared_data / "html" / name, text) or LOCAL + name
        return parse_html(text, url).sections

    assert sections("tests_163_1.html") == ("网易首页", "财经频道")
    assert sections("tests_163_3.html") == ("网易首页", "新闻中心", "国内新闻")
    assert sections("tests_ifeng_1.html") == ("资讯", "社会")
    assert sections("tests_people_1.html") == ("人民网", "文化")
    assert sections("tests_sina_1.html") == ("新闻中心", "国内新闻")
    assert sections("test_list_page_163_1.html") == ()
    assert "正文" not in {s for name in EXPECTED for s in sections(name)}


def _sections_of(body: str, head: str = "") -> tuple[str, ...]:
    text = "Text. " * 40
    html = f"<html><head><title>A story</title>{head}</head><body>{body}<p>{text}</p></body></html>"
    return parse_html(html, "https://news.example/a/20240512/story-1.html").sections


def test_breadcrumbs_of_every_common_shape():
    zh = '<div class="crumb"><a href="/">首页</a> &gt; <a href="/sports/">体育</a> &gt; 正文</div>'
    assert _sections_of(zh) == ("首页", "体育")
    aria = (
        '<nav aria-label="breadcrumb"><ol><li><a href="/">Home</a></li>'
        '<li><a href="/sport/">Sport</a></li><li><a href="/sport/football/">Football</a></li>'
        "<li>Messi scores twice</li></ol></nav>"
    )
    assert _sections_of(aria) == ("Home", "Sport", "Football")
    microdata = (
        '<ol itemscope itemtype="https://schema.org/BreadcrumbList"><li><a href="/">Home</a>'
        '</li><li><a href="/business/">Business</a></li></ol>'
    )
    assert _sections_of(microdata) == ("Home", "Business")
    where = (
        '<div class="site-info"><span>当前位置：</span><a href="/">首页</a> > '
        '<a href="/edu/">教育</a></div>'
    )
    assert _sections_of(where) == ("首页", "教育")
    path = '<div class="news_path"><a href="/">首页</a> > <a href="/tech/">科技</a></div>'
    assert _sections_of(path) == ("首页", "科技")


def test_a_section_named_in_the_head():
    og = '<meta property="article:section" content="Sport">'
    assert _sections_of("", og) == ("Sport",)
    ld = (
        '<script type="application/ld+json">{"@context": "https://schema.org", "@graph": ['
        '{"@type": "NewsArticle", "articleSection": ["体育", "足球"]},'
        '{"@type": "BreadcrumbList", "itemListElement": ['
        '{"@type": "ListItem", "position": 1, "name": "首页", "item": "https://news.example/"},'
        '{"@type": "ListItem", "position": 2, "name": "体育", "item": "https://news.example/s/"},'
        '{"@type": "ListItem", "position": 3, "name": "梅西梅开二度"}]}]}</script>'
    )
    # once each, in the order found; the breadcrumb's last entry is the page itself
    assert _sections_of("", ld) == ("体育", "足球", "首页")


def test_a_menu_is_not_a_breadcrumb():
    menu = "".join(f'<li><a href="/c{i}/">栏目{i}</a></li>' for i in range(12))
    assert _sections_of(f'<div class="nav-path"><ul>{menu}</ul></div>') == ()
    long = '<div class="crumb"><a href="/">首页</a>' + "很长的说明文字" * 30 + "</div>"
    assert _sections_of(long) == ()
    # an element named like a path that holds no link, and a page without any
    assert _sections_of('<svg><path class="path-1" d="M0 0"/></svg>') == ()
    assert _sections_of("<p>Nothing here.</p>") == ()


def test_a_place_that_is_not_the_pages_place_on_the_site():
    # a venue or a job title in a block named "location" / "position": one link, no step
    assert _sections_of('<div class="location"><a href="/city/bj/">北京</a></div>') == ()
    assert _sections_of('<p class="position"><a href="/jobs/42">Engineer</a></p>') == ()
    # the same names with a step between places, or two of them, are breadcrumbs
    assert _sections_of('<div class="location"><a href="/">首页</a> &gt; 正文</div>') == ("首页",)
    two = '<div class="position"><a href="/">Home</a><a href="/sport/">Sport</a></div>'
    assert _sections_of(two) == ("Home", "Sport")


_ZH_HEAD = "特拉普：想获得更多机会 德国教练不会让我额外获益"
_EN_HEAD = "Messi scores twice as Miami win again"


def _filed_of(body: str, head: str = _EN_HEAD, title: str | None = None) -> tuple[str, ...]:
    """The sections of a post whose ``<h1>`` is the headline its title repeats."""
    text = "Text. " * 40
    html = (
        f"<html><head><title>{title or head} - A Blog</title></head><body>"
        f"<h1>{head}</h1>{body}<p>{text}</p></body></html>"
    )
    return parse_html(html, "https://blog.example/2024/05/12/a-post/").sections


def test_the_section_a_posts_byline_files_it_under():
    """A blog names a post's categories in the line under its title, not in a breadcrumb."""
    zh = '<p class="meta">发表于 2024-06-07，分类： <a href="/category/2/">体育</a></p>'
    assert _filed_of(zh, _ZH_HEAD) == ("体育",)
    two = '<p>分类：<a href="/c/1/">体育</a>、<a href="/c/9/">足球</a> | <a href="/u/1">林</a></p>'
    assert _filed_of(two, _ZH_HEAD) == ("体育", "足球")  # not the author after "|"
    own = '<p><strong>所属栏目：</strong><a href="/c/1/">国际<em>足球</em></a></p>'
    assert _filed_of(own, _ZH_HEAD) == ("国际足球",)
    posted = '<p>Posted on 5 March 2024 in <a href="/category/sport/">Sport</a></p>'
    assert _filed_of(posted) == ("Sport",)
    by = '<p>Posted by <a href="/author/sam/">Sam</a> in <a href="/category/sport/">Sport</a></p>'
    assert _filed_of(by) == ("Sport",)
    author = '<p>By <a href="/author/sam/">Sam</a> · Filed under: <a href="/s/">Sport</a></p>'
    assert _filed_of(author) == ("Sport",)
    label = '<p><span class="label">Filed under:</span> <a href="/s/">Sport</a></p>'
    assert _filed_of(label) == ("Sport",)
    # WordPress marks its category links, wherever the theme prints them; a list of related
    # posts below marks each post's own, and those are not this post's
    footer = (
        '<footer>Posted in <a rel="category tag" href="/category/sport/">Sport</a></footer>'
        '<div class="related"><p><a rel="category tag" href="/c/politics/">Politics</a></p>'
        '<p><a rel="category tag" href="/c/tech/">Tech</a></p></div>'
    )
    assert _filed_of("<p>" + "A paragraph of the post. " * 30 + "</p>" * 20 + footer) == ("Sport",)


def test_links_under_a_headline_that_file_nothing():
    # an author, a tag list, an author after a joiner-like mark
    assert _filed_of('<p>By <a href="/author/sam/">Sam</a></p>') == ()
    assert _filed_of('<p>Tags: <a href="/tag/messi/">messi</a></p>') == ()
    slash = '<p>分类：<a href="/c/1/">体育</a> / <a href="/u/1">张三</a></p>'
    assert _filed_of(slash, _ZH_HEAD) == ("体育",)
    # sentences of the story that end before a link are no byline
    for prose in (
        "A new study published on Monday in",
        "The report, published by the agency on Tuesday, said prices rose sharply in",
        "A lawsuit filed on Monday in",
        "Messi posted a photo on Instagram after the match in",
        "Originally published in",
    ):
        assert _filed_of(f'<p>{prose} <a href="/x/">Texas</a> and more.</p>') == (), prose
    for prose in ("热门栏目：", "全面推行垃圾分类", "更多精彩请关注体育频道"):
        assert _filed_of(f'<p>{prose}<a href="/x/">体育</a>、<a href="/y/">财经</a></p>') == ()
    # a list's heading, then its first teaser and that teaser's byline: the list files nothing
    teaser = (
        '<h2><a href="/2024/03/05/miami-win-again/">Messi scores twice as Miami win</a></h2>'
        '<p>Posted on 5 March 2024 in <a href="/category/sport/">Sport</a></p>'
    )
    assert _filed_of(teaser, "Archive: 2024-03") == ()
    # the sidebar's category list and a widget's, even marked as categories, are no filing
    aside = '<aside><h3>Categories</h3><a rel="category" href="/c/sport/">Sport</a></aside>'
    assert _filed_of(aside) == ()
    widget = (
        '<div class="widget">Categories <a href="/c/n/">News</a> <a href="/c/s/">Sport</a></div>'
    )
    assert _filed_of(widget) == ()


def test_a_logos_h1_reads_no_byline():
    """A site's logo in an ``<h1>`` is no headline: the menu under it files no page."""
    html = (
        "<html><head><title>Messi scores twice: report | Daily Site</title></head><body>"
        '<h1 class="logo"><a href="/">Daily Site</a></h1>'
        '<div class="menu">Sections: <a href="/w/">World</a>, <a href="/s/">Sport</a></div>'
        "<h2>Messi scores twice as Miami win again today</h2>"
        "<p>" + "Text. " * 60 + "</p></body></html>"
    )
    assert parse_html(html, "https://news.example/2024/05/12/messi/").sections == ()


def test_a_paragraph_is_no_byline_however_it_ends():
    """A label is looked for only at the end of a short line (``_FILED_LINE``): a paragraph
    that ends in "posted in" before a link is the story's text (and a huge one is not searched
    again and again from every "posted" in it)."""
    long = "<p>" + "The club said the news was posted " * 20 + 'in <a href="/x/">Sport</a></p>'
    assert _filed_of(long) == ()
    assert _filed_of("<p>" + "posted " * 40_000 + '<a href="/x/">Sport</a></p>') == ()


def _kicked(before: str, head: str = _EN_HEAD) -> tuple[str, ...]:
    """The sections of a story whose ``<h1>`` (the title's headline) has ``before`` before it
    in its header."""
    html = (
        f"<html><head><title>{head} — The Ledger</title></head><body>"
        "<header><a href='/'>The Ledger</a><nav><a href='/s/sport'>Sport</a>"
        "<a href='/s/money'>Money</a></nav></header>"
        f"<main><article><header>{before}<h1>{head}</h1></header><p>{'Text. ' * 40}</p>"
        "</article></main></body></html>"
    )
    return parse_html(html, "https://ledger.example/read/0a1b2c3d").sections


def test_a_kicker_over_the_headline_names_its_section():
    assert _kicked("<a class='kicker' href='/s/sport'>Sport</a>") == ("Sport",)
    assert _kicked("<p><a href='/c/2/'>体坛</a></p>", head=_ZH_HEAD) == ("体坛",)
    # no kicker: the site's root, another story, a headline, a line that says more, two links
    assert _kicked("<a href='/'>Home</a>") == ()
    assert _kicked("<a href='/2024/05/12/other-story-12345.html'>Earlier</a>") == ()
    assert _kicked("<a href='/s/sport'>Messi and Suarez lead the way again</a>") == ()
    assert _kicked("<p>Filed from Miami, <a href='/s/sport'>Sport</a></p>") == ()
    assert _kicked("<p><a href='/s/sport'>Sport</a> <a href='/s/money'>Money</a></p>") == ()
    assert _kicked("") == ()
    # a breadcrumb names the section: the link before the headline is not read
    crumb = "<nav class='breadcrumb'><a href='/'>Home</a> › <a href='/s/money'>Money</a></nav>"
    assert _kicked(crumb + "<a href='/s/sport'>Sport</a>") == ("Home", "Money")
