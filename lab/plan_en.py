"""The English lab web: the Chinese web's structure over the BBC corpus, with other URL shapes.

Same structure as :mod:`lab.plan` (home → section front → paginated lists → articles,
navigation bar and "most read" box on every page, related and cross-portal links, dead links,
about pages, a hidden football cluster reached only through off-topic "tunnel" articles), plus
tag pages (kind ``tag``: the names several stories mention, linked from those stories and the
home page), but English titles and, per portal, a different URL layout, so that nothing
downstream can rely on one URL shape:

========  ==================================  =============================================
layout    hosts                               URLs (section front, list, article)
========  ==================================  =============================================
dated     one host ``www.<portal>``           ``/sport/``, ``/sport/page/2/``,
                                              ``/2005/03/12/chelsea-beat-arsenal-48213.html``
sections  ``news.<portal>`` (home on www)     ``/news/sport/``, ``/news/sport/archive/2``,
                                              ``/news/sport/48213`` (no extension)
channels  one host per section                ``http://sport.<portal>/``, ``/latest?page=2``,
          (``sport.``, ``business.`` …)       ``/story/48213/chelsea-beat-arsenal``
query     one host ``www.<portal>``           ``/index.php?section=sport``,
                                              ``/index.php?page=2&section=sport``,
                                              ``/article.php?id=48213``
========  ==================================  =============================================

Query parameters are written in sorted order (the crawler's canonical form). All pages are
UTF-8 (the Chinese web keeps its GBK portal).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from urllib.parse import urlsplit

from lab.corpus import EN_CATEGORY_NAMES, Doc
from lab.plan import LIST_SIZE, PageSpec, Portal, _Builder

PORTALS_EN: tuple[tuple[str, str], ...] = (
    ("lab-herald.test", "The Daily Herald"),
    ("lab-courier.test", "The Evening Courier"),
    ("lab-gazette.test", "The Gazette"),
    ("lab-chronicle.test", "The Chronicle"),
    ("lab-tribune.test", "The Tribune"),
    ("lab-examiner.test", "The Examiner"),
)
LAYOUTS = ("dated", "sections", "channels", "query")
"""URL layouts, given to the portals in turn."""

SLUGS = {
    "sports": "sport",
    "finance": "business",
    "ent": "entertainment",
    "politics": "politics",
    "tech": "technology",
}
"""Category → the section's name in URLs and host names."""

_STATIC = {
    "about": "About us",
    "contact": "Contact us",
    "advertise": "Advertise with us",
    "terms": "Terms of use",
}


def slugify(title: str, words: int = 8) -> str:
    """``Chelsea beat Arsenal 2-1`` → ``chelsea-beat-arsenal-2-1`` (ASCII, at most ``words``)."""
    parts = re.findall(r"[a-z0-9]+", title.lower().replace("'", ""))
    return "-".join(parts[:words]) or "story"


@dataclass(slots=True)
class EnglishPortal(Portal):
    """A portal of the English lab web, with its URL layout."""

    layout: str = "dated"

    def host(self, category: str) -> str:
        if self.layout == "channels":
            return f"{SLUGS[category]}.{self.domain}"
        if self.layout == "sections":
            return f"news.{self.domain}"
        return f"www.{self.domain}"

    def channel(self, category: str) -> str:
        slug = SLUGS[category]
        host = self.host(category)
        if self.layout == "channels":
            return f"http://{host}/"
        if self.layout == "sections":
            return f"http://{host}/news/{slug}/"
        if self.layout == "query":
            return f"http://{host}/index.php?section={slug}"
        return f"http://{host}/{slug}/"


