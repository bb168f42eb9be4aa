"""Page analysis: from HTML (or RSS/Atom) to a ``Page`` ready for scoring.

The hot path uses lxml's libxml2 HTML parser directly (BeautifulSoup with the lxml builder
parses the same way but its tree alone costs several times our whole analysis; see the Parse
section of docs/benchmarks.md).
Nothing here raises on bad input: random bytes, truncated tags or a document that is not
HTML at all give a ``Page`` with what could be found (maybe nothing).

Extracted: the title (SkyReach's heuristic when ``<title>`` is missing or generic: first
``<h1>``, then ``og:title``, then the longest heading-like text), meta keywords and
description, ``<link rel=canonical>``, ``<base href>``, feed autodiscovery links, the main
text (boilerplate-light: script/style/nav/header/footer/aside dropped; ``<article>`` or the
block with the most running text preferred), and every outlink with its anchor text, nearby
text and ``rel=nofollow`` — canonicalised and de-duplicated.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from urllib.parse import urlsplit

from lxml import etree

from crawler.charset import decode_body, decode_with_source
from crawler.dom import BLOCKS, attr, clean, element_text, elements, strip, to_root
from crawler.feeds import looks_like_feed, parse_feed
from crawler.fingerprint import content_hash, fingerprints
from crawler.maintext import main_block, may_hold_comments
from crawler.pagekind import (
    ITEM,
    Structure,
    classify,
    headline_sized,
    title_parts,
    titled_headline,
    url_item_prior,
)
from crawler.types import Link, Page
from crawler.urls import canonicalize

__all__ = ["decode_body", "parse_html"]

logger = logging.getLogger(__name__)

GENERIC_TITLES = frozenset(
    {
        "首页",
        "主页",
        "无标题",
        "无标题文档",
        "无标题页",
        "新建网页 1",
        "网页",
        "untitled",
        "untitled document",
        "untitled page",
        "home",
        "home page",
        "homepage",
        "index",
        "welcome",
        "document",
        "new page 1",
        "default",
    }
)
"""Lower-cased titles that say nothing about the page."""

_CODE = ("script", "style", "noscript", "template")
"""Never text: dropped before links and their context are read."""
_NOFOLLOW = frozenset({"nofollow", "ugc", "sponsored"})
_FEED_TYPES = frozenset({"application/rss+xml", "application/atom+xml", "application/rdf+xml"})
_CONTEXT_CHARS = 100
_HUGE_BLOCK = 3000
_MAX_TITLE = 300


class _Meta:
    """The ``<base>``, ``<meta>`` and ``<link>`` facts of a page head (one walk of the tree).

    ``base``: the URL the page's links are relative to (the first ``<base href>``, else the
    page's URL), which the canonical and feed links are resolved against.
    """

    def __init__(self, root: etree._Element, url: str) -> None:
        self.values: dict[str, str] = {}
        self.canonical: str | None = None
        self.feeds: list[str] = []
        self.base = url
        based = False
        links: list[etree._Element] = []
        for el in elements(root, "base", "meta", "link"):
            tag = el.tag
            if tag == "meta":
                key = (attr(el, "name") or attr(el, "property") or attr(el, "itemprop")).lower()
                if key and key not in self.values:
                    self.values[key] = clean(el.get("content"))
            elif tag == "link":
                links.append(el)
            elif not based:
                href = attr(el, "href")
                if href:
                    self.base = canonicalize(href, url) or url
                    based = True
        base = self.base
        for el in links:
            rel = attr(el, "rel").lower().split()
            href = attr(el, "href")
            if not href:
                continue
            if "canonical" in rel and self.canonical is None:
                self.canonical = canonicalize(href, base)
            elif "alternate" in rel and attr(el, "type").lower() in _FEED_TYPES:
                feed = canonicalize(href, base)
                if feed and feed not in self.feeds:
                    self.feeds.append(feed)

    def get(self, *keys: str) -> str:
        for key in keys:
            if self.values.get(key):
                return self.values[key]
        return ""


def _is_generic(title: str, site_name: str) -> bool:
    low = title.lower().strip(" -_|·")
    if not low or low in GENERIC_TITLES:
        return True
    return bool(site_name) and low == site_name.lower().strip()


def _title(root: etree._Element, meta: _Meta, texts: _Texts) -> str:
    raw = ""
    for el in elements(root, "title"):
        raw = texts[el]
        break
    site = meta.get("og:site_name", "application-name")
    if raw and not _is_generic(raw, site):
        return raw[:_MAX_TITLE]
    for el in elements(root, "h1"):
        h1 = texts[el]
        if h1 and not _is_generic(h1, site):
            return h1[:_MAX_TITLE]
    og = meta.get("og:title", "twitter:title")
    if og and not _is_generic(og, site):
        return og[:_MAX_TITLE]
    best = ""
    for el in elements(root, "h2", "h3"):
        candidate = texts[el]
        if len(best) < len(candidate) <= _MAX_TITLE:
            best = candidate
    return best or raw[:_MAX_TITLE]


class _Texts(dict[etree._Element, str]):
    """The cleaned text of a page's elements (``element_text``), each read once: link contexts
    come back to the same blocks, and the title and the page's structure read the same first
    heading (and maybe the body). Valid while the tree is unchanged."""

    def __missing__(self, el: etree._Element) -> str:
        text = self[el] = element_text(el)
        return text


class _Context:
    """Nearby text of a link: its enclosing block's text around the anchor (~100 chars).

    The nearest block (p, li, td, div …) is used; when it holds little besides the anchor
    (a navigation ``<li>``), its neighbouring blocks are added; when it is huge (links loose
    in a page-wide ``<div>``), only the anchor's immediate neighbourhood is. Element texts
    come from the page's ``_Texts``, so each block is read once per page.
    """

    def __init__(self, texts: _Texts) -> None:
        self._texts = texts

    def _siblings(self, block: etree._Element, text: str) -> str:
        before = block.getprevious()
        if before is not None:
            left = self._texts[before]
            if left:
                text = f"{left} {text}" if text else left
        after = block.getnext()
        if after is not None:
            right = self._texts[after]
            if right:
                text = f"{text} {right}" if text else right
        return text

    def _local(self, a: etree._Element, anchor: str) -> str:
        before = a.getprevious()
        parent = a.getparent()
        left = (
            before.tail if before is not None else parent.text if parent is not None else ""
        ) or ""
        after = a.getnext()
        right = (a.tail or "") + (self._texts[after] if after is not None else "")
        return clean(f"{left[-_CONTEXT_CHARS:]} {anchor} {right[:_CONTEXT_CHARS]}")

    def around(self, a: etree._Element, anchor: str) -> str:
        block = _line_of(a.getparent())
        if block is None:
            return anchor
        tag = block.tag
        text = self._texts[block]
        size = len(text)
        if size > _HUGE_BLOCK:
            text = self._local(a, anchor)
            size = len(text)
        elif size < len(anchor) + 20 and tag not in ("p", "td", "dd", "body"):
            text = self._siblings(block, text)
            size = len(text)
        if size <= _CONTEXT_CHARS:
            return text
        at = text.find(anchor) if anchor else -1
        if at < 0:
            return text[:_CONTEXT_CHARS]
        start = max(0, at + len(anchor) // 2 - _CONTEXT_CHARS // 2)
        return text[start : start + _CONTEXT_CHARS].strip()


def _anchor_text(a: etree._Element, text: str) -> str:
    """The anchor's text (``text``: its element text), else an image's alt or title text, else
    the anchor's title."""
    if text:
        return text
    if len(a):  # a childless anchor holds no image: no walk
        for img in elements(a, "img"):
            alt = clean(img.get("alt")) or clean(img.get("title"))
            if alt:
                return alt
    return clean(a.get("title"))


