"""The English lab web: the Chinese web's structure over the BBC corpus, with other URL shapes.

Same structure as :mod:`app.lab.plan` (home → section front → paginated lists → articles,
navigation bar and "most read" box on every page, related and cross-portal links, dead links,
about pages, a hidden football cluster reached only through off-topic "tunnel" articles), but
English titles and, per portal, a different URL layout, so that nothing downstream can rely on
one URL shape:

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
from dataclasses import dataclass

from app.lab.corpus import EN_CATEGORY_NAMES, Doc
from app.lab.plan import Portal, _Builder

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
