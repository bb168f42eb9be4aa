"""Page kinds: is a fetched page an *item* (something a person reads) or a *hub* (a page of links)?

Only items are pushed; hubs (home, channel, list, pagination, tag, search, about / contact /
sitemap pages) are still crawled and revisited, because that is where new items appear.

The decision adds up structural evidence that holds on any site, Chinese or English, and
names each piece it used (``PageKind.evidence``):

* **declared type** — ``og:type`` ``article``, a publication-date meta
  (``article:published_time``, ``pubdate`` …; not the ``article:publisher`` a site prints on
  every page), or a JSON-LD ``@type`` such as ``NewsArticle`` / ``BlogPosting`` say *item*;
  JSON-LD ``CollectionPage`` / ``ItemList`` / ``SearchResultsPage`` say *hub*;
* **running text** — the main text outside links: an article has sentences, a list has
  anchors; measured as characters and as the share of the main block that is link text;
* **links** — the share of the whole page's text that is anchor text;
* **headline** — an ``<h1>`` of headline length that the ``<title>`` repeats, with a date
  under it (a byline); a page that shows no headline of its own while its main block links
  one (a heading that is a link: a card) is a list's last page of a card or two;
* **URL shape** — the site root, ``index``/``list``/``page``/``tag``/``search``/``about``
  path words and page numbers say *hub*; a date or a long numeric id in the path says *item*.

Each piece adds to a score in log-odds units; ``score > 0`` is an item. The weights were set
on the saved real pages and hand-made pages, and checked on the lab webs (docs/algorithms.md).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlsplit

__all__ = [
    "HUB",
    "ITEM",
    "TEASER_LINKS",
    "PageKind",
    "Structure",
    "classify",
    "headline_sized",
    "title_parts",
    "titled_headline",
    "url_item_prior",
]

ITEM = "item"
HUB = "hub"

_ITEM_TYPES = frozenset(
    t.lower()
    for t in (
        "Article",
        "NewsArticle",
        "ReportageNews",
        "AnalysisNewsArticle",
        "BlogPosting",
        "TechArticle",
        "ScholarlyArticle",
        "SocialMediaPosting",
        "DiscussionForumPosting",
        "Report",
        "Course",
        "Recipe",
        "Review",
        "VideoObject",
        "Event",
        "JobPosting",
        "Product",
    )
)
_HUB_TYPES = frozenset(
    t.lower()
    for t in ("CollectionPage", "ItemList", "SearchResultsPage", "WebSite", "SiteNavigationElement")
)
_DATE_PATH = re.compile(
    r"/(?:19|20)\d{2}[-/_]?(?:0[1-9]|1[0-2])(?:[-/_]?(?:0[1-9]|[12]\d|3[01]))?(?:/|[-_]|\b)"
    r"|/(?:19|20)\d{2}/(?:0[1-9]|1[0-2])/"
    r"|(?:19|20)\d{6}"
)
# a number, or a run of letters and digits with a digit in it: "entertainment" and
# "technology" are a section's names, not ids
_LONG_ID = re.compile(r"\d{5,}|(?=[a-z]*\d)[a-z0-9]{10,}")
_HUB_WORDS = re.compile(
    r"(?:^|[/_.-])(?:index|list|lists|roll|page|pages|tag|tags|category|categories|topic|topics"
    r"|channel|column|search|archive|archives|about|about-us|aboutus|contact|contact-us|sitemap"
    r"|help|feeds?|rss|author|authors|section|sections|node|more|all)(?:[/_.-]|\d|$)",
    re.I,
)
_PAGE_NUMBER = re.compile(
    r"(?:[/_-](?:p|page|index|list)[_-]?\d+(?:\.\w+)?$)|(?:/\d{1,3}/?$)", re.I
)
_PAGE_PARAMS = frozenset({"page", "p", "pg", "pn", "start", "offset", "tag", "q", "s", "cat"})
_ID_PARAMS = frozenset({"id", "aid", "tid", "articleid", "article_id", "docid", "newsid", "story"})
_POST_PARAMS = frozenset({"p", "page_id"})
"""On the site root with a number, a post's id: WordPress's default permalink (``/?p=123``)."""
_DATED_ID = re.compile(
    r"/(?:19|20)\d{2}/(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01])/\d+(?:/|\.\w+)?$"
)
"""A number after a day's date is the post's id (``/2019/05/17/771/``), not a page number."""
_ARCHIVED_ID = re.compile(r"/archives?/(?!(?:19|20)\d{2}(?:/|$))\d+(?:/|\.html?)?$", re.I)
"""``/archives/123.html``, ``/archives/123/``: a post's permalink (WordPress, Typecho), not
the archive's list (``/archives/2019/``)."""
_NAMED_ID = re.compile(
    r"/(?:posts?|articles?|story|stories|entry|entries|threads?|detail|view|show)"
    r"/\d+(?:/|\.\w+)?$",
    re.I,
)
"""A number after a word that names one item (``/post/231/``, ``/article/87.html``): its id,
not a page number. Not after a letter alone: ``/p/2/`` is as often a list's second page."""
_LIST_PAGE = re.compile(
    r"/(?:page|pages|paged)/\d+/?$|[/_-](?:page|index|list)[_-]?\d+(?:\.\w+)?$", re.I
)
"""A list's page by number, said in words (``/page/2/``, ``list_3.html``, ``index_2.shtml``):
what blog engines and content systems call their lists' later pages. A bare number
(``/story/2/``) may be an article's second page, and counts as any list-like path."""
_TERM_LIST = re.compile(r"/(?:tag|tags|category|categories)/[^/]+/?$", re.I)
"""A tag's or a category's list (``/tag/wales/``): the segment after the word is the term."""
_PAGE_TITLE = re.compile(
    r"(?:^|[\s·|_–—:-])(?:page|p\.)\s*\d+(?:\s*(?:of|/)\s*\d+)?(?=\s*(?:$|[·|_–—-]))|第\s*\d+\s*页",
    re.I,
)
"""A title or heading that names a page of a list by number ("Sport – Page 6", 第2页)."""
_LIST_HEADING = re.compile(
    r"^\s*(?:(?:tags?|tagged|category|categories|archives?|author|month|year|day|topics?"
    r"|search(?:\s+results)?(?:\s+for)?)\s*[:：]"
    r"|posts?\s+(?:tagged|filed\s+under|in|by|from)\b"
    r"|(?:标签|分类|归档|作者|专题|搜索结果|搜索)\s*[:：])",
    re.I,
)
"""A heading that names a list of posts by what they share, in the words blog engines and
content systems print ("Tag: wales", "Category: Sport", "Archives: May 2024", "Posts tagged
“x”", "Search results for: x", 标签：x, 分类：x, 归档：x): no story's headline, however long
the tag."""
TEASER_LINKS = 3
_TEASER_SHARE = 0.35
_TEASER_SPREAD = 1.5
"""A main block with ``TEASER_LINKS`` or more headline links whose longest stretch of running
text between them is under this share of all of it (under ``_TEASER_SPREAD`` / the number of
links, where that is more: a section's last page of three cards, one excerpt longer than the
others, holds 40 % of its text in one) is a list of teasers (``Structure``)."""
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+){3,}")


