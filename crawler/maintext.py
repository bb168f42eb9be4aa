"""Main text, boilerplate-light: the article body without navigation, headers and footers.

``<nav>``, ``<header>``, ``<footer>``, ``<aside>``, forms and embeds are dropped; then an
``<article>`` with real text wins, else the container holding the most running text (see
``_main_element``). Lines break at block boundaries and ``<br>``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from lxml import etree

from crawler.dom import BLOCKS, TEXT_OF, element_text, elements, strip
from crawler.pagekind import TEASER_LINKS, headline_sized

__all__ = ["main_block", "main_text", "may_hold_comments"]

_BOILERPLATE = (
    "nav",
    "header",
    "footer",
    "aside",
    "form",
    "iframe",
    "svg",
    "select",
    "button",
    "textarea",
)


_COMMENT_HOLDERS = etree.XPath(
    "//*[contains(@class, 'omment') or contains(@id, 'omment') or contains(@id, 'disqus')"
    " or @id = 'respond']"
)
_COMMENT_NAMES = frozenset(
    {
        "comment",
        "comments",
        "commentlist",
        "comment-list",
        "comments-list",
        "comments-area",
        "comment-area",
        "comments-section",
        "comment-section",
        "comments-wrapper",
        "comment-respond",
        "respond",
        "disqus_thread",
    }
)
"""Class or id names of a page's comments (WordPress's ``#comments``, ``.comment-list``,
``#respond``; Disqus's ``#disqus_thread``; most themes' ``.comments``)."""
_DROPPED = "tp-dropped"
"""The tag a comment thread is given until ``strip`` removes it."""
_MAY_COMMENT = re.compile(r"omment|disqus|respond")
"""In a page's source wherever ``_COMMENT_HOLDERS`` can find an element."""


def may_hold_comments(source: str) -> bool:
    """Whether a page's source may name a comment thread ``main_block`` leaves out: a cheap
    test of the source that spares the search of every element on the other pages."""
    return _MAY_COMMENT.search(source) is not None


def _drop_comments(root: etree._Element) -> None:
    """Remove the readers' comments below a story: what its readers say is not what it says.

    With them, a post that has comments was read with its comment thread, its byline and its
    tags (the ``<article>`` then held enough text to be chosen whole) and one without them by
    its text alone, so having comments became a word of the topic: on a lab web of Chinese
    blogs, four pages printed the user's words, three of them had comments, and the model
    learned the commenters' names and 学习了 / 收藏了. An element that holds a headline or an
    ``<article>`` is kept whatever its name (a theme that names the whole post so)."""
    dropped = False
    for el in _COMMENT_HOLDERS(root):
        names = f"{el.get('class', '')} {el.get('id', '')}".lower().split()
        if _COMMENT_NAMES.isdisjoint(names) or el.getparent() is None:
            continue
        if next(el.iter("h1", "article"), None) is not None:
            continue
        el.tag = _DROPPED
        dropped = True
    if dropped:  # in one pass, each one's tail text staying where it was
        strip(root, _DROPPED)


_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
"""Characters lxml will not write back into a tree (it drops the text it was given)."""


def _block_lines(el: etree._Element) -> str:
    """Text of an element with a line break at every block boundary and ``<br>``.

    Marks block boundaries with newlines in the (already disposable) tree, then lets libxml2
    serialise the text in one call. A text with control characters (which lxml refuses to
    write back, dropping the text) is written without them.
    """
    for node in el.iter(*BLOCKS, "br"):
        tail = node.tail
        try:
            node.tail = "\n" + tail if tail else "\n"
        except ValueError:
            node.tail = "\n" + _CONTROL.sub("", tail)
        if node.tag != "br":
            text = node.text
            try:
                node.text = "\n" + text if text else "\n"
            except ValueError:
                node.text = "\n" + _CONTROL.sub("", text)
    # most lines are empty (two newlines mark each block): skipped before any splitting
    lines = TEXT_OF(el).split("\n")
    return "\n".join([" ".join(line.split()) for line in lines if line and not line.isspace()])


_CONTAINERS = frozenset({"div", "td", "section", "article", "main", "body", "dd", "li"})
_NOT_TEXT = frozenset({"a", "option", "label", "h1", "h2", "h3", "title"})
_LONG_TEXT = etree.XPath(
    "descendant::text()[normalize-space()][string-length(normalize-space()) >= 10]"
)
"""Text nodes of 10+ characters once whitespace is collapsed (the first test, which drops the
many whitespace-only nodes, is the cheaper one)."""


