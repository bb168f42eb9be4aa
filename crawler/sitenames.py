"""A site's own name in its titles: ``…_新浪网``, ``… | The Daily Herald``.

Most sites end (or start) every title with their name. To the topic model that name is a word
like any other, and where a topic's pages that print the user's keyword come mostly from one
of several sites, the site's name becomes one of the topic's strongest words: self-training
then takes that site's other stories, and the ones the user marks 👍 make it stronger still
(on a lab web of six portals whose titles name only the portal, the one-keyword topic's
learned words held 网易 and 凤凰网 among 巴萨 and 英超). Where a page was found is already
counted, and counted right, by its closeness to the topic's part of the site
(``crawler.siteareas``); the name adds only a bias.

A title part other than the headline is the site's name when it stands in nearly every title of
that site (``share`` of its items, once it has ``min_items``) and in no title of another site.
The second condition keeps a section's name (``体育``, ``Sport``): a crawl that keeps to one
channel prints it as often as the site's name, but other sites print it too. A site crawled
alone cannot be told apart that way, and needs no telling: a word on every one of its pages
separates none of them.
"""

from __future__ import annotations

from collections import Counter

from crawler.siteareas import site_of

__all__ = ["SiteNames"]


class SiteNames:
    """The title parts seen per site, and which of them are a site's name."""

    def __init__(self, *, share: float = 0.9, min_items: int = 10) -> None:
        self.share = share
        self.min_items = min_items
        self._items: Counter[str] = Counter()
        """Items observed per site."""
        self._parts: dict[str, Counter[str]] = {}
        """Per site: how many of its items print each title part."""
        self._sites: dict[str, set[str]] = {}
        """Per title part: the sites that print it (two are enough to know)."""
        self._urls: set[str] = set()

    def observe(self, url: str, parts: list[str]) -> None:
        """Record an item's title parts besides its headline (``parts``); once per URL."""
        if url in self._urls:
            return
        self._urls.add(url)
        site = site_of(url)
        self._items[site] += 1
        counts = self._parts.setdefault(site, Counter())
        for part in set(parts):
            counts[part] += 1
            sites = self._sites.setdefault(part, set())
            if len(sites) < 2:
                sites.add(site)

    def names(self, url: str) -> list[str]:
        """The title parts that are the name of the URL's site, as far as is known now."""
        site = site_of(url)
        items = self._items.get(site, 0)
        if items < self.min_items:
            return []
        return [
            part
            for part, n in self._parts[site].items()
            if n >= self.share * items and len(self._sites[part]) == 1
        ]