def _links(root: etree._Element, base: str, texts: _Texts) -> tuple[list[Link], int]:
    """The page's links, and the characters of text inside its ``<a>`` elements (all of
    them, with an href or not: the page kind's link density)."""
    found: dict[str, Link] = {}
    resolved: dict[str, str | None] = {}  # pages repeat their hrefs (nav, teasers, images)
    context = _Context(texts)
    link_chars = 0
    for a in elements(root, "a", "area"):
        if len(a):
            text = element_text(a)
        else:  # the common anchor: its own text only (element_text, without the calls)
            text = a.text
            text = " ".join(text.split()) if text else ""
        if a.tag == "a":
            link_chars += len(text)
        href = a.get("href")
        if not href or href[0] == "#":
            continue
        url = resolved.get(href, "")
        if url == "":
            url = resolved[href] = canonicalize(href, base)
        if url is None:
            continue
        previous = found.get(url)
        if previous is not None and previous.anchor:
            continue
        anchor = text or _anchor_text(a, text)
        if previous is not None and not anchor:
            continue
        rel = a.get("rel")
        found[url] = Link(  # url, anchor, context, nofollow (positional: a third cheaper)
            url,
            anchor,
            context.around(a, anchor),
            bool(rel) and not _NOFOLLOW.isdisjoint(str(rel).lower().split()),
        )
    return list(found.values()), link_chars