@dataclass(slots=True)
class Structure:
    """Structural facts of a parsed HTML page (read once, by ``crawler.parse``)."""

    text_chars: int = 0
    """Visible text of the whole body."""
    link_chars: int = 0
    """Anchor text of every link on the page (repeats included)."""
    links: int = 0
    """Number of distinct outlinks."""
    main_chars: int = 0
    """The main block's text (see ``crawler.maintext``)."""
    main_link_chars: int = 0
    """Anchor text inside the main block."""
    main_headlines: int = 0
    """Distinct links inside the main block whose text reads as a headline."""
    main_run_chars: int = 0
    """The longest stretch of the main block's running text that no headline link breaks."""
    h1: str = ""
    og_type: str = ""
    article_meta: bool = False
    """A publication-date ``<meta>`` (``article:published_time``, ``pubdate`` …)."""
    ld_types: list[str] = field(default_factory=list)
    """JSON-LD ``@type`` values, lower-cased."""
    headline: str = ""
    """The title's headline shown on its own in no ``<h1>`` (an ``<h2>``, a ``<div>``), when no
    ``<h1>`` is the headline."""
    dated: bool = False
    """A date is written under the headline (its ``<h1>``, else the title's headline shown on
    its own, else the first ``<h1>``), before any link to another page (a story's byline:
    2018-03-16 网易三农, Posted on 5 March 2024)."""


