"""Link-priority strategies (docs/algorithms.md §6): which URL the crawler fetches next.

Every strategy is a small class behind one protocol::

    strategy.seed(url) -> ScoredLink                       # how a seed enters the frontier
    strategy.score_links(page, relevance, depth) -> list[ScoredLink]

``score_links`` is called once per fetched page with the page's relevance and its remaining
Fish ``depth`` (None for strategies that do not count depth down); it returns the children to
queue with their priorities. The frontier max-merges them. Parameters have the papers'
defaults and are overridden through ``params`` (``make_strategy(name, profile, params)``).

=================  ============================================================================
``bfs``            constant priority: first in, first out (§6.1).
``fish``           §6.2: relevant page → first a·W children 1, same depth; irrelevant → first W
                   children 0.5, depth − 1; the rest 0; depth ≤ 0 is not expanded.
``fish-kp``        §6.3: as fish with potential = the page's continuous kp sim, relevant = sim > T.
``pagerank``       §6.4: children are queued with the page's R (``linkrank``).
``topic-pagerank`` §6.5: W_PF = γ·R̂ + (1 − γ)·ŝ, windowed and depth-limited as fish.
``ipagerank``      §6.6: PageRank whose out-link shares follow RW(anchor + context).
``statistical``    §6.7: P(C) = Σ wᵢ·R(Eᵢ) over parent cosine, siblings, URL and anchor tokens.
``sections``       §6.8: anchor/context text + parent sim + the learned relevant rate of the
                   link's site section (the default before ``adaptive``).
``adaptive``       §6.9 (default): the expected on-topic item harvest of a link under the
                   judgment (``crawler.steering``).
=================  ============================================================================
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar
from urllib.parse import unquote, urlsplit

from crawler import text as textmod
from crawler.linkrank import LinkGraph, url_key
from crawler.profile import TopicProfile
from crawler.relevance import Relevance, cosine, kp_max, page_vector, topic_vector
from crawler.strategybase import ScoredLink, Strategy, _Base, _unique_links, section_keys
from crawler.types import Link, Page

__all__ = [
    "STRATEGIES",
    "Adaptive",
    "BreadthFirst",
    "FishKP",
    "FishSearch",
    "IPageRank",
    "PageRankStrategy",
    "ScoredLink",
    "Statistical",
    "Steering",
    "Strategy",
    "TopicPageRank",
    "make_strategy",
]


class BreadthFirst(_Base):
    """§6.1: every URL gets the same priority, so the frontier pops in FIFO order."""

    name = "bfs"

    def score_links(self, page: Page, relevance: Relevance, depth: int | None) -> list[ScoredLink]:
        return [ScoredLink(link.url, 1.0, None, link) for link in _unique_links(page)]


class _Windowed(_Base):
    """The Fish family's shape: a window of children gets the potential, the rest 0."""

    defaults: ClassVar[dict[str, Any]] = {"D": 2, "W": 20, "a": 1.5}

    def seed(self, url: str) -> ScoredLink:
        return ScoredLink(url, self.seed_priority(), int(self.params["D"]))

    def seed_priority(self) -> float:
        return 1.0

    def relevant(self, relevance: Relevance) -> bool:
        return relevance.matched

    def potential(self, page: Page, relevance: Relevance, link: Link) -> float:
        raise NotImplementedError

    def score_links(self, page: Page, relevance: Relevance, depth: int | None) -> list[ScoredLink]:
        self.observe(page, relevance)
        if depth is not None and depth <= 0:
            return []
        relevant = self.relevant(relevance)
        width = int(self.params["a"] * self.params["W"]) if relevant else int(self.params["W"])
        child_depth = depth if relevant or depth is None else depth - 1
        out: list[ScoredLink] = []
        floor = float(self.params.get("min_priority", 0.0))
        for i, link in enumerate(_unique_links(page)):
            value = self.potential(page, relevance, link) if i < width else 0.0
            if value >= floor:
                out.append(ScoredLink(link.url, value, child_depth, link))
        return out

    def observe(self, page: Page, relevance: Relevance) -> None:
        """Hook for strategies that keep state about fetched pages."""


class FishSearch(_Windowed):
    """§6.2: binary relevance; potentials 1 / 0.5 / 0."""

    name = "fish"
    relevance_default = "fish"

    def potential(self, page: Page, relevance: Relevance, link: Link) -> float:
        return 1.0 if relevance.matched else 0.5


class FishKP(_Windowed):
    """§6.3: potential = the page's keyword-position sim; relevant = sim > T."""

    name = "fish-kp"

    def seed_priority(self) -> float:
        return kp_max(self.params)

    def relevant(self, relevance: Relevance) -> bool:
        return relevance.score > relevance.threshold

    def potential(self, page: Page, relevance: Relevance, link: Link) -> float:
        return relevance.score


