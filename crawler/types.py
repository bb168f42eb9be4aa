"""Plain data shared by every crawler layer.

These are the contract between fetch/parse (below) and relevance/strategies/engine (above).
Keep them small, immutable where possible, and free of I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crawler.pagekind import Structure


@dataclass(frozen=True, slots=True)
class Link:
    """An outlink of a page, with SkyReach's "extended metadata"."""

    url: str
    """Absolute, canonical URL (see ``crawler.urls.canonicalize``)."""
    anchor: str = ""
    """The anchor text of the ``<a>`` element, whitespace-collapsed."""
    context: str = ""
    """Nearby text (the enclosing block's text around the anchor), for RW / statistical scoring."""
    nofollow: bool = False

    def __reduce__(self) -> tuple[type[Link], tuple[str, str, str, bool]]:
        # pickled as a call with its fields: a page's links cross from the fetch process, and
        # the pickling dataclasses give a slotted class walks fields() for every link (a
        # page's round trip 72 → 33 µs)
        return (Link, (self.url, self.anchor, self.context, self.nofollow))


@dataclass(slots=True)
class Page:
    """A fetched and parsed HTML page (or feed), ready for scoring."""

    url: str
    """The URL that was requested (canonical)."""
    final_url: str
    """The URL after redirects (canonical)."""
    status: int
    title: str = ""
    meta_keywords: str = ""
    description: str = ""
    canonical_url: str | None = None
    text: str = ""
    """Main text, boilerplate-light."""
    links: list[Link] = field(default_factory=list)
    feeds: list[str] = field(default_factory=list)
    content_hash: str = ""
    """Exact fingerprint of the normalised main text (hex)."""
    simhash: int = 0
    """64-bit near-duplicate fingerprint of the main text."""
    etag: str | None = None
    last_modified: str | None = None
    not_modified: bool = False
    """True when the server answered 304 to a conditional GET."""
    is_feed: bool = False
    elapsed_ms: float = 0.0
    structure: Structure | None = None
    """Structural facts for the page-kind decision (None for feeds and empty pages)."""
    kind: str = "item"
    """``item`` (something a person reads) or ``hub`` (a page of links): ``crawler.pagekind``."""
    kind_evidence: list[str] = field(default_factory=list)
    """What decided ``kind``, strongest first."""
    sections: tuple[str, ...] = ()
    """The sections the page says it is filed under: its breadcrumb's links (体育 of
    网易首页 > 体育 > 正文), ``article:section``, JSON-LD ``articleSection`` (``crawler.parse``)."""
    tokens: object | None = field(default=None, repr=False, compare=False)
    """The page's segmented words once read (``crawler.judgment.page_tokens``)."""