_DATE_META = frozenset(
    {
        "pubdate",
        "publishdate",
        "publish_date",
        "publication_date",
        "ptime",
        "datepublished",
        "date",
        "dc.date",
        "dc.date.issued",
        "sailthru.date",
        "parsely-pub-date",
        "og:published_time",
        "article:published_time",
    }
)


def _ld_facts(root: etree._Element) -> tuple[list[str], list[str]]:
    """JSON-LD ``@type`` values (lower-cased), ``@graph`` members included; and the sections
    it files the page under (``_ld_sections``)."""
    found: list[str] = []
    nodes: list[dict[str, object]] = []

    def walk(node: object, depth: int) -> None:
        if depth > 4 or len(found) > 20:
            return
        if isinstance(node, list):
            for item in node[:50]:
                walk(item, depth + 1)
        elif isinstance(node, dict):
            nodes.append(node)
            kind = node.get("@type")
            for value in kind if isinstance(kind, list) else [kind]:
                if isinstance(value, str):
                    found.append(value.lower())
            if "@graph" in node:
                walk(node["@graph"], depth + 1)
            if depth == 0 and isinstance(node.get("mainEntity"), dict):
                walk(node["mainEntity"], depth + 1)

    for el in elements(root, "script"):
        if attr(el, "type").lower() != "application/ld+json" or not el.text:
            continue
        try:
            walk(json.loads(_CDATA.sub("", el.text)), 0)
        except (ValueError, RecursionError):
            continue
    return found, _ld_sections(nodes)


_CDATA = re.compile(r"^\s*(?://\s*)?<!\[CDATA\[|(?://\s*)?\]\]>\s*$")
"""A CDATA wrapper around a script's JSON (``<![CDATA[ … ]]>``, or ``//<![CDATA[`` …
``//]]>``), as XHTML pages and some publishing systems write it: the JSON is inside."""


def _ld_sections(nodes: list[dict[str, object]]) -> list[str]:
    """The sections JSON-LD files a page under: ``articleSection``, and a
    ``BreadcrumbList``'s names but its last (the page itself)."""
    names: list[object] = []
    for node in nodes:
        section = node.get("articleSection")
        names.extend(section if isinstance(section, list) else [section])
        kind = node.get("@type")
        kinds = kind if isinstance(kind, list) else [kind]
        listed = node.get("itemListElement")
        if "BreadcrumbList" in kinds and isinstance(listed, list):
            crumbs = [c for c in listed[:_MAX_SECTIONS] if isinstance(c, dict)]
            for crumb in crumbs[:-1]:
                item = crumb.get("item")
                names.append(
                    crumb.get("name") or (item.get("name") if isinstance(item, dict) else None)
                )
    return [clean(n)[:_MAX_SECTION_CHARS] for n in names if isinstance(n, str) and clean(n)][
        :_MAX_SECTIONS
    ]


