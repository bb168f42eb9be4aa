"""Reading a built web's ground truth and scoring a crawl against it (docs/algorithms.md §8).

- harvest rate (precision) = relevant fetched / fetched, sampled every ``step`` pages;
- recall = relevant fetched / relevant pages reachable from the seeds (known on the lab web);
- efficiency = relevant pages per minute; throughput = pages per second.

"Fetched" counts pages that came back 200 and were parsed; dead links, injected errors and
other failures are counted apart (``errors``) and never as relevant.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lab.judge import is_about


@dataclass(frozen=True, slots=True)
class Truth:
    """URL → (category, football) for every page, and the link graph."""

    records: dict[str, dict[str, object]]
    graph: dict[str, list[str]]

    @classmethod
    def load(cls, directory: Path) -> Truth:
        records = {}
        for line in (directory / "truth.jsonl").read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            records[record["url"]] = record
        graph = {}
        for line in (directory / "graph.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            graph[row["url"]] = row["links"]
        return cls(records, graph)

    def is_item(self, url: str) -> bool:
        """An article: a page a person reads (channel, list, tag and special pages are hubs)."""
        return self.records.get(url, {}).get("kind") == "article"

    def relevant(self, url: str, topic: str, *, items: bool = False) -> bool:
        """On-topic by the truth; with ``items``, only articles count (``is_item``)."""
        record = self.records.get(url)
        if record is None or (items and not self.is_item(url)):
            return False
        return is_about(str(record["category"]), bool(record["football"]), topic)

    def relevant_items(self, topic: str) -> set[str]:
        """Every on-topic article of the web."""
        return {u for u in self.records if self.relevant(u, topic, items=True)}

    def reachable(self, seeds: Iterable[str]) -> set[str]:
        """Existing pages reachable from ``seeds`` by following links (any host)."""
        seen = {s for s in seeds if s in self.records}
        queue = deque(seen)
        while queue:
            for target in self.graph.get(queue.popleft(), ()):
                if target in self.records and target not in seen:
                    seen.add(target)
                    queue.append(target)
        return seen

    def relevant_reachable(
        self, seeds: Iterable[str], topic: str, *, items: bool = False
    ) -> set[str]:
        return {u for u in self.reachable(seeds) if self.relevant(u, topic, items=items)}


@dataclass(slots=True)
class Score:
    """A crawl's running score against the truth."""

    truth: Truth
    topic: str
    target: int
    """Relevant pages reachable from the seeds (the recall denominator)."""
    step: int = 100
    fetched: int = 0
    relevant: int = 0
    errors: int = 0
    matched: int = 0
    """Pages the crawler itself judged relevant."""
    true_positive: int = 0
    curve: list[tuple[int, float]] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    items: bool = False
    """Count only on-topic articles as relevant (hubs are fetched for discovery)."""
    hits: list[int] = field(default_factory=list)
    """Fetch numbers (1-based, failed fetches included) of the relevant pages, in order."""

    def add(self, url: str, ok: bool, matched: bool) -> None:
        if not ok:
            self.errors += 1
            return
        if url in self.seen:
            return
        self.seen.add(url)
        self.fetched += 1
        hit = self.truth.relevant(url, self.topic, items=self.items)
        self.relevant += hit
        if hit:
            self.hits.append(self.fetched + self.errors)
        self.matched += matched
        self.true_positive += hit and matched
        if self.fetched % self.step == 0:
            self.curve.append((self.fetched, self.relevant / self.fetched))

    @property
    def harvest(self) -> float:
        return self.relevant / self.fetched if self.fetched else 0.0

    @property
    def recall(self) -> float:
        return self.relevant / self.target if self.target else 0.0

    def harvest_at(self, pages: int) -> float | None:
        for count, value in self.curve:
            if count == pages:
                return value
        return None

    def found_by(self, pages: int) -> int:
        """Relevant pages among the first ``pages`` fetches (failed ones included)."""
        return sum(1 for n in self.hits if n <= pages)

    def to_dict(self) -> dict[str, object]:
        return {
            "fetched": self.fetched,
            "relevant": self.relevant,
            "errors": self.errors,
            "harvest": round(self.harvest, 4),
            "recall": round(self.recall, 4),
            "reachable_relevant": self.target,
            "crawler_matched": self.matched,
            "crawler_precision": round(self.true_positive / self.matched, 4)
            if self.matched
            else None,
            "curve": [[n, round(h, 4)] for n, h in self.curve],
            "items": self.items,
            "found_at": {str(n): self.found_by(n) for n in (100, 500, 1000, 2 * self.target) if n},
        }
