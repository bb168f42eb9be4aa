"""RSS 0.9x/1.0/2.0 and Atom feeds read as pages: every item link becomes a ``Link``.

A feed's ``Page`` has ``is_feed=True``, the channel title as its title, the channel
description as its description, and one link per item (anchor = item title, context = the
start of the item summary). Entities are never resolved and nothing is fetched (no XXE).
"""

from __future__ import annotations

import logging
import re

from lxml import etree

from crawler.fingerprint import fingerprints
from crawler.types import Link, Page
from crawler.urls import canonicalize

__all__ = ["looks_like_feed", "parse_feed"]

logger = logging.getLogger(__name__)

_FEED_START = re.compile(
    r"\A(?:\s|<\?xml[^>]*\?>|<!--.*?-->|<!DOCTYPE[^>]*>|<\?xml-stylesheet[^>]*\?>)*"
    r"<(?:rss|feed|rdf:RDF)[\s>]",
    re.S,
)
_WS = re.compile(r"\s+")
_TAGS = re.compile(r"<[^>]{0,500}>")
_CONTEXT_CHARS = 100


def looks_like_feed(text: str) -> bool:
    """Whether a document starts like an RSS or Atom feed."""
    return bool(_FEED_START.match(text[:2000].lstrip("\ufeff")))


def _local(el: etree._Element) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1].split(":")[-1].lower()


def _child(el: etree._Element, *names: str) -> etree._Element | None:
    for child in el:
        if _local(child) in names:
            return child
    return None


def _child_text(el: etree._Element, *names: str) -> str:
    child = _child(el, *names)
    if child is None:
        return ""
    text = "".join(t for t in child.itertext() if isinstance(t, str))
    return _WS.sub(" ", _TAGS.sub(" ", text)).strip()


def _item_link(item: etree._Element) -> str:
    for child in item:
        if _local(child) != "link":
            continue
        href = child.get("href")
        if href is not None:  # Atom
            if child.get("rel", "alternate") == "alternate":
                return str(href).strip()
            continue
        if child.text and child.text.strip():  # RSS
            return str(child.text).strip()
    guid = _child(item, "guid", "id")
    if guid is not None and guid.text and guid.get("isPermaLink", "true") != "false":
        return str(guid.text).strip()
    return ""


def parse_feed(text: str, url: str, *, status: int = 200) -> Page | None:
    """A ``Page`` for an RSS/Atom document, or None if it is not a readable feed."""
    parser = etree.XMLParser(recover=True, resolve_entities=False, no_network=True, huge_tree=False)
    try:
        root = etree.fromstring(text.encode("utf-8", "replace"), parser=parser)
    except (etree.XMLSyntaxError, ValueError) as exc:
        logger.debug("unreadable feed %s: %s", url, exc)
        return None
    if root is None or _local(root) not in ("rss", "feed", "rdf"):
        return None
    channel = _child(root, "channel") if _local(root) != "feed" else root
    channel = root if channel is None else channel
    title = _child_text(channel, "title")
    description = _child_text(channel, "description", "subtitle")
    links: dict[str, Link] = {}
    summaries: list[str] = []
    for item in root.iter():
        if _local(item) not in ("item", "entry"):
            continue
        raw = _item_link(item)
        href = canonicalize(raw, url) if raw else None
        if href is None or href in links:
            continue
        item_title = _child_text(item, "title")
        summary = _child_text(item, "description", "summary", "content")
        summaries.append(f"{item_title}\n{summary}".strip())
        links[href] = Link(url=href, anchor=item_title, context=summary[:_CONTEXT_CHARS])
    body = "\n".join(summaries)
    digest, near = fingerprints(body)
    return Page(
        url=url,
        final_url=url,
        status=status,
        title=title,
        description=description,
        text=body,
        links=list(links.values()),
        content_hash=digest,
        simhash=near,
        is_feed=True,
        kind="hub",
        kind_evidence=["feed"],
    )
