"""Digest building: matches grouped by concern, newest first, capped, with a "why" line.

Pure data shaping: the caller loads the rows and renders the result with a template.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

__all__ = ["DEFAULT_CAP", "Digest", "DigestGroup", "DigestItem", "build_digest", "shorten", "why"]

DEFAULT_CAP = 50


@dataclass(frozen=True)
class DigestItem:
    """One matched page as shown to the user."""

    match_id: int
    concern_id: int
    concern: str
    title: str
    url: str
    snippet: str
    why: str
    created_at: datetime
    feedback_url: str = ""
    """A signed "not relevant" link (a confirmation page), or empty."""
    feedback_text: str = ""
    """The link's text in the reader's language."""


@dataclass
class DigestGroup:
    """One concern's messages in a digest."""

    concern_id: int
    concern: str
    items: list[DigestItem] = field(default_factory=list)


@dataclass(frozen=True)
class Digest:
    """``groups`` hold the ``shown`` newest items; ``more`` items are left for the dashboard."""

    groups: list[DigestGroup]
    total: int
    shown: int

    @property
    def more(self) -> int:
        return self.total - self.shown

    @property
    def empty(self) -> bool:
        return self.total == 0


def build_digest(items: Iterable[DigestItem], *, cap: int = DEFAULT_CAP) -> Digest:
    """Newest ``cap`` items grouped by concern; the concern with the newest item comes first."""
    ordered = sorted(items, key=lambda i: (i.created_at, i.match_id), reverse=True)
    kept = ordered[: max(0, cap)]
    groups: dict[int, DigestGroup] = {}
    for item in kept:
        group = groups.setdefault(item.concern_id, DigestGroup(item.concern_id, item.concern))
        group.items.append(item)
    return Digest(groups=list(groups.values()), total=len(ordered), shown=len(kept))


def shorten(text: str, limit: int) -> str:
    """Whitespace-collapsed ``text``, cut at ``limit`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def why(keywords: Sequence[str], score: float, lang: str) -> str:
    """The "why it matched" line: the matched keywords and the relevance score."""
    if lang == "zh":
        words = "、".join(keywords) if keywords else "主题相关"
        return f"命中关键词：{words}（相关度 {score:.2f}）"
    words = ", ".join(keywords) if keywords else "on topic"
    return f"Matched: {words} (relevance {score:.2f})"
