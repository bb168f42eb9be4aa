"""The shape of the lab web: portals, channel hosts, pages and the links between them.

Everything here is decided by one ``random.Random(seed)`` walked in a fixed order, so the same
corpus and seed always give the same plan (and so the same bytes on disk).

Structure, modelled on Chinese news portals (../shared/data/html):

- each portal (``lab-sina.test``, ``lab-sohu.test`` …) has a home host ``www.<portal>`` and one
  host per channel (``sports.lab-sina.test``, ``finance.lab-sina.test`` …);
- home → channel front page → paginated roll lists → articles; every page carries the portal's
  navigation bar to all channels and a site-wide "hot" box (noise);
- articles link to related articles (mostly the same category, and for sports mostly the same
  football/non-football side: sibling locality), sometimes to other portals, sometimes to a dead
  URL (404);
- on each portal a football "专题" cluster is linked from no list, no hot box and no related box:
  only from a few off-topic "tunnel" articles (seed 000 §2.3);
- the home pages link each other ("友情链接"), and one portal is served in GBK.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from lab.corpus import CATEGORY_NAMES, Doc
from lab.judge import is_football

PORTALS: tuple[tuple[str, str], ...] = (
    ("lab-sina.test", "新浪网"),
    ("lab-sohu.test", "搜狐"),
    ("lab-163.test", "网易"),
    ("lab-qq.test", "腾讯网"),
    ("lab-ifeng.test", "凤凰网"),
    ("lab-people.test", "人民网"),
    ("lab-huanqiu.test", "环球网"),
    ("lab-xinhua.test", "新华网"),
)
GBK_PORTAL = "lab-sohu.test"
"""The portal served in GBK, with the charset declared only in ``<meta>``."""

HOST_PREFIX = {"game": "games", "culture": "cul", "society": "news", "politics": "politics"}
SPORTS_SHARE = 0.2
"""Share of a portal's articles in its sports channel (sports is a portal's biggest channel)."""
LIST_SIZE = 30
HOT_SIZE = 8
RELATED = 6
TUNNELS_PER_CLUSTER = 2


@dataclass(slots=True)
class PageSpec:
    """One page of the web before rendering."""

    url: str
    host: str
    portal: str
    kind: str
    """home, channel, list, article, special (the 专题 cluster index), static."""
    category: str = ""
    football: bool = False
    title: str = ""
    doc: Doc | None = None
    date: str = ""
    cluster: bool = False
    tunnel: bool = False
    blocks: dict[str, list[str]] = field(default_factory=dict)
    """Link blocks by role (nav, crumb, items, pager, related, hot, cross, special, friends,
    footer, dead) → target URLs, rendered in that order."""


@dataclass(slots=True)
class Portal:
    """One site of the lab web: its domain, name, categories and encoding."""

    domain: str
    name: str
    categories: list[str]
    encoding: str

    @property
    def home(self) -> str:
        return f"http://www.{self.domain}/"

    def host(self, category: str) -> str:
        return f"{HOST_PREFIX.get(category, category)}.{self.domain}"

    def channel(self, category: str) -> str:
        return f"http://{self.host(category)}/"


URLS = ("channels", "flat")
"""How the Chinese web's URLs are laid out: ``channels`` — a host per channel
(``sports.<portal>``), as the big portals do; ``flat`` — one host per portal, channels in
directories (``www.<portal>/sports/``) and every article at ``/a/<date>/<id>.shtml``, so that an
article's URL names no section."""


def url_layout_ok(urls: str, lang: str) -> bool:
    """Whether a web in ``lang`` can be built with the URL layout ``urls`` (the English web
    mixes its own: only ``channels``, the default, is taken)."""
    return urls == "channels" or (urls in URLS and lang == "zh")


@dataclass(slots=True)
class FlatPortal(Portal):
    """A portal of the ``flat`` layout: one host, a directory per channel."""

    def host(self, category: str) -> str:
        return f"www.{self.domain}"

    def channel(self, category: str) -> str:
        return f"http://www.{self.domain}/{HOST_PREFIX.get(category, category)}/"


@dataclass(slots=True)
class Plan:
    """The whole lab web before rendering: portals, pages, dead links and seeds."""

    portals: list[Portal]
    pages: dict[str, PageSpec]
    """URL → page, in creation order."""
    dead: set[str]
    seeds: dict[str, str]
    lang: str = "zh"
    """The language of the pages (``zh`` or ``en``): which renderer writes them."""
    urls: str = "channels"
    """The Chinese web's URL layout (``URLS``)."""


