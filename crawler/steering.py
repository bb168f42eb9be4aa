"""The default link strategy (``adaptive``): fetch next the link whose page is most likely an
on-topic *item*, as the concern's judgment sees it.

A link's priority is the expected on-topic item harvest of fetching it::

    priority = K · E_item + (1 − K) · E_hub

* **K** — how likely the link leads to an item rather than a hub: what the crawl has fetched
  under the link's *URL pattern* (the path with numbers and ids blanked: ``/2018/0218/doc-*.shtml``,
  ``/list_#.html``), shrunk towards the URL's shape (``crawler.pagekind.url_item_prior``:
  dates and ids say item, ``list``/``page``/``tag``/the root say hub).
* **E_item** — the expected relevance of the page behind the link:
  ``max(A, w_link·A + w_page·P + w_section·S)`` where

  - **A** is the link's own text (anchor, then its surrounding words at half weight) judged by
    the concern's model like a headline (``Judge.link_probability``): a user's keyword or
    synonym in it counts at once; the model's learned words count once it is warm (on a
    narrow topic, once a first model is fitted), and until then a word naming the subject the
    user's words are filed under ("Sport", 体育 for football: ``crawler.categories``); at
    least what the section its URL names says (``Judge.url_probability``: ``/news/sport/…``
    for "sports"). In a list of headlines the surrounding words are the neighbours'
    headlines, which say what *their* pages are about: a story listed next to a headline
    that says the topic's word is fetched as if it said it too. Two settings, off by
    default, read a list otherwise: ``own_context`` leaves the other links' texts out of the
    surrounding words (``_own_context``), and ``near_links`` counts what the neighbouring
    links' own texts say by their mean (``near_links`` × it, the links within four either
    side: a list whose headlines say the topic is likely the topic's list, a "most read"
    box with one such headline is not). With ``item_links`` 0.5 (below) they raised the
    default's harvest at 1,000 fetches on the coarse topic of two webs whose URLs and titles
    name no section from 0.84 to 0.89–0.90, but the crawls they lead to re-rolled a test of
    what twenty 👎 teach into one where they teach the wrong thing (docs/benchmarks.md, "A
    link's own words": measured, not the default);
  - **P** is what the link's parent page led to (sibling statistics): the mean judged
    probability of the items it linked to that were fetched, each counted by how little its
    own link's text said (1 − A, ``kid_text``: a link whose text said the topic was fetched
    for its text, and what it turned out to be tells little of the parent's links whose text
    says nothing — counted in full, an on-topic story's off-topic links inherited what its
    on-topic links had shown), shrunk towards what was expected of the parent itself — for
    an item, its own probability times **R**, what the items' links have turned out to be
    against their parents' probability so far (Σ the fetched children's probability ÷ Σ
    their parents' probability, counted as in P, over the items whose links were followed;
    at most 1; smoothed towards ``item_links``, 1, which it is until ten such children are
    counted; 0: R is 1): a story's page also links to the site's "most read" and other
    sections' stories, and an on-topic story's links are on its topic less often than the
    story is; for a hub, half its own probability (or its link's text), half what *its*
    parent led to;
  - **S** is the mean judged probability of the items fetched from the link's site section
    and URL pattern, shrunk step by step: the mean over the hosts explored so far (one vote
    per host) → the host → the section (first directory of the path) → the pattern, each by
    ``prior`` pseudo-items; plus ``explore`` / √(1 + the pages fetched from the link's host),
    a bonus for the hosts the crawl has barely tried. Before the model is warm every item
    counts the same (below), and without it the crawl stayed on whichever host it started
    on: in two of four crawls of the English lab web, fetches 100–400 went almost all to the
    seed's mixed-category host, and the sport host found by fetch 70 got 3–8 of them.
* **E_hub** — a hub is worth what it opens: ``D · Y``, where **D** is
  ``hub · max(A, (S + P) / 2, H)`` shrunk towards what the hubs fetched in the link's
  directory, then under its URL pattern, led to — the mean judged probability of the items
  fetched through them, ``hub_yield`` pseudo-items each (``/sport/list_3.html`` after
  ``/sport/`` and ``/sport/list_2.html`` listed football; ``/tech/list_2.html`` after
  ``/tech/`` listed none) — and **Y**
  is the share of fetched hubs that revealed new item links, under the link's URL pattern and
  its section (a calendar, a pagination trap or the "about" pages reveal only more of
  themselves, and their Y decays with every fetch) — a new link that looks like an item
  (``K`` ≥ 0.5), or, while nothing judged tells the site's parts apart, new links of one URL
  shape nothing has been fetched under yet whose ``K`` sum to at least ``open_same`` (1: one
  item expected among them; a list of thirty courses at ``/courses/ses125/``, each by its
  shape more likely a list than a story, is a list of items all the same) — and **H** is
  ``seed_hub`` (0.5) for a hub in a seed's part of the site (its host, under the seed's
  directory: ``/sport/`` for ``/sport/``, the whole host for a host's root), else 0: the
  user pointed at that part, and its lists and pages are where its items are found before
  anything tells the topic's items apart (on a narrow topic, hundreds of fetches).

**Items count at what the judgment says now.** An item is judged when it is fetched, and most
of a visit's items are fetched before the model has learned the site: on a site whose URLs and
titles name no section, the probabilities the crawl counted for its first hundreds of items
ranked on-topic items above the rest little better than chance (0.63–0.65), and every parent
and section statistic above inherited that. After each refit of a warm model the visit's items
are judged again (``Judge.probability_now``) and P, S and the host rates count each at its new
probability (``_recount``).

Hubs are fetched for discovery and never count as harvest. Every ``rescore_every`` fetches
(every tenth of the pages fetched so far, at least 5, early in a visit; and after each refit
of the model) the whole frontier is re-prioritised with what has been
learned since the links were found, so a section learned to be off-topic is abandoned and
anchors that say the model's learned words rise. In between, a link whose URL pattern has
turned out a dead end (every page under it a hub that revealed no new item link: a course's
empty syllabus page) is priced again before it is fetched (``fresh``).

**Fast start.** Before anything is judged, only what the user gave and the seed page shows
count: a keyword or synonym in a navigation label, a headline or the section a URL names (A), a
label or URL naming the subject the keyword belongs to ("Sport and Exercise Science" on a
university's home for "football"; A, less than the keyword itself; ``_subjects``) — from a home
page, and from a part of a site when the user's words name no whole subject (one keyword,
"football": once the seed's section is read, the sports sections of the sites it links lead,
not their politics schools) — an exclude word (A = 0, and the link is kept last), the URL's
shape (K). Until the judgment's model is warm, and while fewer than ``cold_share`` (30 %) of
the items fetched print the user's words, an item counts at least ``cold`` (0.25) in P and S:
without the model only the user's own words can raise a page's probability, and on a narrow
topic given by one keyword most on-topic items never print it — counting them 0 drove the crawl
out of the very section it had to learn from. Where the words are common (a coarse topic) an
item without them is evidence, and counts as judged. For as long as that lasts, S is at least
``seed_item`` (0.5) in the part of a site a seed points into (its directory, or a section's own
host: ``sports.example.com/``; a home page names a whole site, and gets none): the items
counted there at ``cold`` say nothing against it, while a host not yet tried counts the mean of
the hosts (0.5 with none judged) and the bonus for hosts barely tried — from a university
department's page, the crawl spent fetches 24–72 of 150 on every other university's home, staff
and department pages before the department's own courses (docs/benchmarks.md, "The seed's part
of the site while nothing is judged").

**Warm start.** ``state()`` gives the section and pattern statistics learned on this visit
(JSON-able), with what the hubs of each directory and URL pattern led to (D's counts, the
``YIELDS_CAP`` that led to the most items) and R's sums; passed back as
``CrawlConfig.strategy_state`` they are where the next visit of the site starts, discounted
to ``carry`` of their weight so that the new visit's evidence soon dominates. The state
also remembers the items fetched (their URLs' 64-bit keys, the newest ``KNOWN_CAP``): on the
next visit a link to one of them is no harvest, and is worth what it may open, as a hub is
(``E_hub``; at least ``known`` (0.1) of its value as an item). Most of the items in the
sections a warm visit goes back to are the ones it already has; the hubs that list them are
fetched again as before.

Without a judgment (a seed scorer chosen as the push decision) the page's probability is its
normalised seed score and A the profile's heaviest term in the link's text.
"""

