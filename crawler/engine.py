"""The crawl engine: frontier + fetcher + relevance + strategy, as an async iterator of events.

``crawl(seeds, topic, config)`` yields one ``CrawlEvent`` per fetched URL, in fetch order —
pages and failures alike (a failure has ``status`` 0 or the HTTP status, ``error`` and
``error_kind``).
Fetches run as asyncio tasks, at most ``config.fetch.concurrency`` at once and at most
``config.fetch.per_host`` per host (the frontier hands out the best URL whose host has a free
slot; the fetcher enforces the politeness delay).

Checkpoint / resume: ``on_checkpoint(state)`` receives a JSON-able dict every
``config.checkpoint_every`` events and once more when the iterator ends or is closed (use
``contextlib.aclosing`` when you may stop early). URLs in flight at that moment are put back in
the queue, so passing the last state as ``crawl(..., checkpoint=state)`` continues the crawl
with no URL yielded twice and none lost. Learned topic terms are restored; PageRank, sibling
and site-section statistics restart from the resumed pages on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from crawler import urls
from crawler.errors import FetchError
from crawler.frontier import Entry, Frontier
from crawler.judgment import Judge
from crawler.profile import TopicProfile
from crawler.relevance import Relevance, score_page
from crawler.strategies import Strategy, make_strategy
from crawler.types import Page

if TYPE_CHECKING:
    import httpx

    from crawler.fetch import FetchConfig

logger = logging.getLogger(__name__)

__all__ = ["CHECKPOINT_VERSION", "CrawlConfig", "CrawlEvent", "PageFetcher", "crawl"]

CHECKPOINT_VERSION = 1


def _fetch_config() -> FetchConfig:
    from crawler.fetch import FetchConfig

    return FetchConfig()


@dataclass(frozen=True)
class CrawlConfig:
    """What one crawl may do. ``params`` overrides strategy and scorer parameters."""

    max_pages: int = 1000
    max_depth: int | None = None
    """Maximum links followed from a seed (None: unlimited)."""
    time_limit: float | None = None
    """Seconds; no new fetch starts after it and fetches in flight are abandoned (re-queued)."""
    scope: str = "host"
    strategy: str = "adaptive"
    params: Mapping[str, Any] = field(default_factory=dict)
    fetch: FetchConfig = field(default_factory=_fetch_config)
    checkpoint_every: int = 100
    learn: bool = True
    """Learn topic terms from strongly matching pages (see ``crawler.profile``)."""
    follow_nofollow: bool = False
    scorer: str = "model"
    """The push decision (``matched``): ``model`` — the learned judgment
    (``crawler.judgment``) — or a seed scorer: ``kp``, ``fish``, ``vsm``."""
    judge_state: Mapping[str, Any] | None = None
    """The judgment model learned on an earlier visit (``Judge.state()``)."""
    strategy_state: Mapping[str, Any] | None = None
    """What the strategy learned about the site on an earlier visit (the ``steer`` entry of
    the last checkpoint), for strategies that learn (``adaptive``)."""


@dataclass
class CrawlEvent:
    """One fetched URL."""

    url: str
    final_url: str
    status: int
    depth: int
    """Links followed from the nearest seed."""
    priority: float
    """The priority the URL was popped with."""
    relevance: float
    matched: bool
    explanation: dict[str, Any]
    title: str
    elapsed_ms: float
    error: str | None = None
    """``"<exception type>: <message>"`` of a failed fetch, None for a page."""
    page: Page | None = None
    kind: str = ""
    """``item`` or ``hub`` (``crawler.pagekind``); "" for a failed fetch."""
    probability: float = 0.0
    """The judgment model's probability that the page is on-topic (0 with a seed scorer)."""
    final: bool = False
    """The end-of-visit re-judgment of a page yielded earlier (``matched`` is now True)."""
    error_kind: str | None = None
    """Of a failed fetch: the documented ``FetchError.kind`` (``crawler.errors``: ``timeout``,
    ``http_status``, …), or ``"other"`` for an exception outside that tree; None for a page."""

    def to_json(self) -> dict[str, Any]:
        row = {
            "url": self.url,
            "final_url": self.final_url,
            "status": self.status,
            "depth": self.depth,
            "priority": round(self.priority, 6),
            "relevance": round(self.relevance, 6),
            "kind": self.kind,
            "probability": round(self.probability, 4),
            "matched": self.matched,
            "title": self.title,
            "elapsed_ms": round(self.elapsed_ms, 1),
            "error": self.error,
            "explanation": self.explanation,
        }
        if self.final:
            row["final"] = True
        return row


class PageFetcher(Protocol):
    """What the engine fetches pages with (``crawler.fetch.Fetcher``, or a test double)."""

    async def fetch(
        self, url: str, *, etag: str | None = None, last_modified: str | None = None
    ) -> Page: ...


