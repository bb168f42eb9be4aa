"""What a message shows of a page: its headline without the site's name, and a summary that
does not repeat the headline.

Page titles usually carry the site: ``国足世预赛名单公布_体育_门户新闻``, ``Cup final tonight |
Sports | Daily Site``. :func:`clean_title` drops that suffix by one of two rules:

* **the site's own repetition** — given other titles of the same site, trailing segments
  (after a separator) that recur across them are the site's name and section; they go;
* **a conservative separator rule** otherwise — after a clear separator (`` | ``, `` - ``,
  `` — ``, ``_``, ``｜`` …), up to three short trailing segments go, and only when the headline
  left is itself long enough to stand alone.

The raw title stays in the database (search uses it); this is for display only.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

__all__ = ["clean_title", "site_suffixes", "summary"]

# a separator: a bar, underscore or full-width bar with any spacing, or a dash / dot / colon
# pair with spaces on both sides (so "Covid-19" and "3:0" stay whole)
_SEP = re.compile(r"(\s*[|｜_]\s*|\s+[-–—·:•»]\s+|\s*[–—]{1,2}\s*(?=\S))")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=[.])\s")

MAX_SUFFIX_PARTS = 3
MAX_SUFFIX_CHARS = 30
MIN_HEADLINE = 16
"""Widths in Latin characters (a CJK character counts two): 16 = eight Chinese characters."""


def _split(title: str) -> list[str]:
    """``[segment, separator, segment, …]`` (always odd length)."""
    return _SEP.split(title.strip())


def _weight(text: str) -> int:
    """Display width in "characters": a CJK character counts as two Latin ones."""
    return len(text) + len(_CJK.findall(text))


def _key(segment: str) -> str:
    return " ".join(segment.split()).casefold()


def site_suffixes(titles: Iterable[str]) -> frozenset[str]:
    """Trailing segments that recur across the titles of one site (normalised)."""
    counts: Counter[str] = Counter()
    for title in titles:
        parts = _split(title)[::2]
        tail = set()
        for segment in parts[1:][-MAX_SUFFIX_PARTS:]:
            if segment.strip():
                tail.add(_key(segment))
        counts.update(tail)
    return frozenset(k for k, n in counts.items() if n >= 2)


def clean_title(title: str, suffixes: Iterable[str] = ()) -> str:
    """``title`` without the site's suffix (see the module docstring); never empty."""
    title = " ".join((title or "").split())
    pieces = _split(title)
    if len(pieces) < 3:
        return title
    known = frozenset(suffixes)
    kept = list(pieces)
    if known:
        while len(kept) >= 3 and _key(kept[-1]) in known:
            del kept[-2:]
        if len(kept) < len(pieces):
            return "".join(kept).strip() or title
    # conservative: the most short trailing segments (up to three) whose removal leaves a
    # headline long enough to stand alone
    best = title
    head_end = len(pieces)
    for _ in range(MAX_SUFFIX_PARTS):
        if head_end < 3 or _weight(pieces[head_end - 1].strip()) > MAX_SUFFIX_CHARS:
            break
        head_end -= 2
        head = "".join(pieces[:head_end]).strip()
        if _weight(head) < MIN_HEADLINE:
            break
        best = head
    return best


def summary(text: str, title: str = "", limit: int = 200, *, headline: str = "") -> str:
    """A page's description or opening text, shown under its title: without the title
    repeated at its start, cut after the last whole sentence that fits in ``limit``
    characters (or at ``limit`` with an ellipsis). ``headline`` is the title as shown, when
    the site's suffixes made it shorter than :func:`clean_title` alone would."""
    text = " ".join((text or "").split())
    heads = [" ".join(title.split()), headline, clean_title(title)]
    heads = [h for h in heads if h]
    if _key(text) in {_key(h) for h in heads}:
        return ""
    for head in heads:  # the full title first, then the headline alone
        if head and text.casefold().startswith(head.casefold()):
            text = text[len(head) :].lstrip(" |｜_-–—:：,，。.")
            break
    if len(text) <= limit:
        return text
    cut = text[:limit]
    ends = [m.end() for m in _SENTENCE_END.finditer(cut)]
    if ends and ends[-1] >= limit // 3:
        return cut[: ends[-1]].strip()
    return cut[: max(0, limit - 1)].rstrip() + "…"