class EnglishBuilder(_Builder):
    """Plans the English lab web from the BBC corpus."""

    lang = "en"
    names = EN_CATEGORY_NAMES
    portal_table = PORTALS_EN

    def __init__(self, docs: list[Doc], seed: int, sites: int, articles: int) -> None:
        self.used_ids: set[int] = set()
        super().__init__([d for d in docs if d.lang == "en"], seed, sites, articles)

    def _portal(self, index: int, domain: str, name: str) -> Portal:
        others = sorted(c for c in self.pools if c != "sports")
        return EnglishPortal(
            domain, name, ["sports", *others], "utf-8", LAYOUTS[index % len(LAYOUTS)]
        )

    def _layout(self, portal: Portal) -> str:
        return portal.layout if isinstance(portal, EnglishPortal) else "dated"

    def _new_id(self) -> int:
        while True:
            number = self.rng.randint(10000, 99999)
            if number not in self.used_ids:
                self.used_ids.add(number)
                return number

    def _article_url(self, portal: Portal, category: str, doc: Doc | None) -> tuple[str, str]:
        year = self.rng.choice((2004, 2005))
        month, day = self.rng.randint(1, 12), self.rng.randint(1, 28)
        number = self._new_id()
        slug = slugify(doc.title) if doc is not None else "story"
        date = f"{year}-{month:02d}-{day:02d}"
        host = portal.host(category)
        layout = self._layout(portal)
        if layout == "sections":
            path = f"/news/{SLUGS[category]}/{number}"
        elif layout == "channels":
            path = f"/story/{number}/{slug}"
        elif layout == "query":
            path = f"/article.php?id={number}"
        else:
            path = f"/{year}/{month:02d}/{day:02d}/{slug}-{number}.html"
        return f"http://{host}{path}", date

    def _list_urls(self, portal: Portal, category: str, count: int) -> list[str]:
        slug, host = SLUGS[category], portal.host(category)
        layout = self._layout(portal)
        if layout == "sections":
            return [f"http://{host}/news/{slug}/archive/{n}" for n in range(1, count + 1)]
        if layout == "channels":
            return [f"http://{host}/latest?page={n}" for n in range(1, count + 1)]
        if layout == "query":
            return [f"http://{host}/index.php?page={n}&section={slug}" for n in range(1, count + 1)]
        return [f"http://{host}/{slug}/page/{n}/" for n in range(1, count + 1)]

    def _static_urls(self, portal: Portal) -> list[str]:
        layout = self._layout(portal)
        base = f"http://www.{portal.domain}"
        if layout == "query":
            return [f"{base}/page.php?name={name}" for name in _STATIC]
        if layout == "channels":
            return [f"{base}/info/{name}.htm" for name in _STATIC]
        return [f"{base}/about/{name}/" for name in _STATIC]

    def _static_title(self, portal: Portal, url: str) -> str:
        name = re.split(r"[/=]", url.rstrip("/").removesuffix(".htm"))[-1]
        return f"{_STATIC[name]} | {portal.name}"

    def _home_title(self, portal: Portal) -> str:
        return f"{portal.name} - News, sport and comment"

    def _channel_title(self, portal: Portal, category: str) -> str:
        return f"{self.names[category]} news | {portal.name}"

    def _list_title(self, portal: Portal, category: str, number: int) -> str:
        return f"{self.names[category]} news archive, page {number} | {portal.name}"

    def _special_page(self, portal: Portal) -> tuple[str, str]:
        host = portal.host("sports")
        layout = self._layout(portal)
        if layout == "query":
            url = f"http://{host}/index.php?topic=champions-league"
        elif layout == "sections":
            url = f"http://{host}/news/sport/in-depth/champions-league/"
        elif layout == "channels":
            url = f"http://{host}/in-depth/champions-league/"
        else:
            url = f"http://{host}/topics/champions-league/"
        return url, f"In depth: the road to the Champions League final | {portal.name}"

    def _tag_url(self, portal: Portal, slug: str) -> str:
        layout = self._layout(portal)
        if layout == "query":
            return f"http://www.{portal.domain}/index.php?tag={slug}"
        if layout == "sections":
            return f"http://news.{portal.domain}/news/topics/{slug}"
        if layout == "channels":
            return f"http://www.{portal.domain}/tags/{slug}.htm"
        return f"http://www.{portal.domain}/tag/{slug}/"

    def _extra(self, portal: Portal, nav: list[str], hot: list[str], statics: list[str]) -> None:
        """Tag pages: one per name that several of the portal's listed articles mention.

        A tag page lists its articles (newest first), is linked from them and (the biggest
        tags) from the home page; its category is its articles' when 80 % share one, else
        empty (a mixed hub), and it counts as football when 80 % of its articles do. The
        hidden football cluster is never tagged.
        """
        listed = self.listed[portal.domain]
        members: dict[str, list[str]] = {}
        names: dict[str, str] = {}
        for category in portal.categories:
            for url in listed[category]:
                doc = self.pages[url].doc
                for name in tags_of(doc.title, doc.body) if doc else []:
                    slug = slugify(name)
                    members.setdefault(slug, []).append(url)
                    names.setdefault(slug, name)
        chosen = sorted(
            (s for s, urls in members.items() if len(urls) >= TAG_MIN_ARTICLES),
            key=lambda s: (-len(members[s]), s),
        )[:TAGS_PER_PORTAL]
        for slug in chosen:
            urls = sorted(members[slug], key=lambda u: (self.pages[u].date, u), reverse=True)
            top, count = Counter(self.pages[u].category for u in urls).most_common(1)[0]
            url = self._tag_url(portal, slug)
            page = PageSpec(
                url,
                urlsplit(url).hostname or "",
                portal.domain,
                "tag",
                top if count >= 0.8 * len(urls) else "",
                sum(self.pages[u].football for u in urls) >= 0.8 * len(urls),
                f"Topic: {names[slug]} | {portal.name}",
            )
            page.blocks = {"nav": nav, "items": urls[:LIST_SIZE], "hot": hot, "footer": statics}
            self.pages[url] = page
            for member in urls:
                _before_footer(self.pages[member].blocks, "tags", url)
        home = self.pages[portal.home]
        for slug in chosen[:HOME_TAGS]:
            _before_footer(home.blocks, "tags", self._tag_url(portal, slug))


