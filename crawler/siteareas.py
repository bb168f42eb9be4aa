"""Where on a site a page lives, and how close that is to where a topic's pages live.

A fine topic (足球 inside 体育, football inside sport) is told apart from its siblings by
contrasting its pages with their *neighbours* — other pages of the same section — not with the
whole site: against the whole site a model learns "sport", against the sports section it has to
learn "football". Sites say which pages are neighbours in two ways that do not depend on any one
site's templates:

* the **section in the title** — the part after the headline (``…_体育_新浪网``,
  ``… | Sport | The Herald``), shared by the pages of one channel, or where a title names
  none, the section the page says it is filed under (its breadcrumb, its kicker: ``filed:
  …``, given by the judgment); on a site whose titles name no sections (the headline
  alone, or the headline and the site's name, the same on every page), the **section in the
  URL** stands in for it: the host and the first two
  directories (``sports.example.com/``, ``example.com/news/sport``), a bare host counting
  only when its site spreads over several hosts;
* **co-citation** — the pages one page links to (a channel's list, an article's "related" box)
  are usually of one area; a page linked from pages whose links lead to the topic's pages is
  near the topic.

With ``walk`` (the judgment's ``area_walk``, 0.3 by default), the links' closeness is a
personalized PageRank from the positives instead of co-citation: it also reaches the pages a
link or two further (docs/benchmarks.md, "A walk over the links instead of co-citation", and
"The walk over the links by default"). A later visit walks from the positives it fetched
itself, whose own links it saw, when it has a few; an earlier visit's positive, known only as
a link on a page this one fetched, starts a walk only when it has not (docs/benchmarks.md, "A
later visit walks from the positives it fetched").

``SiteAreas`` records both as pages are observed. ``affinity(positives)`` gives each recorded
item a number in [0, 1]: how densely its section and the pages that cite it (and that it cites)
lead to the positives, relative to how densely they do for the positives themselves (1 = as
close to the topic as a typical positive, 0 = in a part of the site without any). A signal the
site does not give (no title sections, no links between items) counts as 1 for every page, so
the affinity is then neutral.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Collection, Iterable
from typing import TypeVar

import numpy as np

from crawler.linkrank import pagerank
from crawler.urls import directories, host_site

K = TypeVar("K")

__all__ = ["SiteAreas"]


class SiteAreas:
    """Title sections and out-links of the pages seen in a visit (URLs interned as ints)."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._section: dict[int, str] = {}
        self._out: dict[int, tuple[int, ...]] = {}
        self._site_pages: Counter[str] = Counter()
        """Observed pages per site."""
        self._cited: Counter[tuple[str, int]] = Counter()
        """(site, linked page) → how many of the site's observed pages link to it."""
        self._template: set[int] | None = None
        """``_template_links`` of the pages observed so far (None: to be found again)."""

    def _id(self, url: str) -> int:
        return self._ids.setdefault(url, len(self._ids))

    def observe(self, url: str, links: Iterable[str], section: str | None = None) -> None:
        """Record a fetched page (item or hub): its out-links, and an item's title section."""
        me = self._id(url)
        out = tuple({self._id(u) for u in links if u != url})
        site = site_of(url)
        before = self._out.get(me)
        if before is None:
            self._site_pages[site] += 1
        else:  # observed again: its links then are replaced
            self._cited.subtract((site, j) for j in before)
        self._cited.update((site, j) for j in out)
        self._out[me] = out
        self._template = None
        if section is not None:
            self._section[me] = section

    def section_of(self, url: str) -> str:
        i = self._ids.get(url)
        return self._section.get(i, "") if i is not None else ""

    def affinity(
        self, items: Iterable[str], positives: Collection[str], *, walk: float = 0.0
    ) -> Affinity:
        """How close each page is to the positives' part of the site (module doc); with
        ``walk`` (a link-following probability in (0, 1)), the links' closeness is the walk's
        (``_walk_closeness``) instead of co-citation."""
        items = list(items)
        item_ids = {self._id(u) for u in items}
        pos_ids = {self._ids[u] for u in positives if u in self._ids}
        where, titled = self._sections({u: self._ids[u] for u in items})
        by_section = _density(where, item_ids, pos_ids)
        sections = _relative(
            by_section, [by_section.get(where[i], 0.0) for i in pos_ids if i in where]
        )
        if walk:
            # from the positives whose own links this visit saw, when it fetched
            # ``_OWN_SEEDS`` of them: a positive known only by a link (an earlier visit's)
            # hands its whole walk to the pages that list it, and a list of every section's
            # stories (a home page, "latest") that lists a few of them made each story it
            # lists as close as they are (a later visit's car, game and crime stories, pushed
            # for a sport topic); a visit that fetched fewer starts from all it links to
            seeds = {i for i in pos_ids if i in self._out}
            cited = self._walk_closeness(item_ids, seeds, walk) if len(seeds) >= _OWN_SEEDS else {}
            # measured against the positives the walk reaches (counting the ones no page of
            # the visit links to as 0 made the typical positive's closeness a small number,
            # and every page a link path joins to a positive, as close as one)
            reference = [cited[i] for i in seeds if i in cited]
            if len(reference) < _OWN_SEEDS:
                cited = self._walk_closeness(item_ids, pos_ids, walk)
                reference = [cited[i] for i in pos_ids if i in cited]
        else:
            cited = self._citation_density(item_ids, pos_ids)
            reference = [cited.get(i, 0.0) for i in pos_ids]
        return Affinity(self, sections, _relative(cited, reference), titled)

    def _sections(self, items: dict[str, int]) -> tuple[dict[int, str], frozenset[str]]:
        """Each item's section (absent: its site names none), and the sites whose titles
        name sections. A site's titles name sections when two or more are each shared by
        ``_SHARED`` of its items (a title suffix that is only the site's name is the same on
        every page; a headline that holds a separator itself, ``传统武术_梅花桩``, makes a
        "section" of one page) and those items are at least ``_TITLED`` of the site's; the
        other sites' URLs may (``url_section``; a bare host only when the site spreads over
        several hosts)."""
        named: dict[str, Counter[str]] = {}
        per_site: Counter[str] = Counter()
        for url, i in items.items():
            section = self._section.get(i, "")
            site = site_of(url)
            per_site[site] += 1
            if section:
                named.setdefault(site, Counter())[section] += 1
        titled = frozenset(
            site
            for site, found in named.items()
            if sum(1 for n in found.values() if n >= _SHARED) > 1
            and sum(n for n in found.values() if n >= _SHARED) >= _TITLED * per_site[site]
        )
        where: dict[int, str] = {}
        by_url: dict[str, int] = {}
        for url, i in items.items():
            if site_of(url) in titled:
                where[i] = self._section.get(i, "")
            else:
                by_url[url] = i
        where.update(_url_sections(by_url))
        return where, titled

    def _citation_density(self, items: set[int], positives: set[int]) -> dict[int, float]:
        """Per linked page (fetched or not): the share of positives among the items linked
        from the pages that link to it (and, for an item, among the items it links to); the
        site's template links (``_template_links``) left out."""
        num: dict[int, float] = {}
        den: dict[int, float] = {}
        template = self._template_links()
        for page, links in self._out.items():
            out = tuple(j for j in links if j not in template) if template else links
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

    def _walk_closeness(
        self, items: set[int], positives: set[int], follow: float
    ) -> dict[int, float]:
        """Per item: its personalized PageRank from the positives over the links between the
        fetched pages and from them to the items, both ways, the template links left out — a
        walk that follows a link with probability ``follow`` and otherwise starts again at a
        positive (seen from a page: how many short link paths join it to the positives). A
        page no link joins to another is no node. A positive's own restart is taken from its
        value (a page does not vouch for itself). ``follow`` is held to [0, 0.95]: a walk that
        never starts again would not say how near the positives a page is."""
        follow = min(max(follow, 0.0), 0.95)
        template = self._template_links()
        fetched = self._out
        index = {page: k for k, page in enumerate(fetched)}
        known = items | positives
        src: list[int] = []
        dst: list[int] = []
        for page, links in fetched.items():
            if page in template:
                continue
            a = index[page]
            for j in links:
                if j in template:
                    continue
                b = index.get(j)
                if b is None:
                    if j not in known:
                        continue
                    # an item this visit links to without fetching it (an earlier visit's
                    # page, which the model still learns from) is a node too: a list page
                    # that links to the last visit's positives is near the topic, as
                    # co-citation counts it
                    b = index[j] = len(index)
                if b != a:
                    src += (a, b)
                    dst += (b, a)
        # a page no link joins to another says nothing about where it lives: it is no node
        # (as a seed, its walk would only come back to it)
        linked = np.zeros(len(index), dtype=bool)
        linked[src] = True
        seeds = [index[i] for i in positives if i in index and linked[index[i]]]
        if not seeds:
            return {}
        n = len(index)
        restart = np.zeros(n)
        restart[seeds] = n / len(seeds)
        rank, _ = pagerank(
            n,
            np.asarray(src, dtype=np.int64),
            np.asarray(dst, dtype=np.int64),
            d=follow,
            restart=restart,
            start=restart,
            max_iter=30,
        )
        rank -= (1.0 - follow) * restart
        return {page: float(rank[k]) for page, k in index.items() if page in items and linked[k]}

    def _template_links(self) -> set[int]:
        """The pages that most of one site's fetched pages link to (``_TEMPLATE_SHARE``): a
        site-wide "most read" box, a footer. Every page of the site cites them whatever its
        own area, so they say nothing about it. Counted as pages are observed, and found once
        per set of observed pages: a visit's model is refitted as it grows, and each fit of a
        refit (self-training's rounds) asks."""
        if self._template is None:
            pages = self._site_pages
            self._template = {
                j
                for (site, j), n in self._cited.items()
                if n >= _TEMPLATE_MIN and n >= _TEMPLATE_SHARE * pages[site]
            }
        return self._template


