"""The lab's ceiling: a greedy crawler that knows the truth.

It fetches a known on-topic item whenever one is in its frontier; otherwise the page that
reveals the most on-topic items not yet discovered (by the truth's link graph). Every
strategy's harvest is reported as a ratio to this one's (``bench focus``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from crawler.profile import TopicProfile
from crawler.relevance import Relevance
from crawler.strategybase import ScoredLink, _Base, _unique_links
from crawler.types import Page
from lab.truth import Truth

if TYPE_CHECKING:
    from crawler.frontier import Entry, Frontier

ON_TOPIC = 2.0


class Oracle(_Base):
    """Greedy with the truth (module doc); re-prioritises its queue every ``every`` pages."""

    name: ClassVar[str] = "oracle"
    defaults: ClassVar[dict[str, Any]] = {"every": 10}

    def __init__(self, truth: Truth, topic: str, profile: TopicProfile) -> None:
        super().__init__(profile, {})
        self.truth = truth
        self.targets = truth.relevant_items(topic)
        self.discovered: set[str] = set()
        self._since = 0

    def seed(self, url: str) -> ScoredLink:
        self.discovered.add(url)
        return ScoredLink(url, 3.0, None)

    def value(self, url: str) -> float:
        if url in self.targets:
            return ON_TOPIC
        reveals = sum(
            1
            for target in self.truth.graph.get(url, ())
            if target in self.targets and target not in self.discovered
        )
        return reveals / (1.0 + reveals)

    def score_links(self, page: Page, relevance: Relevance, depth: int | None) -> list[ScoredLink]:
        links = _unique_links(page)
        self.discovered.update(link.url for link in links)
        self._since += 1
        return [ScoredLink(link.url, self.value(link.url), None, link) for link in links]

    def rescore(self, frontier: Frontier) -> None:
        if self._since < int(self.params["every"]):
            return
        self._since = 0

        def again(entry: Entry) -> float:
            return self.value(entry.url)

        frontier.reprioritize(again)