TAG_MIN_ARTICLES = 3
TAGS_PER_PORTAL = 40
HOME_TAGS = 10
_NAME = re.compile(r"[A-Z][a-z]+(?:[ -][A-Z][a-z]+){0,2}")
_NOT_NAME_WORDS = (
    "The A An But And He She It They We You I In On At As If Mr Mrs Ms Sir This That These "
    "There Their His Her Its Our After Before When While For From With Without Now However "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May "
    "June July August September October November December BBC Radio News Sport"
)
_NOT_NAMES = frozenset(_NOT_NAME_WORDS.split())


def tags_of(title: str, body: str, count: int = 3) -> list[str]:
    """Up to ``count`` names a story mentions at least twice (not at a sentence start)."""
    text = f"{title}. {body}"
    seen: Counter[str] = Counter()
    first: dict[str, int] = {}
    for match in _NAME.finditer(text):
        before = text[: match.start()].rstrip()
        if not before or before[-1] in ".!?\"'":
            continue
        name = match.group()
        if name.split()[0] in _NOT_NAMES or len(name) < 3:
            continue
        seen[name] += 1
        first.setdefault(name, match.start())
    ranked = sorted((n for n, c in seen.items() if c >= 2), key=lambda n: (-seen[n], first[n]))
    return ranked[:count]


def _before_footer(blocks: dict[str, list[str]], role: str, url: str) -> None:
    """Add ``url`` to the ``role`` block, which is kept just before the footer."""
    urls = blocks.pop(role, [])
    if url not in urls:
        urls.append(url)
    footer = blocks.pop("footer", None)
    blocks[role] = urls
    if footer is not None:
        blocks["footer"] = footer