_MAX_SECTIONS = 8
_MAX_SECTION_CHARS = 40
_CRUMB_LINKS = 6
"""A breadcrumb of more links than this is a navigation bar, not the page's place."""
_CRUMB_CHARS = 120
_CRUMB_TAGS = ("div", "nav", "ol", "ul", "p", "span", "section", "td", "header", "dl", "dd")
"""The blocks a breadcrumb is built of (not its links and list items: the block holding them)."""
_CRUMB_NAME = re.compile(
    r"(?i)(crumb|breadcrumblist|面包屑)|(?:^|[-_\s])(?:nav)?(?:path|position|location)(?:$|[-_\s])"
)
"""Where a page shows its place on the site: an element whose class, id or label names a
breadcrumb (``crumb``, ``Crumbs``, schema.org's ``BreadcrumbList``), a path or position
(人民网's ``path``, 澎湃's ``news_path``)."""
_STEP = re.compile(r">|›|»|→|/|＞|》")
"""What a breadcrumb puts between two places (首页 > 体育, Home / Sport)."""
_CRUMB_LABEL = re.compile(r"^\s*(?:当前位置|您的位置|你的位置|您现在的位置|所在位置|You are here)")
"""…or a block that starts with 当前位置 / You are here."""


def _section_meta(meta: _Meta) -> list[str]:
    """The section the page's ``article:section`` meta (Open Graph) names."""
    value = meta.get("article:section")
    return [value[:_MAX_SECTION_CHARS]] if value else []


def _crumbs(root: etree._Element) -> list[str]:
    """The sections a page's breadcrumb files it under: the link texts of the first small
    block that shows the page's place on the site (``_CRUMB_NAME``, ``_CRUMB_LABEL``; at
    most ``_CRUMB_LINKS`` links and ``_CRUMB_CHARS`` characters, else it is a menu). The
    current page's own label (正文, the headline) is not a link and is not taken; the home
    page's (网易首页, Home) is, and names no topic."""
    for el in root.iter(*_CRUMB_TAGS):
        get = el.get
        named = [v for v in (get("class"), get("id"), get("aria-label"), get("itemtype")) if v]
        name = _CRUMB_NAME.search(" ".join(named)) if named else None
        if name is None:
            text = el.text
            if not text or _CRUMB_LABEL.match(text) is None:
                continue
        links = el.findall(".//a")
        if name is None and not links and el.getparent() is not None:
            el = el.getparent()  # a 当前位置 label: its links follow it, in the same block
            links = el.findall(".//a")
        if not links or len(links) > _CRUMB_LINKS:
            continue
        text = element_text(el)
        if len(text) > _CRUMB_CHARS:
            continue
        if name is not None and name.group(1) is None and len(links) < 2 and not _STEP.search(text):
            # a block named a path, position or location with one link and no step between
            # places (an event's venue, a job's title) is not a breadcrumb
            continue
        found = [clean(element_text(a))[:_MAX_SECTION_CHARS] for a in links]
        return [label for label in found if label]
    return []


_DATES = re.compile(
    r"(?<!\d)(?:19|20)\d{2}\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}(?!\d)"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+"
    r"(?:19|20)\d{2}\b"
    r"|\b\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?,?\s+"
    r"(?:19|20)\d{2}\b",
    re.I,
)
"""A written date: 2018-03-16, 2024/6/1, 2024年6月1日, March 5, 2024, 5 Mar 2024."""
_DATED_NODES = 40
"""Pieces of text after the headline looked at for its date."""


def _texts_after(el: etree._Element, limit: int) -> Iterator[tuple[str, etree._Element]]:
    """The non-blank pieces of text after ``el`` in document order, at most ``limit``, each with
    the element it stands in (a tail stands in its element's parent)."""
    count = 0
    node: etree._Element | None = el
    while node is not None:
        parent = node.getparent()
        if node.tail and not node.tail.isspace() and parent is not None:
            count += 1
            yield node.tail, parent
        for sibling in node.itersiblings():
            for event, sub in etree.iterwalk(sibling, events=("start", "end")):
                if event == "start":
                    text = sub.text if isinstance(sub.tag, str) else None
                    owner = sub
                else:
                    text = sub.tail if sub is not sibling else None
                    owner = sub.getparent()
                if text and not text.isspace() and owner is not None:
                    count += 1
                    yield text, owner
                    if count >= limit:
                        return
            if sibling.tail and not sibling.tail.isspace() and parent is not None:
                count += 1
                yield sibling.tail, parent
            if count >= limit:
                return
        node = parent


def _link_around(el: etree._Element) -> etree._Element | None:
    """The link ``el`` is, or stands in (None: in no link)."""
    return el if el.tag == "a" else next(el.iterancestors("a"), None)