def _main_element(body: etree._Element) -> etree._Element:
    """``<article>`` if it has real text, else the container with the most running text.

    Every text node of 10+ characters (paragraphs, ``<br>``-separated lines; not link text)
    scores its length for its nearest container (div, td, section …) and half of it for the
    container above: the article body wins over navigation lists and link blocks.
    """
    articles = [
        (len(element_text(el)), el)
        for el in body.iter("article")
        if next(el.iterancestors("article"), None) is None
    ]
    if articles:
        size, el = max(articles, key=lambda pair: pair[0])
        # one story, not a list of teasers each marked up as an ``<article>`` (a blog's
        # front page, a category or an archive): the largest holds most of their text
        if size >= 200 and 2 * size >= sum(pair[0] for pair in articles):
            return el
    scores: dict[etree._Element, float] = {}
    nodes = _LONG_TEXT(body)
    for node in nodes if isinstance(nodes, list) else ():
        holder = node.getparent() if isinstance(node, etree._ElementUnicodeResult) else None
        if holder is None:
            continue
        if node.is_tail:
            holder = holder.getparent()
        if holder is None or holder.tag in _NOT_TEXT:
            continue
        size = len(node.strip())
        while holder is not None and holder.tag not in _CONTAINERS:
            holder = holder.getparent()
        if holder is None:
            continue
        scores[holder] = scores.get(holder, 0.0) + size
        above = holder.getparent()
        while above is not None and above.tag not in _CONTAINERS:
            above = above.getparent()
        if above is not None:
            scores[above] = scores.get(above, 0.0) + size / 2
    if scores:
        best, score = max(scores.items(), key=lambda pair: pair[1])
        if score >= 40:
            return best
    return body


_MARK = "\ue000"
"""A private-use character: where a headline link stood in ``_longest_run``'s text."""


def _longest_run(main: etree._Element, anchors: list[tuple[etree._Element, bool]]) -> int:
    """Characters of the longest stretch of running text in ``main`` that no headline link
    breaks (link text does not count; ``anchors``: each link and whether it is a headline).
    A story is one stretch, a list of related headlines after it at most; a list of teasers
    — a headline and a few lines under it, again and again — is many short ones. Empties
    the links (the tree is disposable): the text is then read in one pass."""
    for a, headline in anchors:
        if len(a):
            del a[:]
        a.text = _MARK if headline else None
    return max(len(" ".join(part.split())) for part in TEXT_OF(main).split(_MARK))


def main_block(
    root: etree._Element, *, comments: bool = True
) -> tuple[str, int, int, int, Callable[[], str] | None]:
    """The main text; the number of its characters that are link (anchor) text; the number
    of distinct links in it whose text reads as a headline (a list of teasers has one per
    story); the longest stretch of running text no such link breaks (``_longest_run``;
    all of the running text when there are fewer than ``TEASER_LINKS`` of them); and, when
    no container holds running text and the main text is the whole page's, a function that
    returns the page's own words: that text without its links' (``_own_words``).

    Drops the boilerplate elements from ``root``, and readers' comments unless ``comments`` is
    False (``may_hold_comments`` of the page's source said it names none). The tree is
    disposable; call the returned function before the tree is changed again.
    """
    strip(root, *_BOILERPLATE)
    if comments:
        _drop_comments(root)
    body = root.find("body")
    if body is None:
        body = root
    main = _main_element(body)
    link_chars = 0
    targets: set[str] = set()
    anchors: list[tuple[etree._Element, bool]] = []
    for a in elements(main, "a"):
        text = element_text(a)
        link_chars += len(text)
        # a link within the page (a table of contents, a footnote) is no story's teaser; a
        # heading that is a link is one, however short ("Microsoft releases patches")
        headline = (headline_sized(text) or _is_heading(a)) and not (
            a.get("href") or ""
        ).startswith("#")
        if headline:
            targets.add(a.get("href") or text)
        anchors.append((a, headline))
    text = _block_lines(main)
    if len(targets) >= TEASER_LINKS:
        longest = _longest_run(main, anchors)
    else:  # no list of teasers: the running text is one stretch
        longest = len(text) - link_chars
    own = functools.partial(_own_words, main, [a for a, _ in anchors]) if main is body else None
    return text, link_chars, len(targets), longest, own


_HEADINGS = frozenset({"h2", "h3", "h4", "h5", "h6"})


def _is_heading(a: etree._Element) -> bool:
    """A link that is a heading's text (``<h3><a>…</a></h3>``, ``<a><h3>…</h3></a>``): a
    card's headline. Not ``<h1>``: a page's own headline may link to itself."""
    parent = a.getparent()
    if parent is not None and parent.tag in _HEADINGS:
        return not (parent.text or "").strip() and len(parent) == 1
    return len(a) == 1 and a[0].tag in _HEADINGS


def _own_words(main: etree._Element, anchors: list[etree._Element]) -> str:
    """The text of ``main`` without the text of its links (empties them: the tree is
    disposable).

    A story of a line or two (a photo's or a video's caption, a brief, a headline and its
    keywords) has no container of running text, and its main text is then the whole page's:
    the lists of other stories it links to ("most read", "related", the next and previous
    story) say more words than the story. Read as the page's words, those headlines made a
    finance brief look like football where the page's "most read" listed a match, and a
    football brief look like whatever its neighbours were (on a lab web of such briefs a
    one-keyword topic's precision fell to 0.51). The page's own words are what is left."""
    for a in anchors:
        if len(a):
            del a[:]
        a.text = None
    return _block_lines(main)


def main_text(root: etree._Element) -> str:
    """The main text only (see ``main_block``)."""
    return main_block(root)[0]