_TEMPLATE_SHARE = 0.5
"""A page linked from this share of one site's fetched pages is part of the site's template.
The share barely matters: on the lab webs the "most read" boxes are on every page and every
other link on under 30 % of a site's pages (0.3, 0.5 and 0.7 judge every page alike)."""
_TEMPLATE_MIN = 5
"""…and from at least this many (a visit's first few pages do not make a template)."""
_OWN_SEEDS = 4
"""The walk starts from the positives a visit fetched itself when there are this many (it
reaches them: ``SiteAreas.affinity``)."""
_SHARED = 3
"""Items that must share a title section for it to count as one of the site's sections."""
_TITLED = 0.5
"""The share of a site's items whose titles must name one of its sections for its titles to
name its sections: on a site where only one kind of page does (a university's project pages,
``… | Sport and Exercise Science``, beside course and lecture pages that name none) the rest
would all count as far from every section."""
_URL = "url:"
"""Prefix of a section named by a URL (a title's section has none)."""


@functools.lru_cache(maxsize=65536)
def site_of(url: str) -> str:
    """The site (registrable domain) of a URL."""
    return host_site(directories(url)[0])


@functools.lru_cache(maxsize=65536)
def url_section(url: str) -> str:
    """The site section a URL names: its host and first two directories
    (``sports.example.com/``, ``example.com/news/sport``; ``crawler.urls.directories``)."""
    host, dirs = directories(url)
    return f"{host}/{'/'.join(dirs[:2])}"