_BYLINE_LINKS = 2
"""Short links (an author's name, a section's) a byline may hold on its line before its date."""
_STORY_LINK = 0.7
"""A link whose address reads as an item's (``url_item_prior``: a date, an id) is a teaser's,
however short its text ("Chelsea sack Mutu"), not a byline's."""


def _to_story(label: str, href: str) -> bool:
    """Whether a link reads as one to another story: a headline's text, or an item's address
    (``_STORY_LINK``) — not an author's or a section's, as a byline's or a kicker's are."""
    return headline_sized(label) or url_item_prior(href) > _STORY_LINK


def _dated(h1: etree._Element) -> bool:
    """Whether a date is written under the headline ``h1`` before any link to another page
    but a few short ones to pages other than stories, on the date's own line
    (``_BYLINE_LINKS``: 文/<author> · 2024-06-15; By <author>, 5 March 2024): a story's
    byline (2018-03-16 网易三农; Posted on 5 March 2024). A list's dates stand under its
    teasers' links, on lines of their own; a short story on a portal page thick with links
    has little else to show it is one (on Chinese lab webs whose stories are a headline and
    its keywords, half of them read as lists at an address without a date in it; on a Chinese
    magazine web whose bylines link the author, one story in eight)."""
    links: dict[etree._Element, etree._Element | None] = {}
    for text, owner in _texts_after(h1, _DATED_NODES):
        link = _link_around(owner)
        if link is not None and not (link.get("href") or "#").startswith("#"):
            if link not in links:
                if len(links) >= _BYLINE_LINKS or _to_story(
                    element_text(link), link.get("href") or ""
                ):
                    return False
                links[link] = _line_of(link.getparent())
            continue
        if _DATES.search(text):
            line = _line_of(owner)
            return all(where is line for where in links.values())
    return False


_FILED_LABEL = re.compile(
    r"(?:^|[\s|｜·•,，;；])(?:所属)?(?:分类|栏目|类别|分类目录)\s*[:：]\s*$"
    r"|(?:^|[|｜·•,，;；])\s*(?:filed\s+under|posted\s+in)\s*:?\s*$"
    r"|(?:^|[|｜·•,，;；])\s*(?:categor(?:y|ies)|sections?)\s*[:：]\s*$"
    r"|(?:^|[|｜·•])\s*(?:posted|published|filed)\b[^.!?|｜,，]{0,60}\bin\s*$",
    re.I,
)
"""What a byline prints before the section it files a post under, at the start of its line or
after a separator (发表于 2024-06-07，分类：体育; 所属栏目：; Posted on 5 March 2024 in Sport;
Posted by Sam in Sport; Filed under: Sport; Category: Sport) — not a sentence that says
"published on Monday in", nor 热门栏目：."""
_FILED_LINE = 100
"""A byline's line is short: a longer one is a paragraph of the story, and holds no label."""
_FILED_JOIN = re.compile(r"^\s*[,，、;；]?\s*$")
"""Between two sections a byline names (体育、足球; Sport, Football)."""
_FILED_NODES = 16
"""Pieces of text after the headline looked at for the sections its byline names."""
_FILED_REL = etree.XPath(
    "//body//a[contains(concat(' ', normalize-space(@rel), ' '), ' category ')]"
    "[not(ancestor::nav or ancestor::aside)]"
)


def _marks_categories(source: str) -> bool:
    """Whether a page's source marks a link ``rel="category …"`` (a cheap test that spares
    most pages the search for one)."""
    return any(mark in source for mark in ('rel="category', "rel='category", "rel=category"))


def _line_of(el: etree._Element | None) -> etree._Element | None:
    """The block element (``BLOCKS``) whose line ``el`` stands in: ``el`` or its nearest
    ancestor that is one (None: none is)."""
    while el is not None and el.tag not in BLOCKS:
        el = el.getparent()
    return el