def _graph(params: dict[str, Any]) -> LinkGraph:
    return LinkGraph(
        d=float(params.get("d", 0.85)),
        every=int(params.get("pr_every", 100)),
        every_frac=float(params.get("pr_every_frac", 0.1)),
    )


class PageRankStrategy(_Base):
    """§6.4: children inherit the current page's R (mean-1 PageRank of the crawled graph)."""

    name = "pagerank"
    defaults: ClassVar[dict[str, Any]] = {"d": 0.85, "pr_every": 100, "pr_every_frac": 0.1}

    def __init__(self, profile: TopicProfile, params: dict[str, Any] | None = None) -> None:
        super().__init__(profile, params)
        self.graph = _graph(self.params)

    def seed(self, url: str) -> ScoredLink:
        self.graph.add_seed(url)
        return ScoredLink(url, 1.0, None)

    def score_links(self, page: Page, relevance: Relevance, depth: int | None) -> list[ScoredLink]:
        links = _unique_links(page)
        r = self.graph.add_page(page.url, [link.url for link in links])
        return [ScoredLink(link.url, r, None, link) for link in links]


class TopicPageRank(_Windowed):
    """§6.5: W_PF = γ·R̂ + (1 − γ)·ŝ, γ = 0.8.

    Scales (the thesis mixes them raw; we do not): ŝ is the page's kp sim divided by its
    maximum 1 + w_meta + w_anchor (``sim_norm`` = 1; 0 keeps it raw), blended with the link's
    own anchor/context relevance (SkyReach's extended metadata) with weight ``w_link`` (0.25;
    0 is the thesis formula). R̂ is the page's PageRank on [0, 1], chosen by ``r_norm``:

    * ``sum`` (default): R / number of nodes, the classic probability scale (Σ R̂ = 1). Like
      the thesis's raw R (children of a seed get 1/N_v), it is small next to ŝ, so R mostly
      breaks ties between pages of similar sim — which is how the thesis's topic PageRank
      behaved (its results track keyword-position Fish, not the PageRank crawler);
    * ``max``: R / max R (the best-linked page gets 1);
    * ``mean``: min(1, R) on the mean-1 scale (an average page gets 1).

    With ``max`` or ``mean`` and γ = 0.8, R dominates and the crawl drifts toward popular pages
    (on the synthetic site of ``timelypush bench ranking`` harvest falls from 11.6–17.2 % with
    ``sum`` to 8–12.6 % with ``max``; breadth-first gets 7–7.8 %).
    Children inside the window (a·W if sim > T else W) get W_PF, the rest 0; children below
    ``min_priority`` are dropped (0: none); depth counts down as in Fish.
    """

    name = "topic-pagerank"
    defaults: ClassVar[dict[str, Any]] = {
        **_Windowed.defaults,
        "gamma": 0.8,
        "r_norm": "sum",
        "sim_norm": 1,
        "w_link": 0.25,
        "min_priority": 0.0,
        "d": 0.85,
        "pr_every": 100,
        "pr_every_frac": 0.1,
    }

    def __init__(self, profile: TopicProfile, params: dict[str, Any] | None = None) -> None:
        super().__init__(profile, params)
        self.graph = _graph(self.params)
        self._page: tuple[float, float] = (0.0, 0.0)

    def seed(self, url: str) -> ScoredLink:
        self.graph.add_seed(url)
        return super().seed(url)

    def relevant(self, relevance: Relevance) -> bool:
        return relevance.score > relevance.threshold

    def score_links(self, page: Page, relevance: Relevance, depth: int | None) -> list[ScoredLink]:
        self.graph.add_page(page.url, [link.url for link in _unique_links(page)])
        r_hat = self.graph.normalized(page.url, str(self.params["r_norm"]))
        s_hat = self.page_sim(relevance) if self.params["sim_norm"] else relevance.score
        self._page = (r_hat, s_hat)
        return super().score_links(page, relevance, depth)

    def potential(self, page: Page, relevance: Relevance, link: Link) -> float:
        r_hat, s_hat = self._page
        w_link = float(self.params["w_link"])
        if w_link:
            s_hat = (1.0 - w_link) * s_hat + w_link * self.link_relevance(link)
        gamma = float(self.params["gamma"])
        return gamma * r_hat + (1.0 - gamma) * s_hat