@dataclass(slots=True)
class PageKind:
    """A page's kind (item or hub), its score and the evidence behind it."""

    kind: str
    score: float
    evidence: list[str] = field(default_factory=list)
    """What decided it, e.g. ``["json-ld NewsArticle", "running text 1830 chars"]``."""


def _norm(text: str) -> str:
    return re.sub(r"\W+", "", text.lower())


_CJK = re.compile("[\u4e00-\u9fff]")


_TITLE_PARTS = re.compile(r"\s+[|\-–—·:]\s+|\s*[_｜|–—]\s*")


def title_parts(title: str) -> tuple[str, list[str]]:
    """(headline, the other parts): a title's longest part between separators such as ``_``
    ``|`` `` - `` is its headline; the others are section and site names (``…_体育_新浪网``,
    ``… | Sport | The Herald``)."""
    parts = [p.strip() for p in _TITLE_PARTS.split(title) if p.strip()]
    if len(parts) < 2:
        return title, []
    head = max(parts, key=len)
    return head, [p for p in parts if p is not head]


def headline_sized(text: str) -> bool:
    """Text as long as a headline: 8+ CJK characters, or (next to no CJK) 4+ words."""
    if len(text) < 8:
        return False
    cjk = len(_CJK.findall(text))
    return cjk >= 8 or (cjk < 2 and len(text.split()) >= 4)


def titled_headline(title: str, h1: str) -> bool:
    """An ``<h1>`` long enough to be a headline, repeated by the title, that is not a list's
    heading naming its page ("Archive: 2024-05 · Page 3")."""
    h, t = _norm(h1), _norm(title)
    return (
        bool(h and t)
        and headline_sized(h1)
        and (h in t or t in h)
        and not _PAGE_TITLE.search(h1)
        and not _LIST_HEADING.match(h1)
    )


def _url_evidence(url: str) -> list[tuple[float, str]]:
    parts = urlsplit(url)
    path = parts.path or "/"
    out: list[tuple[float, str]] = []
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    root = path in ("/", "") or re.fullmatch(r"/(?:index|default|home)\.\w+", path, re.I)
    if root and not query:
        return [(-4.0, "site root")]
    keys = {k.lower() for k in query}
    # the site root with ``p=123`` is a post (a blog engine's default permalink), not page 123
    post = bool(root) and any(k.lower() in _POST_PARAMS and v.isdigit() for k, v in query.items())
    last = path.rstrip("/").rsplit("/", 1)[-1].lower()
    permalink = bool(_DATED_ID.search(path) or _ARCHIVED_ID.search(path) or _NAMED_ID.search(path))
    listed = False
    if not permalink and (
        _PAGE_NUMBER.search(path)
        or any(
            # a story's slug may say "about", "all" or "more" ("what-we-know-about-the-cup")
            _HUB_WORDS.search("/" + segment) and not _SLUG.fullmatch(segment.rsplit(".", 1)[0])
            for segment in path.lower().split("/")
            if segment
        )
    ):
        if _LIST_PAGE.search(path) or _TERM_LIST.search(path):
            # a list's later page, or a tag's or category's list, by the words blog engines
            # and content systems use: on two blog webs a month's or a category's last page
            # of one or two long excerpts under a heading repeated by the title, or a tag's
            # list of two, outweighed the path and was pushed as a post
            out.append((-3.0, "a list's path"))
        else:
            out.append((-1.5, "list-like path"))
        listed = True
    elif (
        path.endswith("/")
        and not post
        and not permalink
        and not _LONG_ID.search(last)
        and not _SLUG.fullmatch(last)
    ):
        out.append((-1.0, "directory path"))
    if _PAGE_PARAMS & keys and not post:
        out.append((-1.0, "page / tag / search parameter"))
    if _DATE_PATH.search(path) and not listed:  # a list's date is its archive's (/2019/05/page/2/)
        out.append((1.0, "date in path"))
    if not listed and (  # a list's id or name is its own (/tag/178270/, /category/wales/)
        _LONG_ID.search(last)
        or _ID_PARAMS & keys
        or post
        or _SLUG.fullmatch(last.rsplit(".", 1)[0])
        or permalink
    ):
        out.append((1.0, "id or slug in path"))
    return out


