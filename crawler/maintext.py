"""Main text, boilerplate-light: the article body without navigation, headers and footers.

``<nav>``, ``<header>``, ``<footer>``, ``<aside>``, forms and embeds are dropped; then an
``<article>`` with real text wins, else the container holding the most running text (see
``_main_element``). Lines break at block boundaries and ``<br>``.
"""

from __future__ import annotations

from lxml import etree

from crawler.dom import BLOCKS, TEXT_OF, clean, element_text, elements, strip

__all__ = ["main_block", "main_text"]

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


def _block_lines(el: etree._Element) -> str:
    """Text of an element with a line break at every block boundary and ``<br>``.

    Marks block boundaries with newlines in the (already disposable) tree, then lets libxml2
    serialise the text in one call.
    """
    try:
        for node in el.iter(*BLOCKS, "br"):
            node.tail = "\n" + node.tail if node.tail else "\n"
            if node.tag != "br":
                node.text = "\n" + node.text if node.text else "\n"
    except ValueError:  # control characters in the text: lxml refuses to write them back
        return _block_lines_walk(el)
    # most lines are empty (two newlines mark each block): skipped before any splitting
    lines = TEXT_OF(el).split("\n")
    return "\n".join([" ".join(line.split()) for line in lines if line and not line.isspace()])


def _block_lines_walk(el: etree._Element) -> str:
    """``_block_lines`` the slow way, for text lxml will not let us modify."""
    parts: list[str] = []
    for event, node in etree.iterwalk(el, events=("start", "end")):
        tag = node.tag
        if not isinstance(tag, str):
            if event == "end" and node.tail:
                parts.append(node.tail)
            continue
        if event == "start":
            if tag in BLOCKS or tag == "br":
                parts.append("\n")
            if node.text:
                parts.append(node.text)
        else:
            if tag in BLOCKS:
                parts.append("\n")
            if node.tail and node is not el:
                parts.append(node.tail)
    lines = (clean(line) for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if line)


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
    articles = [(len(element_text(el)), el) for el in body.iter("article")]
    if articles:
        size, el = max(articles, key=lambda pair: pair[0])
        if size >= 200:
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


def main_block(root: etree._Element) -> tuple[str, int]:
    """The main text and the number of its characters that are link (anchor) text.

    Drops the boilerplate elements from ``root`` (the tree is disposable).
    """
    strip(root, *_BOILERPLATE)
    body = root.find("body")
    if body is None:
        body = root
    main = _main_element(body)
    link_chars = sum(len(element_text(a)) for a in elements(main, "a"))
    return _block_lines(main), link_chars


def main_text(root: etree._Element) -> str:
    """The main text only (see ``main_block``)."""
    return main_block(root)[0]
