"""The HTML tree layer shared by page analysis: parsing to libxml2 elements and reading text.

Plain ``lxml.etree`` elements from a per-thread ``HTMLParser`` (no ``lxml.html`` element
classes: their Python-level lookup costs on every element), text read with libxml2's text
serialiser, and element removal that keeps the tail text. Nothing here raises on bad input.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections.abc import Iterator
from typing import cast

from lxml import etree

__all__ = [
    "BLOCKS",
    "TEXT_OF",
    "attr",
    "clean",
    "element_text",
    "elements",
    "strip",
    "to_root",
]

logger = logging.getLogger(__name__)

_XML_DECL = re.compile(r"^\s*<\?xml[^>]*>", re.I)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
BLOCKS = frozenset(  # elements that start a new line of text
    {
        *("p", "li", "dd", "dt", "td", "th", "div", "section", "article", "blockquote"),
        *("h1", "h2", "h3", "h4", "h5", "h6", "tr", "ul", "ol", "table", "main", "body"),
        *("pre", "figure", "figcaption"),
    }
)
_local = threading.local()
TEXT_OF = functools.partial(etree.tostring, method="text", encoding="unicode", with_tail=False)
"""All text inside an element, in one libxml2 call (6x cheaper than XPath ``string()``)."""


def _parser(encoding: str | None = None) -> etree.HTMLParser:
    """A per-thread libxml2 HTML parser (plain elements: no lxml.html class lookup cost), for
    text or, with ``encoding``, for bytes in that encoding."""
    key = f"parser_{encoding}"
    parser: etree.HTMLParser | None = getattr(_local, key, None)
    if parser is None:
        # collect_ids off: no ID table (7 % of the parse), which only XPath id() would read
        parser = etree.HTMLParser(
            remove_comments=True,
            remove_pis=True,
            default_doctype=False,
            collect_ids=False,
            encoding=encoding,
        )
        setattr(_local, key, parser)
    return parser


def clean(text: str | None) -> str:
    """Whitespace (any Unicode space, incl. full-width) collapsed to single spaces, trimmed."""
    return " ".join(text.split()) if text else ""


def element_text(el: etree._Element) -> str:
    """The cleaned text inside an element."""
    children = len(el)
    if not children:  # no children: the common anchor
        return clean(el.text)
    if children == 1:  # one child without children (a list item's link): its text in between
        child = el[0]
        if not len(child) and isinstance(child.tag, str):
            return " ".join(f"{el.text or ''}{child.text or ''}{child.tail or ''}".split())
    # clean() and TEXT_OF spelled out: a call less, and the partial's keyword merging costs a
    # third of a small element's serialisation
    text = etree.tostring(el, method="text", encoding="unicode", with_tail=False)
    return " ".join(text.split())


def attr(el: etree._Element, name: str) -> str:
    """An attribute's value, trimmed; "" when absent."""
    value = el.get(name)
    return value.strip() if isinstance(value, str) else ""


def elements(root: etree._Element, *tags: str) -> Iterator[etree._Element]:
    """Descendant elements (and root) with one of the tag names, in document order."""
    return cast(Iterator[etree._Element], root.iter(*tags))  # tags given: elements only


def to_root(text: str, utf8: bytes | None = None) -> etree._Element | None:
    """The ``<html>`` element of a document, or None when there is nothing to parse.

    ``utf8``: the document's bytes, when ``text`` is their exact UTF-8 decoding; libxml2
    reads them directly (text is handed over re-encoded: 15 % more for the tree)."""
    declared = text[:100].lstrip().startswith("<?")
    if utf8 is not None and not declared:
        try:
            root = etree.fromstring(utf8, _parser("utf-8"))
        except (etree.ParserError, etree.XMLSyntaxError, ValueError):
            root = None
        if root is not None and isinstance(root.tag, str):
            return root
    if declared:
        text = _XML_DECL.sub("", text, count=1)  # lxml refuses str with an encoding declaration
    for attempt in range(2):
        try:
            root = etree.fromstring(text, _parser())
        except (etree.ParserError, etree.XMLSyntaxError, ValueError) as exc:
            if attempt:
                logger.debug("unparseable HTML: %s", exc)
                return None
            text = _CONTROL.sub("", text)  # control characters lxml will not take
            continue
        return root if root is not None and isinstance(root.tag, str) else None
    return None


def strip(root: etree._Element, *tags: str) -> None:
    """Remove every element with one of the tag names below ``root``, with its content but
    not its tail text, which joins the text before it (one libxml2 pass, like lxml.html's
    ``drop_tree`` on each)."""
    etree.strip_elements(root, *tags, with_tail=False)
