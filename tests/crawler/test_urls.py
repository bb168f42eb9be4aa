"""URL canonicalization, scope rules and crawler-trap guards."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawler.urls import (
    canonicalize,
    host_of,
    host_site,
    in_scope,
    registered_domain,
    trap_reason,
)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("HTTP://News.Example.COM:80/a", "http://news.example.com/a"),
        ("https://example.com:443", "https://example.com/"),
        ("https://example.com:8443/x", "https://example.com:8443/x"),
        ("http://example.com/a/./b/../c", "http://example.com/a/c"),
        ("http://example.com/a/b/..", "http://example.com/a/"),
        ("http://example.com/page#section", "http://example.com/page"),
        ("http://example.com/?b=2&a=1", "http://example.com/?a=1&b=2"),
        ("http://example.com/?utm_source=x&id=5&utm_medium=y", "http://example.com/?id=5"),
        ("http://example.com/?fbclid=1&gclid=2&spm=3&from=4&x=1", "http://example.com/?x=1"),
        ("http://example.com/?PHPSESSID=abc&sid=1&JSESSIONID=2", "http://example.com/"),
        ("http://example.com/shop;jsessionid=AB12?id=1", "http://example.com/shop?id=1"),
        ("http://example.com/%7euser/%e4%b8%ad", "http://example.com/~user/%E4%B8%AD"),
        (
            "http://example.com/中文/页面",
            "http://example.com/%E4%B8%AD%E6%96%87/%E9%A1%B5%E9%9D%A2",
        ),
        ("http://例子.中国/", "http://xn--fsqu00a.xn--fiqs8s/"),
        ("http://user:pw@example.com/", "http://example.com/"),
        ("http://example.com./a", "http://example.com/a"),
        ("http://example.com/a%2Fb", "http://example.com/a%2Fb"),
        ("http://example.com/100%", "http://example.com/100%25"),
        ("http://example.com/a b", "http://example.com/a%20b"),
        ("http://[::1]:8080/x", "http://[::1]:8080/x"),
        (" http://example.com/\n", "http://example.com/"),
    ],
)
def test_canonical_forms(url: str, expected: str):
    assert canonicalize(url) == expected


def test_every_spelling_of_one_url_is_one_string():
    spellings = [
        "http://www.163.com/news/a.html?b=2&a=1",
        "HTTP://WWW.163.COM:80/news/./a.html?a=1&b=2#top",
        "http://www.163.com/news/x/../a.html?a=1&utm_campaign=z&b=2",
    ]
    assert len({canonicalize(u) for u in spellings}) == 1


@pytest.mark.parametrize(
    ("href", "expected"),
    [
        ("b.html", "https://news.example.com/dir/b.html"),
        ("../up.html", "https://news.example.com/up.html"),
        ("/root", "https://news.example.com/root"),
        ("//cdn.example.com/x", "https://cdn.example.com/x"),
        ("?page=2", "https://news.example.com/dir/page.html?page=2"),
        ("#frag", "https://news.example.com/dir/page.html"),
        ("javascript:void(0)", None),
        ("mailto:editor@example.com", None),
        ("tel:+86100", None),
        ("ftp://example.com/file", None),
        ("http://exa mple.com/", None),
        ("http://example.com:99999/", None),
    ],
)
def test_relative_references_against_a_base(href: str, expected: str | None):
    assert canonicalize(href, "https://news.example.com/dir/page.html") == expected


def test_hosts_and_registered_domains():
    assert host_of("https://News.Sina.com.cn:8080/x") == "news.sina.com.cn"
    assert host_of("not a url") == ""
    assert registered_domain("news.sina.com.cn") == "sina.com.cn"
    assert registered_domain("www.bbc.co.uk") == "bbc.co.uk"
    assert registered_domain("3w.huanqiu.com") == "huanqiu.com"
    assert registered_domain("127.0.0.1") == "127.0.0.1"
    assert registered_domain("localhost") == "localhost"


def test_scope_rules():
    seed = "https://news.163.com/"
    assert in_scope("https://news.163.com/20/a.html", seed, "host")
    assert in_scope("https://www.news.163.com/x", seed, "host")  # www. ignored
    assert not in_scope("https://money.163.com/x", seed, "host")
    assert in_scope("https://money.163.com/x", seed, "domain")
    assert not in_scope("https://www.sina.com.cn/", seed, "domain")
    assert in_scope("https://www.sina.com.cn/", seed, "any")
    assert in_scope("https://www.sina.com.cn/", seed, "host", allow=["sina.com.cn"])
    assert not in_scope("mailto:x@163.com", seed, "any")
    with pytest.raises(ValueError, match="scope"):
        in_scope("https://news.163.com/", seed, "planet")


def test_a_domain_scope_on_a_suffix_the_public_list_does_not_know():
    # an intranet's (or the lab's) hosts: the whole site is its last two labels
    assert host_site("www.lab-sina.test") == host_site("sports.lab-sina.test") == "lab-sina.test"
    assert host_site("wiki.eng.corp") == "eng.corp"
    assert host_site("news.sina.com.cn") == "sina.com.cn"  # the public list where it knows
    assert host_site("10.0.0.7") == "10.0.0.7" and host_site("localhost") == "localhost"
    seed = "http://www.lab-sina.test/"
    assert in_scope("http://sports.lab-sina.test/a/1.html", seed, "domain")
    assert not in_scope("http://sports.lab-sina.test/a/1.html", seed, "host")
    assert not in_scope("http://www.lab-163.test/", seed, "domain")
    assert not in_scope("http://10.0.0.8/", "http://10.0.0.7/", "domain")


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/" + "a" * 2100,
        "http://example.com/" + "/".join(f"d{i}" for i in range(17)),
        "http://example.com/a/b/a/b/a/b/",
        "http://example.com/x/x/x/page.html",
        "http://example.com/s?" + "&".join(f"p{i}=1" for i in range(11)),
        "http://example.com/calendar/2026/12/",
        "http://example.com/events/calendar?year=2031&month=1",
        "http://example.com/cal/1970-01/",
        "http://example.com/archive/3015/05/",
        "http://example.com/agenda?date=2026-11-22",
    ],
)
def test_traps_are_recognised(url: str):
    assert trap_reason(url) is not None


@pytest.mark.parametrize(
    "url",
    [
        "https://news.sina.com.cn/c/2019-11-25/doc-iihnzahi3275702.shtml",
        "http://www.xinhuanet.com/world/2019-12/10/c_1125327450.htm",
        "https://ol.gamersky.com/news/201909/1220000.shtml",
        "https://news.163.com/19/0905/10/EO8Q2J5K0001899O.html",
        "http://example.com/a/b/c/d/e/f?x=1&y=2",
        "https://baijiahao.baidu.com/s?id=1646796218135408573&wfr=spider&for=pc",
    ],
)
def test_normal_news_urls_are_not_traps(url: str):
    assert trap_reason(url) is None


def test_infinite_calendar_links_are_all_traps():
    """Following "next month" from a calendar page is refused at the first link."""
    links = [
        f"http://example.com/calendar?year={2026 + i // 12}&month={i % 12 + 1}" for i in range(60)
    ]
    assert all(trap_reason(link) for link in links)


_PIECES = [
    *"abcXYZ019-._~_/?#&=;:%@!$'()*+, \\\t\n中",
    *("..", "./", "../", "//", "http://", "https://", "HTTP://", "[::1]", ":8080", ":443"),
    *("utm_source=1", "sid=2", "%2e", "%41", "%zz", "javascript:", "mailto:", "JavaScript:"),
    *("tel:", "ftp://", "data:", "x+y.z:", "1a:", "Https:", "http:"),
]
_BASES = [
    "http://a.com",
    "http://a.com/",
    "https://a.com/b/c.html",
    "http://a.com/b/c/?q=/x",
    "http://A.com/b/./c/../d.html",
    "http://a.com/b;p/c",
    "http://a.com/%7Euser/x.html",
    "http://a.com/b/c.html#f",
    "HTTP://a.com/x/",
    "http://a.com:80/x/y",
    "http://[::1]/a/b",
    "http://a.com/a/../../b/",
    "http://a.com/b//c/d",
    "http://a.com/./b/",
    "http://a.com?x=1",
]


@settings(max_examples=3000, deadline=None)
@given(
    pieces=st.lists(st.sampled_from(_PIECES), max_size=10),
    base=st.sampled_from(_BASES),
    absolute=st.sampled_from(["", "http://", "https://", "HTTP://", "http://a.com/"]),
)
def test_the_fast_paths_agree_with_the_general_rules(
    pieces: list[str], base: str, absolute: str
) -> None:
    """Plain absolute URLs and plain relative paths skip the general rules (``urlsplit``,
    ``urljoin``, percent-encoding): whatever the input, the result is the general rules'."""
    from urllib.parse import urljoin

    from crawler import urls

    ref = absolute + "".join(pieces)
    if absolute:
        assert urls._canonical_absolute(ref) == urls._canonical_general(ref)
    cleaned = ref.strip().replace("\n", "").replace("\t", "").replace("\r", "")
    try:
        joined = urls._join(base, cleaned)
        general = urljoin(base, cleaned)
    except ValueError:
        return
    if joined is None:  # another scheme than http(s): nothing crawlable either way
        assert urls._canonical_general(general) is None
    elif joined != general and not cleaned[:8].lower().startswith(
        ("http://", "https://", "//", "/")
    ):
        assert urls._canonical_general(joined) == urls._canonical_general(general)