def _url_sections(items: dict[str, int]) -> dict[int, str]:
    """Each item's ``url_section``, where it names one: a bare host names a section only when
    its site spreads its pages over several hosts (sports.example.com beside
    news.example.com); one host whose URLs name no directory is one site, not a section."""
    where = {i: url_section(u) for u, i in items.items()}
    hosts: dict[str, set[str]] = {}
    for section in set(where.values()):
        host, _, path = section.partition("/")
        if not path:
            hosts.setdefault(host_site(host), set()).add(host)
    lone = {next(iter(h)) + "/" for h in hosts.values() if len(h) < 2}
    return {i: _URL + s for i, s in where.items() if s not in lone}


def _density(where: dict[int, str], items: set[int], positives: set[int]) -> dict[str, float]:
    """The share of positives among the items of each section (``where``: item → section)."""
    total: Counter[str] = Counter()
    pos: Counter[str] = Counter()
    for i in items:
        s = where.get(i, "")
        if s:
            total[s] += 1
            if i in positives:
                pos[s] += 1
    return {s: pos[s] / n for s, n in total.items()}


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
        titled: frozenset[str] | None = None,
        site_tops: dict[str, float] | None = None,
    ) -> None:
        self._areas = areas
        self.sections = sections
        """Closeness by section: a title's section, or ``url:`` and a URL's section."""
        self.cited = cited
        self.titled = titled
        """The sites whose titles name sections (None: not known, as in a saved state)."""
        self._by_title = any(not key.startswith(_URL) for key in sections or ())
        self.site_tops = site_tops
        """Per site, the closeness of its closest item, kept by the judgment that reads this
        map (``Judge._site_tops``; None: not yet found)."""

    def _section(self, url: str, section: str | None) -> float:
        closeness = self.sections or {}
        if url and (self.titled is None or site_of(url) not in self.titled):
            by_url = closeness.get(_URL + url_section(url))
            if by_url is not None or self.titled is not None:
                # a site whose titles name no section: its URL's, if it names one
                return 1.0 if by_url is None else by_url
        title = self._areas.section_of(url) if section is None else section
        if title:
            return closeness.get(title, 1.0)
        # no section at all: far from the topic where titles name sections, else unknown
        return 0.0 if self._by_title else 1.0

    def __call__(self, url: str, section: str | None = None) -> float:
        """The mean of the section's and the citations' closeness; a signal the site does not
        give, or a page it knows nothing about, counts as 1."""
        values = []
        if self.sections is not None:
            values.append(self._section(url, section))
        if self.cited is not None:
            i = self._areas._ids.get(url)
            values.append(self.cited.get(i, 0.0) if i is not None else 1.0)
        return sum(values) / len(values) if values else 1.0