def _filed(
    headline: etree._Element | None, root: etree._Element, *, marked: bool = True
) -> list[str]:
    """The sections a post says it is filed under: its byline's (``_byline_sections``), else
    the first group of links a blog engine marks ``rel="category"`` outside the menus and
    sidebars (looked for only when ``marked``: ``_marks_categories``; one group: a list of
    related posts marks each post's own). A blog's categories are links in the line under
    the post's title, not a breadcrumb."""
    found = _byline_sections(headline) if headline is not None else []
    if not found and marked:
        rel = _FILED_REL(root)
        if isinstance(rel, list) and rel:
            first = rel[0].getparent()
            labels = (clean(element_text(a)) for a in rel if a.getparent() is first)
            found = [label[:_MAX_SECTION_CHARS] for label in labels if label]
    return found[:_MAX_SECTIONS]


def _byline_sections(headline: etree._Element) -> list[str]:
    """The links after a label in the line under ``headline`` (the element the page's title
    names, not a site's logo): 分类：体育, Posted in Sport, Posted by Sam in Sport, Filed
    under: Sport, and the ones joined to them by 、 or a comma."""
    found: list[str] = []
    line, block, joined = "", None, False
    for text, owner in _texts_after(headline, _FILED_NODES):
        link = _link_around(owner)
        here = _line_of(owner if link is None else link)
        if here is not block:
            if found:
                break  # the byline's line ended
            line, block = "", here
        if link is None:
            if not found:
                line += text
            elif _FILED_JOIN.match(text):
                joined = True
            else:
                break
            continue
        label = clean(element_text(link))[:_MAX_SECTION_CHARS]
        if found and joined:
            found.append(label)
            joined = False
        elif found or headline_sized(label):
            break  # past the byline, or at a list's first teaser
        elif len(line) <= _FILED_LINE and _FILED_LABEL.search(line.strip()):
            found.append(label)
        else:
            line += label  # an author's name in the byline (Posted by Sam in …)
    return [label for label in found if label]


_KICKER_HOPS = 2
"""How far up from the headline a kicker is looked for: the headline may be the first in its
header or its ``<hgroup>``, the kicker before that."""


def _kicker(headline: etree._Element) -> list[str]:
    """The section a story's kicker names: a label that is one short link, right before the
    headline the title names (``<a class="kicker" href="/s/sport">Sport</a><h1>…``), to a
    page that is neither the site's root nor another story. Read only where the page names
    no section otherwise (breadcrumb, byline, meta)."""
    el, before = headline, headline.getprevious()
    for _ in range(_KICKER_HOPS):
        if before is not None:
            break
        parent = el.getparent()
        if parent is None or parent.tag == "body":
            return []
        el, before = parent, parent.getprevious()
    if before is None or not isinstance(before.tag, str):
        return []
    links = [before] if before.tag == "a" else before.findall(".//a")
    if len(links) != 1:
        return []
    label = clean(element_text(links[0]))
    href = links[0].get("href") or ""
    if not label or clean(element_text(before)) != label or _to_story(label, href):
        return []
    if href.startswith("#") or urlsplit(href).path in ("", "/"):
        return []
    return [label[:_MAX_SECTION_CHARS]]


_SAME_TEXT = etree.XPath("//body//text()[normalize-space(.) = $text]")
_NOT_SHOWN = frozenset({"a", "title", "option", "script", "style", "textarea"})


def _shown_headline(root: etree._Element, title: str) -> tuple[str, etree._Element | None]:
    """The title's headline where the page shows it on its own, in no ``<h1>`` (a template that
    prints it as an ``<h2>`` or a ``<div class="title">``): an element whose text is the
    title's headline, in no link. ("", None) when there is none."""
    head = " ".join(title_parts(title)[0].split())
    if not titled_headline(title, head):
        return "", None
    nodes = _SAME_TEXT(root, text=head)
    for node in nodes if isinstance(nodes, list) else ():
        holder = node.getparent() if isinstance(node, etree._ElementUnicodeResult) else None
        if holder is None or getattr(node, "is_tail", False):
            continue
        if holder.tag in _NOT_SHOWN or _link_around(holder) is not None:
            continue
        return head, holder
    return "", None