from __future__ import annotations

import base64
import functools
import math
import re
import struct
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import parse_qsl, urlsplit

from crawler import text as textmod
from crawler.linkrank import url_key
from crawler.pagekind import ITEM, url_item_prior
from crawler.profile import TopicProfile
from crawler.relevance import Relevance
from crawler.siteareas import site_of
from crawler.strategybase import ScoredLink, _Base, _unique_links, section_keys
from crawler.types import Link, Page

if TYPE_CHECKING:
    from crawler.frontier import Entry, Frontier
    from crawler.judgment import Judge

__all__ = ["KNOWN_CAP", "Steering", "forget_items", "url_pattern"]

STEER_STATE_VERSION = 1
KNOWN_CAP = 10_000
"""Item URLs a site's state remembers across visits, the newest kept (8 bytes each)."""
YIELDS_CAP = 500
"""Hub directories and URL patterns whose yield (D) a site's state remembers, those that led
to the most items kept."""

_ID_RUN = re.compile(r"[a-z0-9]*\d[a-z0-9]*")
_SLUG = re.compile(r"[a-z#*]+(?:[-_][a-z#*]+){2,}")


@functools.lru_cache(maxsize=16384)
def url_pattern(url: str) -> str:
    """A URL with its numbers and ids blanked: pages made by one template share a pattern
    (``news.x.cn/#/#/doc-*.shtml``, ``x.com/sport/list_#.html``)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").removeprefix("www.")

    def blank(match: re.Match[str]) -> str:
        return "#" if len(match.group()) < 6 else "*"

    path = _SLUG.sub("~", _ID_RUN.sub(blank, parts.path.lower()))
    keys = sorted({k.lower() for k, _ in parse_qsl(parts.query, keep_blank_values=True)})
    return host + path + ("?" + "&".join(keys) if keys else "")


class _Stat:
    """What the crawl saw under one key: items, their summed probability, fetches, hubs, and
    hubs that revealed new item links."""

    __slots__ = ("fetched", "hubs", "items", "opened", "p_sum")

    def __init__(self) -> None:
        self.p_sum = 0.0
        self.items = 0.0
        self.fetched = 0.0
        self.hubs = 0.0
        self.opened = 0.0

    def to_list(self) -> list[float]:
        return [round(v, 4) for v in (self.p_sum, self.items, self.fetched, self.hubs, self.opened)]

    @classmethod
    def from_list(cls, values: list[float], carry: float) -> _Stat:
        stat = cls()
        stat.p_sum, stat.items, stat.fetched, stat.hubs, stat.opened = (
            float(v) * carry for v in values[:5]
        )
        return stat


@functools.lru_cache(maxsize=16384)
def _host_path(url: str) -> tuple[str, str]:
    """The URL's host (without ``www.``) and path: every queued link is asked whether it lies
    in a seed's part of the site, again at every re-prioritisation."""
    parts = urlsplit(url)
    return (parts.hostname or "").removeprefix("www."), parts.path