class IPageRank(_Base):
    """§6.6: RW(link) = max weight of a profile term in its anchor + context (≥ c, else 0);
    out-link shares ∝ eps + RW; priority = the child's predicted IPR (mean-1 scale), i.e.
    (1 − d) + d·Σ over fetched parents of IPR(parent)·share. Below ``min_priority``: pruned."""

    name = "ipagerank"
    defaults: ClassVar[dict[str, Any]] = {
        "d": 0.85,
        "c": 0.25,
        "eps": 0.05,
        "min_priority": 0.0,
        "pr_every": 100,
        "pr_every_frac": 0.1,
    }

    def __init__(self, profile: TopicProfile, params: dict[str, Any] | None = None) -> None:
        super().__init__(profile, params)
        self.graph = _graph(self.params)

    def seed(self, url: str) -> ScoredLink:
        self.graph.add_seed(url)
        return ScoredLink(url, 1.0, None)

    def rw(self, link: Link) -> float:
        tokens = textmod.tokenize(f"{link.anchor} {link.context}", self.profile.words)
        best = max((self.profile.weight(t) for t in self.profile.match(tokens)), default=0.0)
        return best if best >= float(self.params["c"]) else 0.0

    def score_links(self, page: Page, relevance: Relevance, depth: int | None) -> list[ScoredLink]:
        links = _unique_links(page)
        eps = float(self.params["eps"])
        weights = [eps + self.rw(link) for link in links]
        self.graph.add_page(page.url, [link.url for link in links], weights)
        floor = float(self.params["min_priority"])
        out = []
        for link in links:
            value = self.graph.rank(link.url)
            if value >= floor:
                out.append(ScoredLink(link.url, value, None, link))
        return out


class Adaptive(_Base):
    """§6.8: learns during the crawl which site sections are relevant, from the page
    scorer's ``matched`` (the default before ``adaptive`` was steered by the judgment; kept
    as ``sections`` for comparison).

    priority = w_link·A + w_page·P + w_section·U, with the weights summing to 1:

    * A — the link's own text (anchor, then surrounding text) against the topic profile
      (``link_relevance``: user keywords 1, learned terms their weight);
    * P — the parent page's kp sim on [0, 1] (topical locality: relevant pages link to
      relevant pages);
    * U — how often fetched pages of the link's *site section* were relevant: the section is
      the host plus the first path segment that names a directory (``sports.example.com``,
      ``example.com/sports``; dates, ids and file names skipped). Shrunk step by step:
      the crawl's overall rate g, then the host's ``(r + m·g) / (n + m)``, then the section's
      the same way towards the host's, with ``m`` = ``prior`` pages — so a section starts at
      its host's rate and earns its place with every page fetched from it.

    Unlike the Fish family there is no window (every child is scored on its own evidence, so
    pagination links far down a list page are not starved) and no depth count; unlike
    PageRank it does not favour well-linked hub pages, which on news sites are the off-topic
    navigation. It reads only what every site has — link text, URLs, the pages already fetched
    — so it does not depend on a site's layout.
    """

    name = "sections"
    defaults: ClassVar[dict[str, Any]] = {
        "w_link": 0.4,
        "w_page": 0.2,
        "w_section": 0.4,
        "prior": 5.0,
    }

    def __init__(self, profile: TopicProfile, params: dict[str, Any] | None = None) -> None:
        super().__init__(profile, params)
        self.sections: dict[str, list[int]] = {}
        """section or host → [relevant fetched, fetched]."""
        self.n_fetched = 0
        self.n_relevant = 0

    def _rate(self, url: str) -> float:
        m = float(self.params["prior"])
        rate = (self.n_relevant + 1) / (self.n_fetched + 2)
        host, section = section_keys(url)
        for key in (host, section) if section != host else (host,):
            relevant, fetched = self.sections.get(key) or (0, 0)
            rate = (relevant + m * rate) / (fetched + m)
        return rate

    def score_links(self, page: Page, relevance: Relevance, depth: int | None) -> list[ScoredLink]:
        self.n_fetched += 1
        self.n_relevant += relevance.matched
        for key in set(section_keys(page.url)):
            counts = self.sections.setdefault(key, [0, 0])
            counts[0] += relevance.matched
            counts[1] += 1
        p = self.params
        base = float(p["w_page"]) * self.page_sim(relevance)
        out = []
        for link in _unique_links(page):
            value = (
                base
                + float(p["w_link"]) * self.link_relevance(link)
                + float(p["w_section"]) * self._rate(link.url)
            )
            out.append(ScoredLink(link.url, round(value, 6), None, link))
        return out


_URL_SPLIT = re.compile(r"[/\-._?=&:#+%,;~]+")
_URL_STOP_TEXT = "http https www com cn net org gov edu html htm shtml php asp aspx jsp cgi index"
_URL_STOP = frozenset(f"{_URL_STOP_TEXT} default main page id".split())


def url_tokens(url: str) -> list[str]:
    """URL tokens for §6.7 R(ut): host + path + query split on ``/ - . _ ? = &``, decoded, with
    scheme and boilerplate (www, com, html, …) and numbers dropped; Chinese parts segmented."""
    parts = urlsplit(url)
    raw = _URL_SPLIT.split(unquote(f"{parts.hostname or ''}/{parts.path}?{parts.query}").lower())
    out: list[str] = []
    for part in raw:
        if not part or part in _URL_STOP or part.isdigit():
            continue
        if part.isascii():
            out.append(part)
        else:
            out.extend(t for t in textmod.tokenize(part) if not textmod.is_stopword(t))
    return out