@functools.lru_cache(maxsize=16384)
def url_item_prior(url: str) -> float:
    """How likely a URL not yet fetched is an item, from its shape alone (dates and ids say
    item; the root, list / page / tag words and page numbers say hub); in (0, 1)."""
    odds = 0.5 + sum(weight for weight, _ in _url_evidence(url))
    return 1.0 / (1.0 + math.exp(-odds))


def classify(url: str, title: str, text: str, structure: Structure | None) -> PageKind:
    """Item or hub, with the evidence (see the module doc)."""
    if structure is None:
        return PageKind(ITEM, 0.5, ["feed entry" if text else "no structure"])
    s = structure
    titled = titled_headline(title, s.h1)
    # a list's last page of one or two teasers (the list of three or more: ``_text_evidence``)
    headless = not titled and not s.headline and s.main_headlines > 0
    ev = _declared_evidence(s) + _text_evidence(s, headless=headless)
    if titled:
        ev.append((1.5, "headline h1 = title"))
    elif s.headline:  # the title's headline (``crawler.parse`` sets no other)
        ev.append((1.5, "headline shown = title"))
    elif headless:
        ev.append((-1.5, "links a headline, shows none of its own"))
    if s.dated and (titled or s.headline):
        # a story's header: its headline, the title's, and the date under it
        ev.append((1.5, "dated under its headline"))
    elif s.dated:
        ev.append((1.0, "dated under its headline"))
    ev += _url_evidence(url)
    score = sum(w for w, _ in ev)
    ev.sort(key=lambda pair: -abs(pair[0]))
    return PageKind(ITEM if score > 0 else HUB, round(score, 2), [why for _, why in ev])


def _declared_evidence(s: Structure) -> list[tuple[float, str]]:
    """What the page says it is: JSON-LD type, ``og:type``, publication-date meta."""
    ev: list[tuple[float, str]] = []
    declared = [t for t in s.ld_types if t in _ITEM_TYPES]
    if declared:
        ev.append((3.0, f"json-ld {declared[0]}"))
    elif any(t in _HUB_TYPES - {"website"} for t in s.ld_types):
        ev.append((-3.0, "json-ld collection"))
    if s.og_type.lower() in ("article", "news", "blog", "video.other", "product"):
        ev.append((2.0, f"og:type {s.og_type.lower()}"))
    if s.article_meta:
        ev.append((1.5, "publication-date meta"))
    return ev


def _text_evidence(s: Structure, *, headless: bool = False) -> list[tuple[float, str]]:
    """Running text against link text: in the main block and over the whole page. With
    ``headless`` (the main block links a headline and the page shows none of its own), its
    running text is a teaser's excerpt, not a story's prose."""
    ev: list[tuple[float, str]] = []
    prose = max(0, s.main_chars - s.main_link_chars)
    main_links = s.main_link_chars / s.main_chars if s.main_chars else 1.0
    # n even teasers each hold 1/n of the text: three of them, a half at most
    share = max(_TEASER_SHARE, _TEASER_SPREAD / max(1, s.main_headlines))
    teasers = s.main_headlines >= TEASER_LINKS and s.main_run_chars < share * prose
    if teasers:
        # a headline and a few lines under it, again and again: the running text is the
        # longest of those stretches, not all of them together
        ev.append((-3.0, f"main block lists {s.main_headlines} headlines"))
        prose = s.main_run_chars
    if prose >= 600:
        ev.append((2.5, f"running text {prose} chars"))
    elif prose >= 250:
        ev.append((1.5, f"running text {prose} chars"))
    elif prose >= 80:
        ev.append((0.5, f"short text {prose} chars"))
    elif prose >= 40:
        ev.append((-1.0, f"little running text ({prose} chars)"))
    else:
        ev.append((-2.0, f"little running text ({prose} chars)"))
    if prose >= 80 and main_links < 0.1 and not teasers and not headless:
        ev.append((1.0, "main block is prose"))
    elif main_links > 0.5:
        ev.append((-2.0, f"main block {main_links:.0%} links"))
    elif main_links > 0.3:
        ev.append((-1.0, f"main block {main_links:.0%} links"))
    density = s.link_chars / s.text_chars if s.text_chars else 1.0
    if density > 0.7:
        ev.append((-1.5, f"page text {density:.0%} links"))
    elif density < 0.35:
        ev.append((0.5, f"page text {density:.0%} links"))
    return ev