class _Scope:
    """Is a URL crawlable from the seeds under the scope? Cached per (scheme, host)."""

    def __init__(self, seeds: list[str], scope: str) -> None:
        if scope not in ("host", "domain", "any"):
            raise ValueError(f"unknown scope {scope!r}: host, domain or any")
        self.seeds, self.scope = seeds, scope
        self._cache: dict[str, bool] = {}

    def __call__(self, url: str) -> bool:
        head = url.split("/", 3)[:3]
        key = "/".join(head)
        ok = self._cache.get(key)
        if ok is None:
            ok = any(urls.in_scope(url, s, self.scope) for s in self.seeds)
            if len(self._cache) < 100_000:
                self._cache[key] = ok
        return ok


def _profile(topic: TopicProfile | str | Iterable[str]) -> TopicProfile:
    if isinstance(topic, TopicProfile):
        return topic
    return TopicProfile.from_keywords(topic)


def _restore_profile(profile: TopicProfile, data: Mapping[str, Any]) -> None:
    saved = TopicProfile.from_dict(dict(data))
    profile.n_pages, profile.n_strong = saved.n_pages, saved.n_strong
    profile.df_all, profile.df_strong = saved.df_all, saved.df_strong
    profile._set_learned(saved.learned)


@dataclass(frozen=True)
class _Fetched:
    """What fetching one entry gave: the page, or the error (its text and kind)."""

    page: Page | None
    status: int
    elapsed_ms: float
    error: str | None = None
    error_kind: str | None = None


def _error_kind(exc: BaseException) -> str:
    """The counter / log name of a fetch failure: ``FetchError.kind``, else ``"other"``."""
    return exc.kind if isinstance(exc, FetchError) else "other"


async def _fetch(fetcher: PageFetcher, entry: Entry) -> _Fetched:
    start = time.perf_counter()
    try:
        page = await fetcher.fetch(entry.url)
    except Exception as exc:  # every failure becomes an event; the crawl goes on
        status = getattr(exc, "status", 0)
        elapsed = (time.perf_counter() - start) * 1000
        logger.debug("fetch %s failed: %s", entry.url, exc)
        return _Fetched(
            page=None,
            status=status if isinstance(status, int) else 0,
            elapsed_ms=elapsed,
            error=f"{type(exc).__name__}: {exc}",
            error_kind=_error_kind(exc),
        )
    elapsed = page.elapsed_ms or (time.perf_counter() - start) * 1000
    return _Fetched(page=page, status=page.status, elapsed_ms=elapsed)