@functools.lru_cache(maxsize=16384)
def _host_dir(url: str) -> tuple[str, str]:
    """The URL's host (without ``www.``) and directory (``/sport/`` for ``/sport/`` and
    ``/sport/list_2.html``)."""
    host, path = _host_path(url)
    return host, path[: path.rfind("/") + 1] or "/"


_HOME_LABELS = ("m", "wap", "mobile")
"""A site's own host for phones: its root is the site's home page too."""


def _seed_area(url: str) -> tuple[str, str, bool]:
    """(host, directory, whether it is a part of a site) of a seed URL. A directory
    (``/sport/``) is a part of its site, and so is the root of a host that is not the site's
    own (``sports.example.com/`` on ``example.com``: a portal's section on a host of its own);
    the root of the site's own host (``example.com/``, ``www.example.com/``, ``m.example.com/``)
    is its home page, which names the whole site."""
    host, directory = _host_dir(url)
    site = site_of(url)
    home = host in (site, *(f"{label}.{site}" for label in _HOME_LABELS))
    return host, directory, directory != "/" or not home


class Steering(_Base):
    """Expected on-topic item harvest per fetch, under the concern's judgment (module doc)."""

    name: ClassVar[str] = "adaptive"
    uses_judgment: ClassVar[bool] = True
    defaults: ClassVar[dict[str, Any]] = {
        "w_link": 0.3,
        "w_page": 0.35,
        "w_section": 0.35,
        "sibling_prior": 3.0,
        "prior": 4.0,
        "kind_prior": 3.0,
        "hub": 0.6,
        "rescore_every": 50,
        "carry": 0.5,
        "fair": 0.3,
        "cold": 0.25,
        "cold_share": 0.3,
        "explore": 0.05,
        "seed_hub": 0.5,
        "seed_item": 0.5,
        "known": 0.1,
        "open_same": 1.0,
        "fresh": 1.0,
        "hub_yield": 4.0,
        "item_links": 1.0,
        "near_links": 0.0,
        "own_context": 0.0,
        "kid_text": 1.0,
        "subject_part": 1.0,
    }

    def __init__(self, profile: TopicProfile, params: dict[str, Any] | None = None) -> None:
        super().__init__(profile, params)
        self.judge: Judge | None = None
        self.stats: dict[str, _Stat] = {}
        self.total = _Stat()
        self.links: dict[str, tuple[float, str]] = {}
        """Queued URL → (A, parent): the link's own text score and the page that linked to it
        (of several, the one whose links turned out best)."""
        self.expect: dict[str, float] = {}
        """Fetched page → what was expected of its links: its own probability for an item."""
        self.kids: dict[str, list[float]] = {}
        """Fetched page → [summed probability, count] of the items it linked to, fetched, each
        weighed by how little its link's text said (``_kid_weight``)."""
        self._since_rescore = 0
        self._cold = [0, 0]
        """Items judged before the model was warm: [those the user's words carry, all]."""
        self._model_mark: object = None
        self._plain: dict[str, float] = {}
        """Queued URL → its A without the words naming the subject the user's words are filed
        under, where they raised it: what A becomes once the model is warm."""
        self._host_rates: dict[str, float] = {}
        """Host → its items' Laplace-smoothed mean probability (hosts with items only)."""
        self._host_sum = 0.0
        self.seed_areas: list[tuple[str, str, bool]] = []
        """(host, directory, whether it is a part of a site) of each seed: the part of the site
        the user pointed at (``_seed_area``)."""
        self.hosts: set[str] = set()
        """The seeds' hosts, which share the budget fairly."""
        self.known: set[int] = set()
        """The URL keys of the items fetched on earlier visits (``load``)."""
        self._items: dict[int, None] = {}
        """Earlier visits' items, then this visit's, oldest first (for ``state``)."""
        self._counted: dict[str, tuple[float, str | None, str, float]] = {}
        """This visit's fetched items: the probability counted for each in the statistics,
        the parent page it was counted under, the page's URL and its weight in the parent's
        statistics (``_kid_weight``; ``_recount``)."""
        self._is_item: dict[str, bool] = {}
        """Fetched page → whether it is an item (as a parent: R for an item, D for a hub)."""
        self.yields: dict[str, list[float]] = {}
        """Hub directory or URL pattern → [summed probability, count] of the items fetched
        through the hubs there (D)."""
        self._links_before = (0.0, 0.0, 0.0)
        """R's sums from earlier visits (``load``): the children's probability, what their
        parents' probability expected, the children."""
        self._item_ratio = 1.0
        """R: what the items' links turned out to be against their parents' probability."""
        self._measure_item_links()

    # -- wiring ---------------------------------------------------------------------------
    def attach(self, judge: Judge | None) -> None:
        """The judgment whose view of relevance steers the crawl (None: the seed scorer)."""
        self.judge = judge

    def state(self) -> dict[str, Any]:
        """What this visit learned about the site, for the next visit (JSON-able)."""
        return {
            "version": STEER_STATE_VERSION,
            "total": self.total.to_list(),
            "stats": {k: v.to_list() for k, v in self.stats.items()},
            "known": _pack(list(self._items)[-KNOWN_CAP:]),
            "yields": {
                k: [round(v[0], 4), round(v[1], 4)]
                for k, v in sorted(self.yields.items(), key=lambda kv: -kv[1][1])[:YIELDS_CAP]
                if v[1]
            },
            "item_links": [round(v, 4) for v in self._item_link_sums()],
        }

    def load(self, state: Mapping[str, Any] | None, *, carry: float | None = None) -> None:
        """Start from an earlier visit's ``state()`` (ignored if from another version), its
        counts weighted by ``carry`` (default: the ``carry`` parameter; 1 to resume a visit)."""
        if not state or state.get("version") != STEER_STATE_VERSION:
            return
        carry = float(self.params["carry"]) if carry is None else carry
        self.total = _Stat.from_list(list(state.get("total", [])), carry)
        self.stats = {
            str(k): _Stat.from_list(list(v), carry) for k, v in dict(state["stats"]).items()
        }
        self._host_rates, self._host_sum = {}, 0.0  # derived from the stats just loaded
        for key, stat in self.stats.items():
            if stat.items and "/" not in key and not key.startswith("~"):
                self._count_host(key)
        self._items = dict.fromkeys(_unpack(str(state.get("known", ""))))
        self.known = set(self._items)
        # what the site's lists and its stories' links led to (D, R); a state saved before
        # they were kept has neither
        self.yields = {
            str(k): [float(v[0]) * carry, float(v[1]) * carry]
            for k, v in dict(state.get("yields") or {}).items()
        }
        sums = [float(v) * carry for v in list(state.get("item_links") or [])[:3]]
        self._links_before = (sums[0], sums[1], sums[2]) if len(sums) == 3 else (0.0, 0.0, 0.0)
        self._measure_item_links()

    # -- evidence -------------------------------------------------------------------------
    @staticmethod
    @functools.lru_cache(maxsize=16384)
    def _keys(url: str) -> tuple[str, ...]:
        """Host, section and URL pattern: the levels the crawl learns about."""
        host, section = section_keys(url)
        pattern = "~" + url_pattern(url)
        return (host, section, pattern) if section != host else (host, pattern)

    def _rate(self, keys: tuple[str, ...]) -> float:
        """S: mean judged probability of the items fetched under the keys, shrunk outwards."""
        m = float(self.params["prior"])
        # an unexplored host is like the average host explored so far (one vote per host: the
        # crawl's own page-weighted rate leans towards where it chose to go)
        rate = (self._host_sum + 0.5) / (len(self._host_rates) + 1.0)
        for key in keys:
            stat = self.stats.get(key)
            if stat is not None and stat.items:
                rate = (stat.p_sum + m * rate) / (stat.items + m)
        # a little optimism for a host the crawl has barely tried: while nothing tells the
        # hosts apart (before the model is warm every item counts the same), the crawl would
        # otherwise stay wherever it happened to start
        host = self.stats.get(keys[0])
        tried = host.fetched if host is not None else 0.0
        return rate + float(self.params["explore"]) / math.sqrt(1.0 + tried)

    def _seeded_rate(self, keys: tuple[str, ...], seeded: bool | None) -> float:
        """S of a link (``seeded``: whether the seed's area it lies in is a part of a site, None
        outside every seed's area; ``_seed_area_of``):
        ``_rate``, and while nothing judged tells the site's parts apart (``_cold_now``), at
        least ``seed_item`` under a seed that points into a site (a directory, or the root of
        a section's own host; not a home page: it names the site, not a part of it)."""
        rate = self._rate(keys)
        if seeded and self._cold_now():
            rate = max(rate, float(self.params["seed_item"]))
        return rate

    def _item_odds(self, url: str, pattern: str) -> float:
        """K: the share of items among pages fetched under the pattern, shrunk to the URL's
        shape."""
        prior = url_item_prior(url)
        stat = self.stats.get(pattern)
        if stat is None or not stat.fetched:
            return prior
        k = float(self.params["kind_prior"])
        return (stat.items + k * prior) / (stat.fetched + k)

    def _opens(self, keys: tuple[str, ...]) -> float:
        """Y: the share of hubs that revealed new item links (Laplace; ``score_links`` says
        which did), under the URL's pattern and under its section, whichever is lower."""
        out = 1.0
        for key in keys[-2:]:
            stat = self.stats.get(key)
            if stat is not None and stat.hubs:
                out = min(out, (stat.opened + 1.0) / (stat.hubs + 1.0))
        return out

    def _link_text(self, link: Link, context: str) -> tuple[float, float]:
        """A: the link's own text, judged like a headline; surrounding words (``context``)
        at half weight; at least what the section its URL names says
        (``Judge.url_probability``) — with the words naming the subject the user's words are
        filed under, and without them (``Judge.names_subjects``)."""
        judge = self.judge
        if judge is None:
            value = self.link_relevance(link)
            return value, value
        both = [
            max(a, u)
            for a, u in zip(
                judge.link_probabilities(link.anchor),
                judge.url_probabilities(link.url),
                strict=True,
            )
        ]
        if context and min(both) < 0.9:
            near = judge.link_probabilities(context)
            both = [a if a >= 0.9 else max(a, 0.5 * c) for a, c in zip(both, near, strict=True)]
        return both[0], both[1]

    def _link_texts(self, links: list[Link]) -> list[tuple[float, float]]:
        """Each link's A (``_link_text``; with ``own_context``, its surrounding words without
        the other links' texts), at least ``near_links`` × the mean of what its neighbours'
        own texts say (the links within ``_NEIGHBOURS`` either side, in the page's order): in
        a list whose headlines say the topic, a headline that does not is likely on it too;
        beside one such headline in a list of others, it is not. (Counted for headlines
        only, a university's list of courses, whose names are short, was crawled worse:
        docs/benchmarks.md, "A link's own words".)"""
        own_context = bool(self.params["own_context"])
        own = [
            self._link_text(link, _own_context(links, i) if own_context else link.context)
            for i, link in enumerate(links)
        ]
        weight = float(self.params["near_links"])
        judge = self.judge
        if judge is None or not weight or len(links) < 2:
            return own
        heads = [judge.link_probabilities(link.anchor) for link in links]
        out = []
        for i, (raised, plain) in enumerate(own):
            around = _neighbours(len(links), i)
            near = [
                weight * (sum(heads[j][k] for j in around) - heads[i][k]) / (len(around) - 1)
                for k in (0, 1)
            ]
            out.append((max(raised, near[0]), max(plain, near[1])))
        return out

    def _excluded(self, link: Link) -> bool:
        if not self.profile.exclude or not link.anchor:
            return False
        return bool(self.profile.excluded_in(textmod.tokenize(link.anchor, self.profile.words)))

    def priority(self, url: str, a: float, parent: float) -> float:
        """The expected on-topic item harvest of fetching ``url`` (module doc); a link whose
        text has an exclude word (``a`` < 0) comes last."""
        if a < 0:
            return 0.0
        p = self.params
        keys = self._keys(url)
        seeded = self._seed_area_of(url)
        rate = self._seeded_rate(keys, seeded)
        item = max(
            a, float(p["w_link"]) * a + float(p["w_page"]) * parent + float(p["w_section"]) * rate
        )
        lead = max(a, 0.5 * (rate + parent))
        if p["seed_hub"] and seeded is not None:
            lead = max(lead, float(p["seed_hub"]))
        hub = self._hub_yield(url, float(p["hub"]) * lead) * self._opens(keys)
        k = self._item_odds(url, keys[-1])
        fair = self._fair(keys[0])
        value = (k * item + (1.0 - k) * hub) * fair
        if self.known and url_key(url) in self.known:
            # an item fetched on an earlier visit is no harvest: it is worth what it may open
            value = max(value * float(p["known"]), hub * fair)
        return round(value, 6)

    def _hub_yield(self, url: str, prior: float) -> float:
        """D: ``prior`` shrunk towards what the hubs fetched in the URL's directory, then
        under its URL pattern, led to (``hub_yield`` pseudo-items each)."""
        m = float(self.params["hub_yield"])
        if not m:
            return prior
        value = prior
        for key in _hub_keys(url):
            got = self.yields.get(key)
            if got is not None and got[1]:
                value = (got[0] + m * value) / (got[1] + m)
        return value

    def _seed_area_of(self, url: str) -> bool | None:
        """Whether the seed's area that ``url`` lies in (its host, under its directory) is a
        part of a site rather than a home page (``_seed_area``); None outside every seed's."""
        host, path = _host_path(url)
        return next(
            (part for h, d, part in self.seed_areas if host == h and path.startswith(d)), None
        )

    def _subjects(self) -> bool:
        """Links are read with the words naming the subject the user's words are filed under
        (``Judge.names_subjects``: "Sport" for football, while the model is cold) when every
        seed is a home page; and from a seed that points into a part of a site (the user's own
        choice of section, which leads while nothing is judged: ``seed_item``, ``seed_hub``)
        when the user's words name no whole subject (``Judge.gives_subject``; with
        ``subject_part``): from a sports section's page the subject's name took a coarse
        topic's crawl to the sports lists of other sites and cost it 0.02–0.06 of its harvest
        at 1,000 fetches, while a one-keyword topic's crawl, once the seed's section was read,
        went on to other universities' politics schools for the model's first words instead of
        their sports schools (eight lab webs, one keyword, harvest at 100 / 500 / 1,000
        fetches, three crawls each: 0.268 / 0.289 / 0.238 → 0.311 / 0.332 / 0.250)."""
        judge = self.judge
        return (
            judge is not None
            and judge.names_subjects
            and (
                not any(part for *_, part in self.seed_areas)
                or (bool(self.params["subject_part"]) and not judge.gives_subject)
            )
        )

    def _cold_now(self) -> bool:
        """Nothing judged yet tells the site's parts apart: the judgment's model is not warm
        and fewer than ``cold_share`` of the items fetched print the user's words."""
        judge = self.judge
        return (
            judge is not None
            and not judge.warm
            and self._cold[0] < float(self.params["cold_share"]) * max(1, self._cold[1])
        )

    def _fair(self, host: str) -> float:
        """A nudge towards the seed hosts that had less than an equal share of the seed hosts'
        fetches so far, so that on a shared frontier their links of equal value alternate
        (hosts reached only through links compete on value alone)."""
        if len(self.hosts) < 2 or host not in self.hosts:
            return 1.0
        counts = {h: (self.stats[h].fetched if h in self.stats else 0.0) for h in self.hosts}
        total = sum(counts.values())
        if not total:
            return 1.0
        share = counts[host] / total
        return 1.0 - float(self.params["fair"]) * (share - 1.0 / len(self.hosts))

    # -- the protocol ---------------------------------------------------------------------
    def seed(self, url: str) -> ScoredLink:
        self.hosts.add(self._keys(url)[0])
        self.seed_areas.append(_seed_area(url))
        return ScoredLink(url, 2.0, None)

    def _probability(self, page: Page, relevance: Relevance) -> float:
        if relevance.probability is not None:
            p = relevance.probability
            if self.judge is not None and not self.judge.warm and page.kind == ITEM:
                # before the model has learned anything only the user's words can raise an
                # item's probability; while few items print them (a narrow topic: most of its
                # pages never do) an item without them is unknown, not off-topic
                self._cold[0] += p >= 0.5
                self._cold[1] += 1
                if self._cold_now():
                    return max(p, float(self.params["cold"]))
            return p
        return self.page_sim(relevance)

    def observe(self, page: Page, probability: float, opened: bool) -> None:
        """Count a fetched page under its host, section and URL pattern."""
        is_item = page.kind == ITEM
        keys = self._keys(page.url)
        for stat in (self.total, *(self.stats.setdefault(k, _Stat()) for k in keys)):
            stat.fetched += 1
            if is_item:
                stat.items += 1
                stat.p_sum += probability
            else:
                stat.hubs += 1
                stat.opened += opened
        if is_item:
            self._count_host(keys[0])
            for u in {page.url, page.final_url or page.url}:
                key = url_key(u)
                self._items.pop(key, None)  # refetched: now among the newest
                self._items[key] = None

    def failed(self, url: str) -> None:
        """A fetch that failed (a dead link, a timeout) is a page that gave nothing: under its
        host, section and URL pattern it counts as fetched, no item, and a hub that opened
        nothing, so the links of a shape that keeps failing wait behind the others (on a
        web of blogs whose posts linked tag pages that did not exist, a visit of 1,000
        fetches spent 454 on them), and the next visit starts knowing it."""
        for stat in (self.total, *(self.stats.setdefault(k, _Stat()) for k in self._keys(url))):
            stat.fetched += 1
            stat.hubs += 1

    def _count_host(self, host: str) -> None:
        stat = self.stats[host]
        rate = (stat.p_sum + 0.5) / (stat.items + 1.0)
        self._host_sum += rate - self._host_rates.get(host, 0.0)
        self._host_rates[host] = rate

    def _sibling(self, parent: str) -> float:
        """P: the judged probability of the items a parent page linked to (its children
        fetched so far), shrunk towards what was expected of the parent itself."""
        expected = self.expect.get(parent, 0.5)
        if self._is_item.get(parent):
            expected *= self._item_ratio
        kids = self.kids.get(parent)
        if kids is None:
            return expected
        m = float(self.params["sibling_prior"])
        return (kids[0] + m * expected) / (kids[1] + m)

    def score_links(self, page: Page, relevance: Relevance, depth: int | None) -> list[ScoredLink]:
        probability = self._probability(page, relevance)
        here = self.links.pop(page.url, None)
        self._is_item[page.url] = page.kind == ITEM
        if page.kind == ITEM:
            self._count_item(page, here, probability)
            expected = probability
        elif here is not None:  # a hub: what its parent's links turned out to be, and its own
            expected = 0.5 * self._sibling(here[1]) + 0.5 * max(probability, here[0])
        else:
            expected = max(probability, 0.5)
        self.expect[page.url] = expected
        out = []
        opened = False
        # URL pattern nothing has been fetched under → the summed item odds of the new links
        # of that shape (``open_same``, while nothing judged tells the site's parts apart)
        unseen: dict[str, float] = {}
        open_same = float(self.params["open_same"]) if self._cold_now() else 0.0
        links = _unique_links(page)
        subjects = self._subjects()
        texts = self._link_texts(links)
        for i, link in enumerate(links):
            raised, plain = (-1.0, -1.0) if self._excluded(link) else texts[i]
            a = raised if subjects else plain
            parent = page.url
            if link.url in self.links:
                old_a, old_parent = self.links[link.url]
                old_plain = self._plain.get(link.url, old_a)
                a = _merged(a, old_a)
                plain = _merged(plain, old_plain)
                if self._sibling(old_parent) > expected:
                    parent = old_parent
            elif not opened:
                pattern = self._keys(link.url)[-1]
                odds = self._item_odds(link.url, pattern)
                stat = self.stats.get(pattern)
                if stat is None or not stat.fetched:
                    unseen[pattern] = unseen.get(pattern, 0.0) + odds
                opened = odds >= 0.5 or 0 < open_same <= unseen.get(pattern, 0.0)
            if plain != a:
                self._plain[link.url] = plain
            else:
                self._plain.pop(link.url, None)
            self.links[link.url] = (a, parent)
            value = self.priority(link.url, a, self._sibling(parent))
            out.append(ScoredLink(link.url, value, None, link))
        self.observe(page, probability, opened)
        self._since_rescore += 1
        return out

    def _count_item(self, page: Page, here: tuple[float, str] | None, probability: float) -> None:
        """A fetched item in the statistics of the page that linked to it (``here``: its
        link's A and that page), and what ``_recount`` corrects: this probability, under the
        parent it was counted for (a page fetched again keeps the parent it was first counted
        under) and at its weight there."""
        key = page.final_url or page.url
        if here is None:
            _, parent, _, weight = self._counted.get(key, (0.0, None, "", 1.0))
        else:
            parent = here[1]
            if self._is_item.get(parent) is False:  # fetched through a hub
                self._count_yield(parent, probability)
            weight = self._kid_weight(here[0])
            kids = self.kids.setdefault(parent, [0.0, 0.0])
            kids[0] += weight * probability
            kids[1] += weight
        self._counted[key] = (probability, parent, page.url, weight)

    def _kid_weight(self, a: float) -> float:
        """How much an item counts in its parent's sibling statistics (P, R), by its link's
        own text score ``a``: a link whose text said the topic was fetched for that, and what it
        turned out to be says little of the parent's other links, whose text says less (with
        ``kid_text`` 0: every item counts 1)."""
        k = float(self.params["kid_text"])
        return 1.0 - k * min(1.0, max(0.0, a)) if k else 1.0

    def _count_yield(self, hub: str, probability: float, items: int = 1) -> None:
        """An item fetched through ``hub``, counted in its directory's and pattern's D (with
        ``items`` 0: an item counted there before, at a changed probability)."""
        for key in _hub_keys(hub):
            got = self.yields.setdefault(key, [0.0, 0.0])
            got[0] += probability
            got[1] += items

    def _item_link_sums(self) -> tuple[float, float, float]:
        """(Σ the probability of the items fetched through items, Σ what those parents'
        probability expected of them, how many), earlier visits' (``load``) included."""
        got, expected, children = self._links_before
        for parent, kids in self.kids.items():
            if kids[1] and self._is_item.get(parent):
                got += kids[0]
                expected += kids[1] * self.expect.get(parent, 0.5)
                children += kids[1]
        return got, expected, children

    def _measure_item_links(self) -> None:
        """R: Σ the probability of the items fetched through items ÷ Σ those parents'
        probability, smoothed towards ``item_links`` by five pseudo-children and at most 1
        (from 10 children on; ``item_links`` itself before; 0: R stays 1)."""
        prior = float(self.params["item_links"])
        if not prior:
            self._item_ratio = 1.0
            return
        got, expected, children = self._item_link_sums()
        self._item_ratio = (
            min(1.0, (got + 5.0 * prior) / (expected + 5.0)) if children >= 10 else prior
        )

    def rescore(self, frontier: Frontier) -> None:
        """Re-prioritise the queue with what was learned since (every ``rescore_every`` pages,
        and after the judgment's model changed)."""
        mark = self.judge.model if self.judge is not None else None
        changed = mark is not self._model_mark
        # often while the queue is small and every page teaches much, then every
        # ``rescore_every`` pages (the cost is one pass over the queue)
        every = min(int(self.params["rescore_every"]), max(5, int(self.total.fetched) // 10))
        if not changed and self._since_rescore < every:
            return
        self._model_mark = mark
        self._since_rescore = 0
        if changed:
            self._recount()
        self._measure_item_links()
        links = self.links
        subjects = self._subjects()
        if self._plain and self.judge is not None and self.judge.warm:
            # the model has learned the topic's own words: a link the subject's name alone
            # raised ("Sport" for football) is worth what the rest of it says
            for url, plain in self._plain.items():
                if url in links:
                    links[url] = (plain, links[url][1])
            self._plain.clear()

        def again(entry: Entry) -> float:
            a, parent = links.get(entry.url, (0.0, ""))
            if changed and self.judge is not None and entry.anchor and a >= 0:
                a = max(a, self.judge.link_probability(entry.anchor, subject=subjects))
                links[entry.url] = (a, parent)
            return self.priority(entry.url, a, self._sibling(parent))

        frontier.reprioritize(again)

    def fresh(self, entry: Entry) -> float:
        """A queued link's priority as it stands now where its URL pattern has turned out a
        dead end (every page fetched under it a hub that revealed no new item link), else as
        it was queued: the frontier asks before it hands the link out, and queues it again
        if it has fallen (``Frontier.pop``). The whole queue is re-prioritised only every so
        many pages; in between, the links queued on an older view were fetched one after
        another on it — on a university's site, thirty links to courses' syllabus and grades
        pages in a row, each page empty, when the first two had shown what that URL pattern
        holds. Only there: asked of every link, the statistics of a one-keyword topic's
        first items (which the judgment did not yet know as the topic's) drew its crawl out
        of the sections it had to learn from (an academic web, two fetches at a time, harvest
        0.24 → 0.20 over four webs)."""
        link = self.links.get(entry.url) if self.params["fresh"] else None
        if link is None:  # a seed, or a link queued before a restart: as it was queued
            return entry.priority
        stat = self.stats.get(self._keys(entry.url)[-1])
        if stat is None or stat.items or stat.opened:
            return entry.priority
        a, parent = link
        return self.priority(entry.url, a, self._sibling(parent))

    def _recount(self) -> None:
        """Count each item this visit fetched at the probability the judgment gives it now
        (``Judge.probability_now``), in its parent's, host's, section's and pattern's
        statistics: an item judged before the model had learned the site (early in a visit,
        most of them) would otherwise keep that first guess in everything the crawl learns
        from it. Only once the model is warm: before, an item's first guess is all there is
        (and ``cold`` keeps the unknown ones from counting as off-topic)."""
        judge = self.judge
        if judge is None or not judge.warm:
            return
        hosts: set[str] = set()
        for url, (old, parent, fetched, weight) in self._counted.items():
            new = judge.probability_now(url)
            if new is None or abs(new - old) < 1e-6:
                continue
            delta = new - old
            self._counted[url] = (new, parent, fetched, weight)
            if parent is not None and parent in self.kids:
                self.kids[parent][0] += weight * delta
            if parent is not None and self._is_item.get(parent) is False:
                self._count_yield(parent, delta, 0)
            if fetched in self.expect:
                self.expect[fetched] = new
            keys = self._keys(fetched)
            self.total.p_sum += delta
            for key in keys:
                stat = self.stats.get(key)
                if stat is not None:
                    stat.p_sum += delta
            hosts.add(keys[0])
        for host in hosts:
            self._count_host(host)


@functools.lru_cache(maxsize=16384)
def _hub_keys(url: str) -> tuple[str, str]:
    """A hub's directory (``x.com/sport/`` for ``/sport/`` and ``/sport/list_2.html``) and
    URL pattern: where D is counted."""
    host, directory = _host_dir(url)
    return host + directory, "~" + url_pattern(url)


def _own_context(links: list[Link], i: int) -> str:
    """The words around ``links[i]`` that are not another link's text: in a list of
    headlines the text around a link is its neighbours' headlines, which say what *their*
    pages are about (a finance story listed under a headline that says 足球 was fetched as if
    it were about football). The neighbours within ``_NEIGHBOURS`` links either side, in the
    page's order, are the ones its context can hold."""
    link = links[i]
    context = link.context
    if not context or context == link.anchor:
        return context
    for j in _neighbours(len(links), i):
        other = links[j].anchor
        if j != i and other and other != link.anchor and other in context:
            context = context.replace(other, " ")
    return context


def _neighbours(n: int, i: int) -> range:
    """The positions within ``_NEIGHBOURS`` of ``i`` in a page's ``n`` links, ``i`` included."""
    return range(max(0, i - _NEIGHBOURS), min(n, i + _NEIGHBOURS + 1))


_NEIGHBOURS = 4


def _merged(a: float, b: float) -> float:
    """Two sightings of a link's A as one: an exclude word (< 0) in either wins, else the
    higher."""
    return min(a, b) if min(a, b) < 0 else max(a, b)


def _pack(keys: list[int]) -> str:
    """URL keys as one base64 string (8 bytes each, little-endian)."""
    return base64.b64encode(struct.pack(f"<{len(keys)}q", *keys)).decode("ascii")


def _unpack(text: str) -> list[int]:
    """``_pack``'s keys back; an unreadable string is no keys."""
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        return []
    return list(struct.unpack(f"<{len(raw) // 8}q", raw[: len(raw) // 8 * 8]))


def forget_items(state: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """An earlier visit's ``Steering.state()`` without the items it remembers: for a visit
    that reads the site as new (a concern's first, whose items every page is new to)."""
    if state is None:
        return None
    return {k: v for k, v in state.items() if k != "known"}
