"""What every link strategy shares: the scored link, the protocol, the base class, the
site-section keys. Its own module so that ``crawler.steering`` (the default strategy) and
``crawler.strategies`` (the seed papers' strategies, and the registry of all of them) both
build on it without importing each other first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from crawler import text as textmod
from crawler.profile import TopicProfile
from crawler.relevance import Relevance, kp_max
from crawler.types import Link, Page
from crawler.urls import directories

__all__ = ["ScoredLink", "Strategy", "section_keys"]


@dataclass(frozen=True, slots=True)
class ScoredLink:
    """A child URL to queue: its priority and remaining Fish depth (None: not counted)."""

    url: str
    priority: float
    depth: int | None = None
    link: Link | None = None


class Strategy(Protocol):
    """A link-priority strategy: how seeds and a fetched page's links are scored."""

    @property
    def name(self) -> str: ...

    relevance_method: str
    """The page scorer this strategy pairs with (``kp``, ``fish`` or ``vsm``)."""
    params: dict[str, Any]

    def seed(self, url: str) -> ScoredLink: ...

    def score_links(
        self, page: Page, relevance: Relevance, depth: int | None
    ) -> list[ScoredLink]: ...

    def failed(self, url: str) -> None:
        """A fetch of ``url`` failed (an HTTP error, a timeout, a refused connection)."""


def _unique_links(page: Page) -> list[Link]:
    seen: set[str] = set()
    out: list[Link] = []
    for link in page.links:
        if link.url not in seen and link.url != page.url:
            seen.add(link.url)
            out.append(link)
    return out


class _Base:
    name: ClassVar[str] = ""
    defaults: ClassVar[dict[str, Any]] = {}
    relevance_default: ClassVar[str] = "kp"

    def __init__(self, profile: TopicProfile, params: dict[str, Any] | None = None) -> None:
        self.profile = profile
        self.params: dict[str, Any] = {**self.defaults, **(params or {})}
        self.relevance_method: str = str(self.params.get("relevance", self.relevance_default))

    def seed(self, url: str) -> ScoredLink:
        return ScoredLink(url, 1.0, None)

    def score_links(self, page: Page, relevance: Relevance, depth: int | None) -> list[ScoredLink]:
        raise NotImplementedError

    def failed(self, url: str) -> None:
        """A fetch of ``url`` failed: the seed strategies learn nothing from it."""

    def page_sim(self, relevance: Relevance) -> float:
        """The page's relevance on [0, 1]: kp sim divided by its maximum (other scorers
        already are on [0, 1])."""
        scale = kp_max(self.params) if self.relevance_method == "kp" else 1.0
        return min(1.0, relevance.score / scale) if scale else 0.0

    def link_relevance(self, link: Link) -> float:
        """How much a link's own text is about the topic, in [0, 1] (extended metadata): the
        weight of the heaviest profile term in its anchor text (1 for a user keyword, a learned
        term's weight), or half that for a term only in the surrounding text. A portal's anchor
        is usually the target's whole title, so presence counts, not density."""
        anchor = self._best(textmod.tokenize(link.anchor, self.profile.words))
        if anchor >= 1.0 or not link.context:
            return anchor
        return max(anchor, 0.5 * self._best(textmod.tokenize(link.context, self.profile.words)))

    def _best(self, tokens: list[str]) -> float:
        return max((self.profile.weight(t) for t in self.profile.match(tokens)), default=0.0)


def section_keys(url: str) -> tuple[str, str]:
    """``(host, host/section)`` of a URL: the section is the first path segment that names a
    directory (letters first, no dot, not the last segment), else the host alone."""
    host, dirs = directories(url)
    return host, f"{host}/{dirs[0]}" if dirs else host