async def crawl(
    seeds: Iterable[str],
    topic: TopicProfile | str | Iterable[str],
    config: CrawlConfig | None = None,
    *,
    client: httpx.AsyncClient | None = None,
    fetcher: PageFetcher | None = None,
    checkpoint: Mapping[str, Any] | None = None,
    on_checkpoint: Callable[[dict[str, Any]], None] | None = None,
    strategy: Strategy | None = None,
) -> AsyncGenerator[CrawlEvent, None]:
    """Crawl from ``seeds`` for ``topic``; yield one event per fetched URL (see module doc).

    ``fetcher`` (anything with ``async fetch(url, etag=None, last_modified=None) -> Page``)
    replaces the built-in ``Fetcher(config.fetch, client=client)``; ``strategy`` replaces the
    one ``config.strategy`` names (e.g. an evaluation strategy that knows the truth).
    """
    config = config or CrawlConfig()
    profile = _profile(topic)
    params = dict(config.params)
    if strategy is None:
        strategy = make_strategy(config.strategy, profile, params)
    score_params = {k: float(v) for k, v in params.items() if isinstance(v, int | float)}
    judge = (
        Judge(profile, params=score_params, state=config.judge_state)
        if config.scorer == "model"
        else None
    )
    scorer = strategy.relevance_method if config.scorer == "model" else config.scorer
    steer = getattr(strategy, "uses_judgment", False)
    if steer:
        strategy.attach(judge)  # type: ignore[attr-defined]
        strategy.load(config.strategy_state)  # type: ignore[attr-defined]
    rescore = getattr(strategy, "rescore", None)
    seed_urls = [u for u in (urls.canonicalize(s) for s in seeds) if u]
    if not seed_urls:
        raise ValueError("no crawlable seed URL")
    per_host = config.fetch.per_host
    concurrency = max(1, config.fetch.concurrency)
    in_scope = _Scope(seed_urls, config.scope)
    fetched = 0
    if checkpoint:
        frontier = Frontier.from_dict(
            checkpoint["frontier"], per_host=per_host, host_of=urls.host_of
        )
        fetched = int(checkpoint.get("fetched", 0))
        if checkpoint.get("profile"):
            _restore_profile(profile, checkpoint["profile"])
        if steer and checkpoint.get("steer"):
            strategy.load(checkpoint["steer"], carry=1.0)  # type: ignore[attr-defined]
    else:
        frontier = Frontier(per_host=per_host, host_of=urls.host_of)
    for url in seed_urls:
        s = strategy.seed(url)
        frontier.push(s.url, s.priority, s.depth, 0)

    def state(requeue: Iterable[Entry]) -> dict[str, Any]:
        return {
            "version": CHECKPOINT_VERSION,
            "strategy": config.strategy,
            "seeds": seed_urls,
            "fetched": fetched,
            "frontier": frontier.to_dict(requeue),
            "profile": profile.to_dict(),
            **({"steer": strategy.state()} if steer else {}),  # type: ignore[attr-defined]
            **({"judge": judge.state()} if judge is not None else {}),
        }

    def expand(entry: Entry, page: Page, rel: Relevance) -> None:
        for extra in (page.final_url, page.canonical_url):
            if extra and extra != entry.url:
                frontier.mark_seen(extra)
        hops = entry.hops + 1
        if config.max_depth is not None and hops > config.max_depth:
            links = []
        else:
            links = [
                link
                for link in page.links
                if (config.follow_nofollow or not link.nofollow)
                and in_scope(link.url)
                and urls.trap_reason(link.url) is None
            ]
        for scored in strategy.score_links(replace(page, links=links), rel, entry.depth):
            anchor = scored.link.anchor if scored.link is not None else ""
            frontier.push(scored.url, scored.priority, scored.depth, hops, anchor)
        if rescore is not None:
            rescore(frontier)

    def event(entry: Entry, result: _Fetched) -> CrawlEvent:
        page, status, elapsed = result.page, result.status, result.elapsed_ms
        if page is None:
            return CrawlEvent(
                url=entry.url,
                final_url=entry.url,
                status=status,
                depth=entry.hops,
                priority=entry.priority,
                relevance=0.0,
                matched=False,
                explanation={},
                title="",
                elapsed_ms=elapsed,
                error=result.error,
                error_kind=result.error_kind,
            )
        rel = score_page(page, profile, method=scorer, params=score_params)
        if config.learn:
            profile.learn(page, rel)
        matched, explanation, probability = rel.matched, rel.explanation, 0.0
        if judge is not None:
            judgment = judge.judge(page, anchor=entry.anchor)
            matched, explanation = judgment.relevant, judgment.explanation
            probability = judgment.probability
            rel = replace(rel, probability=probability)
        else:
            matched = matched and page.kind == "item"
        expand(entry, page, rel)
        return CrawlEvent(
            url=entry.url,
            final_url=page.final_url,
            status=status,
            depth=entry.hops,
            priority=entry.priority,
            relevance=rel.score,
            matched=matched,
            explanation=explanation,
            title=page.title,
            elapsed_ms=elapsed,
            page=page,
            kind=page.kind,
            probability=probability,
        )

    def finals() -> list[CrawlEvent]:
        """The end of the visit: pages the judgment now pushes, one more event each."""
        if judge is None:
            return []
        out = []
        for url, judgment in judge.finish():
            out.append(
                CrawlEvent(
                    url=url,
                    final_url=url,
                    status=200,
                    depth=0,
                    priority=0.0,
                    relevance=0.0,
                    matched=True,
                    explanation=judgment.explanation,
                    title=judgment.title,
                    elapsed_ms=0.0,
                    kind=judgment.kind,
                    probability=judgment.probability,
                    final=True,
                )
            )
        return out

    owned: contextlib.AsyncExitStack | None = None
    source: PageFetcher
    if fetcher is None:
        from crawler.fetch import Fetcher

        owned = contextlib.AsyncExitStack()
        source = await owned.enter_async_context(Fetcher(config.fetch, client=client))
    else:
        source = fetcher
    deadline = None if config.time_limit is None else time.monotonic() + config.time_limit
    scheduled = fetched
    pending: dict[asyncio.Task[_Fetched], Entry] = {}
    try:
        while True:
            expired = deadline is not None and time.monotonic() >= deadline
            while not expired and len(pending) < concurrency and scheduled < config.max_pages:
                entry = frontier.pop()
                if entry is None:
                    break
                scheduled += 1
                pending[asyncio.create_task(_fetch(source, entry))] = entry
            if not pending or expired:
                break
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            done, _ = await asyncio.wait(
                pending, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
            for task in [t for t in pending if t in done]:  # in the order they started
                entry = pending[task]
                ev = event(entry, task.result())
                del pending[task]
                frontier.done(entry)
                fetched += 1
                if (
                    on_checkpoint
                    and config.checkpoint_every
                    and fetched % config.checkpoint_every == 0
                ):
                    on_checkpoint(state(pending.values()))
                yield ev
        for ev in finals():
            yield ev
    finally:
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        if on_checkpoint:
            on_checkpoint(state(pending.values()))
        if owned is not None:
            await owned.aclose()
