"""Drive the focused crawler (``crawler.crawl``) over the lab web and score it against the truth."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lab.truth import Score, Truth

if TYPE_CHECKING:
    from crawler.strategies import Strategy

logger = logging.getLogger(__name__)

THESIS_PARAMS: dict[str, float] = {
    "gamma": 0.8,
    "T": 0.5,
    "W": 20,
    "D": 2,
    "a": 1.5,
}
"""The thesis experiment's parameters (004 tables 5-2 to 5-4; docs/algorithms.md §4.1, §6.2,
§6.5)."""


@dataclass(slots=True)
class RunResult:
    """One strategy's crawl of a lab web: parameters, score and time."""

    strategy: str
    topic: str
    params: dict[str, Any]
    score: Score
    seconds: float
    cpu_seconds: float
    extra: dict[str, Any] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)
    """What the crawl learned, for a next visit (not reported)."""

    def to_dict(self) -> dict[str, Any]:
        pages = self.score.fetched
        return {
            "strategy": self.strategy,
            "topic": self.topic,
            "params": self.params,
            **self.score.to_dict(),
            "seconds": round(self.seconds, 2),
            "cpu_seconds": round(self.cpu_seconds, 2),
            "pages_per_s": round(pages / self.seconds, 1) if self.seconds else None,
            "relevant_per_min": round(self.score.relevant / self.seconds * 60, 1)
            if self.seconds
            else None,
            **self.extra,
        }


def lab_fetch_config(proxy: str, concurrency: int = 16) -> Any:
    """The fetch settings for the lab: through the proxy, no politeness delay.

    The lab server is one local process, so per-host politeness is off (``delay=0``) and a host
    may take the whole concurrency; robots.txt is still fetched and obeyed.
    """
    from crawler import FetchConfig

    return FetchConfig(
        proxy=proxy,
        concurrency=concurrency,
        per_host=concurrency,
        delay=0.0,
        retries=0,
        allow_private=True,
    )


async def run_crawl(
    truth: Truth,
    *,
    proxy: str,
    seeds: list[str],
    keywords: list[str],
    topic: str,
    strategy: str,
    max_pages: int,
    params: Mapping[str, Any] | None = None,
    concurrency: int = 16,
    scope: str = "any",
    learn: bool = True,
    target: int | None = None,
    items: bool = False,
    strategy_state: Mapping[str, Any] | None = None,
    judge_state: Mapping[str, Any] | None = None,
    visited: list[str] | None = None,
    instance: Strategy | None = None,
) -> RunResult:
    """One crawl of the lab web; every fetched URL is scored with the ground truth.

    ``strategy="oracle"`` is the truth-knowing ceiling (``lab.oracle``); ``instance`` crawls
    with that strategy object instead of the one ``strategy`` names (a strategy that records
    what it saw, ``lab.bench.trace``). With ``items``
    only on-topic articles count as relevant. The crawl's final strategy and judgment states
    (for a next visit) are in ``extra["state"]``."""
    from crawler import CrawlConfig, TopicProfile, crawl

    merged = {**THESIS_PARAMS, **(params or {})}
    config = CrawlConfig(
        max_pages=max_pages,
        scope=scope,
        strategy="bfs" if strategy == "oracle" else strategy,
        params=merged,
        fetch=lab_fetch_config(proxy, concurrency),
        learn=learn,
        strategy_state=strategy_state,
        judge_state=judge_state,
        checkpoint_every=0,  # the final state only
    )
    if target is None:
        target = len(truth.relevant_reachable(seeds, topic, items=items))
    score = Score(truth, topic, target, items=items)
    profile = TopicProfile.from_keywords(keywords)
    chosen = instance
    if strategy == "oracle":
        from lab.oracle import Oracle

        chosen = Oracle(truth, topic, profile)
    checkpoints: list[dict[str, Any]] = []
    wall, cpu = time.perf_counter(), time.process_time()
    async for event in crawl(
        seeds, profile, config, strategy=chosen, on_checkpoint=checkpoints.append
    ):
        if event.final:
            continue
        if visited is not None and event.page is not None and not event.error:
            visited.append(event.final_url)
        score.add(event.final_url, event.page is not None and event.error is None, event.matched)
    result = RunResult(
        strategy,
        topic,
        dict(params or {}),
        score,
        time.perf_counter() - wall,
        time.process_time() - cpu,
    )
    if checkpoints:
        result.state = {k: checkpoints[-1].get(k) for k in ("steer", "judge")}
    logger.info(
        "%s/%s: %d pages, harvest %.3f, recall %.3f in %.1fs",
        topic,
        strategy,
        score.fetched,
        score.harvest,
        score.recall,
        result.seconds,
    )
    return result
