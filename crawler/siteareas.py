"""Where on a site a page lives, and how close that is to where a topic's pages live.

A fine topic (足球 inside 体育, football inside sport) is told apart from its siblings by
contrasting its pages with their *neighbours* — other pages of the same section — not with the
whole site: against the whole site a model learns "sport", against the sports section it has to
learn "football". Sites say which pages are neighbours in two ways that do not depend on any one
site's templates:

* the **section in the title** — the part after the headline (``…_体育_新浪网``,
  ``… | Sport | The Herald``), shared by the pages of one channel;
* **co-citation** — the pages one page links to (a channel's list, an article's "related" box)
  are usually of one area; a page linked from pages whose links lead to the topic's pages is
  near the topic.

``SiteAreas`` records both as pages are observed. ``affinity(positives)`` gives each recorded
item a number in [0, 1]: how densely its section and the pages that cite it (and that it cites)
lead to the positives, relative to how densely they do for the positives themselves (1 = as
close to the topic as a typical positive, 0 = in a part of the site without any). A signal the
site does not give (no title sections, no links between items) counts as 1 for every page, so
the affinity is then neutral.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from typing import TypeVar

K = TypeVar("K")

__all__ = ["SiteAreas"]


class SiteAreas:
    """Title sections and out-links of the pages seen in a visit (URLs interned as ints)."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._section: dict[int, str] = {}
        self._out: dict[int, tuple[int, ...]] = {}

    def _id(self, url: str) -> int:
        return self._ids.setdefault(url, len(self._ids))

    def observe(self, url: str, links: Iterable[str], section: str | None = None) -> None:
        """Record a fetched page (item or hub): its out-links, and an item's title section."""
        me = self._id(url)
        self._out[me] = tuple({self._id(u) for u in links if u != url})
        if section is not None:
            self._section[me] = section

    def section_of(self, url: str) -> str:
        i = self._ids.get(url)
        return self._section.get(i, "") if i is not None else ""

    def affinity(self, items: Iterable[str], positives: Collection[str]) -> Affinity:
        """How close each page is to the positives' part of the site (module doc)."""
        item_ids = {self._id(u) for u in items}
        pos_ids = {self._ids[u] for u in positives if u in self._ids}
        by_section = self._section_density(item_ids, pos_ids)
        cited = self._citation_density(item_ids, pos_ids)
        sec_ref = [by_section.get(self._section.get(i, ""), 0.0) for i in pos_ids]
        cite_ref = [cited.get(i, 0.0) for i in pos_ids]
        return Affinity(
            self,
            _relative(by_section, sec_ref),
            _relative(cited, cite_ref),
        )

    def _section_density(self, items: set[int], positives: set[int]) -> dict[str, float]:
        total: Counter[str] = Counter()
        pos: Counter[str] = Counter()
        for i in items:
            s = self._section.get(i, "")
            if s:
                total[s] += 1
                if i in positives:
                    pos[s] += 1
        return {s: pos[s] / n for s, n in total.items()}

    def _citation_density(self, items: set[int], positives: set[int]) -> dict[int, float]:
        """Per linked page (fetched or not): the share of positives among the items linked
        from the pages that link to it (and, for an item, among the items it links to)."""
        num: dict[int, float] = {}
        den: dict[int, float] = {}
        for page, out in self._out.items():
            n_items = sum(1 for j in out if j in items)
            if not n_items:
                continue
            n_pos = sum(1 for j in out if j in positives)
            for j in out:
                # a page does not vouch for itself
                num[j] = num.get(j, 0.0) + n_pos - (j in positives)
                den[j] = den.get(j, 0.0) + n_items - (j in items)
            if page in items:
                num[page] = num.get(page, 0.0) + n_pos
                den[page] = den.get(page, 0.0) + n_items
        return {j: num[j] / den[j] for j in num if den[j] > 0}


def _relative(raw: dict[K, float], ref_values: list[float]) -> dict[K, float] | None:
    """``raw`` over its mean on the positives, capped at 1; None when it tells nothing."""
    ref = sum(ref_values) / len(ref_values) if ref_values else 0.0
    if ref <= 0.0 or len(set(raw.values())) < 2:
        return None
    return {k: min(1.0, v / ref) for k, v in raw.items()}


class Affinity:
    """Closeness to a topic's part of the site, per page (``SiteAreas.affinity``)."""

    def __init__(
        self,
        areas: SiteAreas,
        sections: dict[str, float] | None,
        cited: dict[int, float] | None,
    ) -> None:
        self._areas = areas
        self.sections = sections
        self.cited = cited

    def __call__(self, url: str, section: str | None = None) -> float:
        """The mean of the section's and the citations' closeness; a signal the site does not
        give, or a page it knows nothing about, counts as 1."""
        values = []
        if self.sections is not None:
            s = self._areas.section_of(url) if section is None else section
            values.append(self.sections.get(s, 1.0) if s else 0.0)
        if self.cited is not None:
            i = self._areas._ids.get(url)
            values.append(self.cited.get(i, 0.0) if i is not None else 1.0)
        return sum(values) / len(values) if values else 1.0