def _pick_categories(rng: random.Random, pools: dict[str, list[Doc]]) -> list[str]:
    others = sorted(c for c in pools if c != "sports" and len(pools[c]) >= 20)
    count = min(len(others), rng.randint(7, 10))
    return ["sports", *sorted(rng.sample(others, count))]


def _article_url(rng: random.Random, portal: Portal, category: str) -> tuple[str, str]:
    year = rng.choice((2018, 2019))
    month, day = rng.randint(1, 12), rng.randint(1, 28)
    token = "".join(rng.choice("abcdefghijkmnpqrstuvwxyz0123456789") for _ in range(12))
    date = f"{year}-{month:02d}-{day:02d}"
    if isinstance(portal, FlatPortal):
        return f"http://{portal.host(category)}/a/{year}{month:02d}{day:02d}/{token}.shtml", date
    return f"http://{portal.host(category)}/{year}/{month:02d}{day:02d}/doc-i{token}.shtml", date


class _Builder:
    """The Chinese web; :class:`lab.plan_en.EnglishBuilder` overrides the URL and title
    hooks (``_article_url`` … ``_special_page``) and keeps the structure."""

    lang = "zh"
    names = CATEGORY_NAMES
    portal_table: tuple[tuple[str, str], ...] = PORTALS

    def __init__(
        self, docs: list[Doc], seed: int, sites: int, articles: int, urls: str = "channels"
    ) -> None:
        self.urls = urls
        self.rng = random.Random(seed)  # noqa: S311 - reproducible web, not security
        self.articles = articles
        self.pools: dict[str, list[Doc]] = {}
        for doc in sorted(docs, key=lambda d: d.source):
            self.pools.setdefault(doc.category, []).append(doc)
        for pool in self.pools.values():
            self.rng.shuffle(pool)
        if "sports" not in self.pools:
            raise ValueError("the corpus has no sports documents")
        table = self.portal_table
        self.portals = [
            self._portal(index, domain, name)
            for index, (domain, name) in enumerate(table[: max(1, min(sites, len(table)))])
        ]
        self.pages: dict[str, PageSpec] = {}
        self.dead: set[str] = set()
        # per portal: category → article urls (listed), plus the hidden cluster
        self.listed: dict[str, dict[str, list[str]]] = {}
        self.cluster: dict[str, list[str]] = {}

    def _portal(self, index: int, domain: str, name: str) -> Portal:
        return (FlatPortal if self.urls == "flat" else Portal)(
            domain,
            name,
            _pick_categories(self.rng, self.pools),
            "gbk" if domain == GBK_PORTAL else "utf-8",
        )

    def _article_url(self, portal: Portal, category: str, doc: Doc | None) -> tuple[str, str]:
        """(URL, date) of a new article page (``doc`` None: a dead link's URL)."""
        return _article_url(self.rng, portal, category)

    def _list_urls(self, portal: Portal, category: str, count: int) -> list[str]:
        if isinstance(portal, FlatPortal):
            return [f"{portal.channel(category)}index_{n}.shtml" for n in range(1, count + 1)]
        return [f"http://{portal.host(category)}/roll/index_{n}.shtml" for n in range(1, count + 1)]

    def _static_urls(self, portal: Portal) -> list[str]:
        return [
            f"http://www.{portal.domain}/about/{name}.html"
            for name in ("aboutus", "contact", "ads", "copyright")
        ]

    def _static_title(self, portal: Portal, url: str) -> str:
        return f"{portal.name}{_STATIC_TITLES[url.rsplit('/', 1)[1]]}"

    def _home_title(self, portal: Portal) -> str:
        return f"{portal.name}首页"

    def _channel_title(self, portal: Portal, category: str) -> str:
        return f"{self.names[category]}频道_{portal.name}"

    def _list_title(self, portal: Portal, category: str, number: int) -> str:
        return f"{self.names[category]}滚动新闻 第{number}页_{portal.name}"

    def _special_page(self, portal: Portal) -> tuple[str, str]:
        """(URL, title) of the portal's hidden football cluster index."""
        return (
            f"http://{portal.host('sports')}/zt/worldcup/index.shtml",
            f"世界杯专题_{portal.name}",
        )

    def _extra(self, portal: Portal, nav: list[str], hot: list[str], statics: list[str]) -> None:
        """More hub pages after the portal is linked (the English web's tag pages); none here."""

    def _take(self, category: str, count: int) -> list[Doc]:
        pool = self.pools.get(category, [])
        taken, self.pools[category] = pool[:count], pool[count:]
        return taken

    def _quota(self, portal: Portal) -> dict[str, int]:
        size = int(self.articles * self.rng.uniform(0.75, 1.25))
        others = portal.categories[1:]
        weights = {c: len(self.pools[c]) ** 0.5 * self.rng.uniform(0.6, 1.4) for c in others}
        total = sum(weights.values()) or 1.0
        quota = {"sports": max(4, round(size * SPORTS_SHARE))}
        for c in others:
            quota[c] = max(2, round(size * (1 - SPORTS_SHARE) * weights[c] / total))
        return quota

    def allocate(self) -> None:
        for portal in self.portals:
            listed: dict[str, list[str]] = {}
            for category, count in self._quota(portal).items():
                urls = []
                for doc in self._take(category, count):
                    url, date = self._article_url(portal, category, doc)
                    self.pages[url] = PageSpec(
                        url,
                        portal.host(category),
                        portal.domain,
                        "article",
                        category,
                        is_football(doc),
                        doc.title,
                        doc,
                        date,
                    )
                    urls.append(url)
                urls.sort(key=lambda u: self.pages[u].date, reverse=True)
                listed[category] = urls
            football = [u for u in listed["sports"] if self.pages[u].football]
            size = min(len(football) // 3, max(3, len(listed["sports"]) // 25))
            hidden = self.rng.sample(football, size) if size >= 2 else []
            for url in hidden:
                self.pages[url].cluster = True
            listed["sports"] = [u for u in listed["sports"] if u not in set(hidden)]
            self.listed[portal.domain] = listed
            self.cluster[portal.domain] = sorted(hidden)

    def _nav(self, portal: Portal) -> list[str]:
        return [portal.home, *(portal.channel(c) for c in portal.categories)]

    def _dead_url(self, portal: Portal, category: str) -> str:
        url, _ = self._article_url(portal, category, None)
        self.dead.add(url)
        return url

    def link(self) -> None:
        portals = self.portals
        for portal in portals:
            listed = self.listed[portal.domain]
            nav = self._nav(portal)
            everything = [u for c in portal.categories for u in listed[c]]
            hot = self.rng.sample(everything, min(HOT_SIZE, len(everything)))
            statics = self._static_urls(portal)
            friends = [p.home for p in portals if p is not portal]
            home = PageSpec(
                portal.home,
                f"www.{portal.domain}",
                portal.domain,
                "home",
                title=self._home_title(portal),
            )
            home.blocks = {
                "nav": nav,
                "items": [u for c in portal.categories for u in listed[c][:6]],
                "hot": hot,
                "friends": friends,
                "footer": statics,
            }
            self.pages[home.url] = home
            for path in statics:
                page = PageSpec(
                    path,
                    f"www.{portal.domain}",
                    portal.domain,
                    "static",
                    title=self._static_title(portal, path),
                )
                page.blocks = {"nav": nav, "footer": statics}
                self.pages[path] = page
            for category in portal.categories:
                self._channel(portal, category, nav, hot, statics)
            self._articles(portal, nav, hot, statics)
            self._special(portal, nav, hot, statics)
            self._extra(portal, nav, hot, statics)

    def _channel(
        self, portal: Portal, category: str, nav: list[str], hot: list[str], statics: list[str]
    ) -> None:
        urls = self.listed[portal.domain][category]
        lists = self._list_urls(portal, category, max(1, -(-len(urls) // LIST_SIZE)))
        channel = PageSpec(
            portal.channel(category),
            portal.host(category),
            portal.domain,
            "channel",
            category,
            title=self._channel_title(portal, category),
        )
        channel.blocks = {
            "nav": nav,
            "items": urls[:20],
            "pager": lists[:10],
            "hot": hot,
            "footer": statics,
        }
        self.pages[channel.url] = channel
        for n, url in enumerate(lists):
            page = PageSpec(
                url,
                portal.host(category),
                portal.domain,
                "list",
                category,
                title=self._list_title(portal, category, n + 1),
            )
            window = lists[max(0, n - 4) : n + 5]
            pager = [lists[0], *window, lists[-1]]
            if n + 1 < len(lists):
                pager.append(lists[n + 1])
            page.blocks = {
                "nav": nav,
                "crumb": [channel.url],
                "items": urls[n * LIST_SIZE : (n + 1) * LIST_SIZE],
                "pager": list(dict.fromkeys(pager)),
                "hot": hot,
                "footer": statics,
            }
            if self.rng.random() < 0.2:
                page.blocks["dead"] = [self._dead_url(portal, category)]
            self.pages[url] = page

    def _related(self, portal: Portal, page: PageSpec) -> list[str]:
        listed = self.listed[portal.domain]
        same = [u for u in listed[page.category] if u != page.url]
        if page.category == "sports":
            side = [u for u in same if self.pages[u].football == page.football]
            if side and self.rng.random() < 0.75:
                same = side
        others = [u for c in portal.categories if c != page.category for u in listed[c]]
        related: list[str] = []
        for _ in range(RELATED):
            pool = same if same and (self.rng.random() < 0.8 or not others) else others
            if pool:
                related.append(self.rng.choice(pool))
        return list(dict.fromkeys(related))

    def _cross(self, portal: Portal, page: PageSpec) -> list[str]:
        if len(self.portals) < 2 or self.rng.random() >= 0.2:
            return []
        links = []
        for _ in range(self.rng.randint(1, 2)):
            other = self.rng.choice([p for p in self.portals if p is not portal])
            listed = self.listed[other.domain]
            category = (
                page.category
                if (self.rng.random() < 0.6 and page.category in listed)
                else self.rng.choice(other.categories)
            )
            if listed[category]:
                links.append(self.rng.choice(listed[category]))
        return links

    def _articles(self, portal: Portal, nav: list[str], hot: list[str], statics: list[str]) -> None:
        listed = self.listed[portal.domain]
        for category in portal.categories:
            for url in listed[category]:
                page = self.pages[url]
                page.blocks = {
                    "nav": nav,
                    "crumb": [portal.channel(category)],
                    "related": self._related(portal, page),
                    "hot": hot,
                    "cross": self._cross(portal, page),
                    "footer": statics,
                }
                if self.rng.random() < 0.08:
                    page.blocks["dead"] = [self._dead_url(portal, category)]

    def _special(self, portal: Portal, nav: list[str], hot: list[str], statics: list[str]) -> None:
        members = self.cluster[portal.domain]
        if not members:
            return
        index, title = self._special_page(portal)
        special = PageSpec(
            index,
            portal.host("sports"),
            portal.domain,
            "special",
            "sports",
            football=True,
            title=title,
            cluster=True,
        )
        special.blocks = {"nav": nav, "items": members, "footer": statics}
        self.pages[index] = special
        for url in members:
            page = self.pages[url]
            siblings = [u for u in members if u != url]
            page.blocks = {
                "nav": nav,
                "crumb": [index],
                "related": self.rng.sample(siblings, min(RELATED, len(siblings))),
                "hot": hot,
                "footer": statics,
            }
        listed = self.listed[portal.domain]
        off_topic = sorted(u for c in portal.categories if c != "sports" for u in listed[c])
        for url in self.rng.sample(off_topic, min(TUNNELS_PER_CLUSTER, len(off_topic))):
            self.pages[url].tunnel = True
            self.pages[url].blocks["special"] = [index]

    def plan(self) -> Plan:
        self.allocate()
        self.link()
        first = self.portals[0]
        seeds = {"home": first.home, "sports": first.channel("sports")}
        return Plan(self.portals, self.pages, self.dead, seeds, self.lang, self.urls)


_STATIC_TITLES = {
    "aboutus.html": "关于我们",
    "contact.html": "联系我们",
    "ads.html": "广告服务",
    "copyright.html": "版权声明",
}


def make_plan(
    docs: list[Doc],
    *,
    seed: int = 0,
    sites: int = 6,
    articles: int = 1000,
    lang: str = "zh",
    urls: str = "channels",
) -> Plan:
    """Plan a web of ``sites`` portals with about ``articles`` articles each, in ``lang``
    (``urls``: the Chinese web's URL layout, one of ``URLS``; the English web mixes its own)."""
    if lang == "en":
        from lab.plan_en import EnglishBuilder

        return EnglishBuilder(docs, seed, sites, articles).plan()
    return _Builder(docs, seed, sites, articles, urls).plan()
