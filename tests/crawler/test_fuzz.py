"""Property tests: no input, however mangled, makes the parser or decoder raise."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawler.charset import decode_body
from crawler.parse import parse_html
from crawler.urls import canonicalize, trap_reason

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "html"

FRAGMENTS = [
    "<html>",
    "</html>",
    "<head>",
    "<title>",
    "</title>",
    "<body>",
    "<p>",
    "</p>",
    "<div>",
    "<a href='",
    "'>",
    "</a>",
    '<a href="//x.example/',
    "<base href='",
    "<meta charset='",
    "gbk'>",
    "<meta name='keywords' content='",
    "<script>",
    "</script>",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "<?xml version='1.0' encoding='utf-8'?>",
    "<rss><channel><item><link>",
    "<feed xmlns='http://www.w3.org/2005/Atom'><entry><link href='",
    "&amp;",
    "&#x0;",
    "&#99999999;",
    "\x00",
    "\ufeff",
    "\ud800",
    "中文",
    "足球",
    "<h1>",
    "javascript:",
    "http://[::1",
    "%zz",
    "#",
    "<link rel='canonical' href='",
    "<img alt='",
    "<br>",
    "<article>",
    "<table><tr><td>",
]

mangled_html = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=20)), max_size=60
).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.binary(max_size=4000),
    content_type=st.sampled_from(
        [
            None,
            "text/html",
            "text/html; charset=gbk",
            "text/html; charset=utf-8",
            "text/html; charset=bogus",
            "text/html; charset=utf-16",
        ]
    ),
)
def test_random_bytes_never_raise(data: bytes, content_type: str | None):
    text, encoding = decode_body(data, content_type)
    assert isinstance(text, str) and encoding
    page = parse_html(data, "http://fuzz.example/page")
    assert page.url == "http://fuzz.example/page"


@settings(max_examples=400, deadline=None)
@given(html=mangled_html)
def test_mangled_html_never_raises(html: str):
    page = parse_html(html, "http://fuzz.example/a/b.html")
    for link in page.links:
        assert canonicalize(link.url) == link.url  # links are already canonical
    assert page.title == page.title.strip()


@settings(max_examples=300, deadline=None)
@given(
    href=st.text(max_size=80),
    base=st.sampled_from(["http://a.example/x/y.html", "https://例子.中国/", "http://[::1]:8080/"]),
)
def test_canonicalize_is_total_and_idempotent(href: str, base: str):
    url = canonicalize(href, base)
    if url is not None:
        assert url.startswith(("http://", "https://"))
        assert canonicalize(url) == url
        trap_reason(url)


def _truncations_never_raise(paths: list[Path]) -> None:
    # a fuzz run over no pages would pass vacuously: finding none is a failure
    assert paths, "no pages to cut up"
    for path in paths:
        data = path.read_bytes()
        assert len(data) > 1000, path
        for cut in (1, 100, 1000, len(data) // 3, len(data) // 2):
            parse_html(data[:cut], "http://fuzz.example/")
            parse_html(data[cut:], "http://fuzz.example/")


def test_truncated_own_pages_never_raise():
    """Cuts through UTF-8 and GBK multi-byte characters, tags and attributes."""
    _truncations_never_raise(sorted(FIXTURES.glob("*.html")))


def test_truncated_real_pages_never_raise(shared_data: Path):
    _truncations_never_raise(sorted((shared_data / "html").glob("*.html"))[:6])