def _structure(
    root: etree._Element,
    meta: _Meta,
    texts: _Texts,
    links: list[Link],
    link_chars: int,
    title: str,
) -> tuple[Structure, etree._Element | None]:
    """The page's structural facts, and the element the title's headline stands in (the
    ``<h1>`` the title repeats, or the headline shown on its own; none when neither is: the
    first ``<h1>`` may be a site's logo)."""
    body = root.find("body")
    # the headline's ``<h1>``: the first the title repeats (a site's logo or name in an
    # ``<h1>`` of its header comes first on many blogs), else the first
    h1s = [(texts[el], el) for el in elements(root, "h1")]
    titled = next(((h, el) for h, el in h1s if titled_headline(title, h)), None)
    # the element a byline's date stands under: that ``<h1>``, else the title's headline
    # shown on its own, else the first ``<h1>``
    shown = ""
    named: etree._Element | None = None
    if titled is not None:
        h1, headline = titled
        named = headline
    else:
        h1, headline = h1s[0] if h1s else ("", None)
        shown, shown_el = _shown_headline(root, title)
        if shown_el is not None:
            headline = named = shown_el
    structure = Structure(
        text_chars=len(texts[body if body is not None else root]),
        link_chars=link_chars,
        links=len(links),
        h1=h1[:_MAX_TITLE],
        headline=shown[:_MAX_TITLE],
        dated=headline is not None and _dated(headline),
        og_type=meta.get("og:type"),
        article_meta=any(k in _DATE_META for k in meta.values),
    )
    return structure, named


def _empty(url: str, status: int) -> Page:
    return Page(
        url=url,
        final_url=url,
        status=status,
        content_hash=content_hash(""),
        kind="hub",
        kind_evidence=["nothing to read"],
    )


def parse_html(
    html_text: str | bytes,
    url: str,
    *,
    status: int = 200,
    encoding: str | None = None,
    content_type: str | None = None,
) -> Page:
    """Analyse an HTML page (or an RSS/Atom feed) fetched from ``url``.

    ``html_text`` may be bytes: it is then decoded with ``encoding`` if given, else by
    ``decode_body`` (BOM, the response's ``content_type``, ``<meta>``, detection); a UTF-8 body
    is parsed from its bytes. Never raises on malformed input.
    """
    page_url = canonicalize(url) or url
    source = None
    if isinstance(html_text, bytes):
        if encoding:
            content_type = f"text/html; charset={encoding}"
        html_text, _, source = decode_with_source(html_text, content_type)
    if looks_like_feed(html_text):
        feed = parse_feed(html_text, page_url, status=status)
        if feed is not None:
            return feed
    root = to_root(html_text, source)
    if root is None:
        return _empty(page_url, status)
    try:
        ld_types, sections = _ld_facts(root)
        strip(root, *_CODE)
        meta = _Meta(root, page_url)
        sections = [*_section_meta(meta), *sections, *_crumbs(root)]
        base = meta.base
        texts = _Texts()  # until main_block changes the tree
        title = _title(root, meta, texts)
        links, link_chars = _links(root, base, texts)
        structure, headline = _structure(root, meta, texts, links, link_chars, title)
        # the byline under the title's headline (not under a logo's ``<h1>``)
        sections += _filed(headline, root, marked=_marks_categories(html_text))
        if not sections and headline is not None:
            sections = _kicker(headline)
        structure.ld_types = ld_types
        (
            text,
            structure.main_link_chars,
            structure.main_headlines,
            structure.main_run_chars,
            own_words,
        ) = main_block(root, comments=may_hold_comments(html_text))
        structure.main_chars = len(text)
        kind = classify(page_url, title, text, structure)
        if own_words is not None and kind.kind == ITEM:
            # a story of a line or two: what it says, not the headlines it links to
            text = own_words()
    except (ValueError, RecursionError, etree.LxmlError) as exc:  # a safety net: never crash
        logger.warning("could not analyse %s: %r", page_url, exc)
        return _empty(page_url, status)
    digest, near = fingerprints(text)
    return Page(
        url=page_url,
        final_url=page_url,
        status=status,
        title=title,
        meta_keywords=meta.get("keywords"),
        description=meta.get("description", "og:description"),
        canonical_url=meta.canonical,
        text=text,
        links=links,
        feeds=meta.feeds,
        content_hash=digest,
        simhash=near,
        structure=structure,
        kind=kind.kind,
        kind_evidence=kind.evidence,
        sections=tuple(dict.fromkeys(sections))[:_MAX_SECTIONS],
    )