class Statistical(_Base):
    """§6.7: P(C) = w_up·R(up) + w_us·R(us) + w_ut·R(ut) + w_ua·R(ua), Σ w = 1.

    * R(up) = 1 if the parent page's TF-IDF cosine with the topic ≥ ``delta``;
    * R(us) = 1 if, among the parent's children already fetched, the relevant fraction is at
      least the crawl's global relevant fraction (and at least one sibling was fetched);
    * R(ut) = 1 if the share of URL tokens that are topic terms ≥ ``eps_url``;
    * R(ua) = 1 if the share of anchor tokens that are topic terms ≥ ``eps_anchor``.

    The topic term dictionary is the profile (keywords, synonyms and learned terms). A link is
    kept if P(C) ≥ ``p_min`` (the paper's γ, renamed so it cannot collide with topic
    PageRank's γ in a shared parameter set). Seeds start at 1, ahead of every link (the paper
    starts them at γ). The paper gives no value for γ:
    the default 0 keeps every link, ordered by P(C); 0.25 demands at least one feature.
    """

    name = "statistical"
    defaults: ClassVar[dict[str, Any]] = {
        "w_up": 0.25,
        "w_us": 0.25,
        "w_ut": 0.25,
        "w_ua": 0.25,
        "delta": 0.1,
        "eps_url": 0.1,
        "eps_anchor": 0.1,
        "p_min": 0.0,
    }

    def __init__(self, profile: TopicProfile, params: dict[str, Any] | None = None) -> None:
        super().__init__(profile, params)
        self.relevant: dict[int, bool] = {}
        self.n_relevant = 0
        self._topic: tuple[int, dict[str, float]] | None = None

    def seed(self, url: str) -> ScoredLink:
        return ScoredLink(url, max(float(self.params["p_min"]), 1.0), None)

    def _topic_vector(self) -> dict[str, float]:
        stamp = hash(tuple(sorted(self.profile.learned.items())))
        if self._topic is None or self._topic[0] != stamp:
            self._topic = (stamp, topic_vector(self.profile))
        return self._topic[1]

    def _share(self, tokens: Sequence[str]) -> float:
        tokens = [t for t in tokens if not textmod.is_stopword(t) or self.profile.weight(t)]
        return len(self.profile.match(tokens)) / len(tokens) if tokens else 0.0

    def score_links(self, page: Page, relevance: Relevance, depth: int | None) -> list[ScoredLink]:
        p = self.params
        self.relevant[url_key(page.url)] = relevance.matched
        self.n_relevant += relevance.matched
        if relevance.explanation.get("method") == "vsm":
            parent_cos = relevance.score
        else:
            parent_cos = cosine(self._topic_vector(), page_vector(page, words=self.profile.words))
        r_up = 1.0 if parent_cos >= p["delta"] else 0.0
        links = _unique_links(page)
        fetched = [
            self.relevant[k] for k in (url_key(link.url) for link in links) if k in self.relevant
        ]
        global_ratio = self.n_relevant / len(self.relevant)
        r_us = 1.0 if fetched and sum(fetched) / len(fetched) >= global_ratio > 0 else 0.0
        base = p["w_up"] * r_up + p["w_us"] * r_us
        out = []
        for link in links:
            r_ut = 1.0 if self._share(url_tokens(link.url)) >= p["eps_url"] else 0.0
            anchor = textmod.tokenize(link.anchor, self.profile.words)
            r_ua = 1.0 if self._share(anchor) >= p["eps_anchor"] else 0.0
            value = base + p["w_ut"] * r_ut + p["w_ua"] * r_ua
            if value >= p["p_min"]:
                out.append(ScoredLink(link.url, round(value, 6), None, link))
        return out


# the default strategy lives in its own module and builds on this one's base class
from crawler.steering import Steering  # noqa: E402

STRATEGIES: dict[str, type[_Base]] = {
    cls.name: cls
    for cls in (
        BreadthFirst,
        FishSearch,
        FishKP,
        PageRankStrategy,
        TopicPageRank,
        IPageRank,
        Statistical,
        Steering,
        Adaptive,
    )
}


def make_strategy(
    name: str, profile: TopicProfile, params: dict[str, Any] | None = None
) -> Strategy:
    """Build the strategy called ``name`` for ``profile`` with parameter overrides."""
    try:
        cls = STRATEGIES[name]
    except KeyError:
        raise ValueError(f"unknown strategy {name!r}; choose one of {sorted(STRATEGIES)}") from None
    return cls(profile, params)
