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

from crawler import text as textmod
from crawler import urls
from crawler.errors import FetchError
from crawler.frontier import Entry, Frontier
from crawler.judgment import Judge
from crawler.pagekind import ITEM
from crawler.profile import TopicProfile
from crawler.relevance import Relevance, score_page
from crawler.strategies import Strategy, make_strategy
from crawler.types import Link, Page

if TYPE_CHECKING:
    import httpx

    from crawler.fetchconfig import FetchConfig

logger = logging.getLogger(__name__)

__all__ = ["CHECKPOINT_VERSION", "CrawlConfig", "CrawlEvent", "PageFetcher", "crawl"]

CHECKPOINT_VERSION = 1


FETCH_PROCESS_PAGES = 200
"""The smallest page budget for which ``CrawlConfig.fetch_process=None`` fetches in a child."""


def _fetch_config() -> FetchConfig:
    from crawler.fetchconfig import FetchConfig

    return FetchConfig()


_CUT_EVERY = 20
"""Fetches between two findings of the budget's cut (``Frontier.budget``) at most."""


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
    """Learn topic terms from strongly matching pages (see ``crawler.profile``), where they are
    read: the seed scorers and the strategies that rank links by the profile. Where the judgment
    decides and steers (the default) it learns its own model and the profile learns nothing."""
    follow_nofollow: bool = False
    wait_for_better: bool = True
    """While the best queued URL waits for its host (``per_host`` fetches in flight), fetch
    another host's URL only if it is among the best the crawl's remaining fetches would reach
    anyway; else wait for the host (``crawler.frontier``, ``Frontier.budget``). False: take the
    best URL of any free host."""
    scorer: str = "model"
    """The push decision (``matched``): ``model`` — the learned judgment
    (``crawler.judgment``) — or a seed scorer: ``kp``, ``fish``, ``vsm``."""
    judge_state: Mapping[str, Any] | None = None
    """The judgment model learned on an earlier visit (``Judge.state()``)."""
    strategy_state: Mapping[str, Any] | None = None
    """What the strategy learned about the site on an earlier visit (the ``steer`` entry of
    the last checkpoint), for strategies that learn (``adaptive``)."""
    fetch_process: bool | None = None
    """Fetch and parse in a child process (``crawler.fetchproc``) while this one judges and
    ranks: True, False, or None — when this process may use two or more CPUs, the crawl may
    fetch at least ``FETCH_PROCESS_PAGES`` pages (a child costs about a second of start-up on
    the other core) and more than one page at a time."""


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
    """The end-of-visit decision on a page yielded earlier: pushed now (``matched``), or, for
    a page whose decision waited for the end (``provisional``), not pushed."""
    provisional: bool = False
    """An item not pushed yet whose decision waits for the end of the visit: judged before the
    model knew enough, or carried by the model alone (the end refits on the whole visit). The
    visit's end yields one more event for it, ``final``, with the decision."""
    error_kind: str | None = None
    """Of a failed fetch: the documented ``FetchError.kind`` (``crawler.errors``: ``timeout``,
    ``http_status``, …), or ``"other"`` for an exception outside that tree; None for a page."""
    anchor: str = ""
    """The text of the links that led to the page (``Entry.anchor``): what the judgment of a
    concern reads beside the page itself, in the service as here."""

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
        if self.provisional:
            row["provisional"] = True
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


def _written_in_chinese(profile: TopicProfile) -> bool:
    """True when one of the topic's own terms has a Han character."""
    return any(
        textmod.has_han(term) for term in (*profile.keywords, *profile.synonyms, *profile.learned)
    )


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


class _Crawl:
    """The running state of one crawl: the frontier, the learners and the fetches in flight.

    ``crawl`` drives it: ``start_fetches`` / ``wait`` until nothing is left, ``handle`` each
    finished fetch (one event), ``finals`` at the end of the visit, ``stop`` in every case.
    """

    def __init__(
        self,
        seeds: Iterable[str],
        topic: TopicProfile | str | Iterable[str],
        config: CrawlConfig,
        checkpoint: Mapping[str, Any] | None,
        strategy: Strategy | None,
    ) -> None:
        self.config = config
        self.profile = _profile(topic)
        params = dict(config.params)
        if strategy is None:
            strategy = make_strategy(config.strategy, self.profile, params)
        self.strategy = strategy
        self.score_params = {k: float(v) for k, v in params.items() if isinstance(v, int | float)}
        self.judge = (
            Judge(self.profile, params=self.score_params, state=config.judge_state)
            if config.scorer == "model"
            else None
        )
        self.scorer = strategy.relevance_method if config.scorer == "model" else config.scorer
        self.steer = getattr(strategy, "uses_judgment", False)
        if self.steer:
            strategy.attach(self.judge)  # type: ignore[attr-defined]
            strategy.load(config.strategy_state)  # type: ignore[attr-defined]
        self.rescore = getattr(strategy, "rescore", None)
        self.fresh = getattr(strategy, "fresh", None)
        self.seed_urls = [u for u in (urls.canonicalize(s) for s in seeds) if u]
        if not self.seed_urls:
            raise ValueError("no crawlable seed URL")
        self.concurrency = max(1, config.fetch.concurrency)
        self.in_scope = _Scope(self.seed_urls, config.scope)
        self._follow: dict[str, bool] = {}
        self._waiting: set[str] = set()
        """The items whose decision waits for the end of the visit (``CrawlEvent.provisional``)."""
        self._asked: dict[str, str] = {}
        """An item's address → the URL its fetch asked for, where a redirect made them differ:
        its end-of-visit row names the URL its first row does."""
        self.fetched = 0
        self.frontier = self._start(checkpoint)
        for url in self.seed_urls:
            s = strategy.seed(url)
            self.frontier.push(s.url, s.priority, s.depth, 0)
        self.deadline: float | None = None
        self.scheduled = self.fetched
        self.pending: dict[asyncio.Task[_Fetched], Entry] = {}
        self._cut_at = (-_CUT_EVERY, 0)
        """When the budget's cut was last found: (pages scheduled, URLs queued) then."""
        # a host can be busy while a worker is free only when it may take fewer fetches at a
        # time than the crawl
        self._waits = config.wait_for_better and config.fetch.per_host < self.concurrency

    def _start(self, checkpoint: Mapping[str, Any] | None) -> Frontier:
        """A new frontier, or the checkpoint's (restoring its count, profile and steering)."""
        per_host = self.config.fetch.per_host
        if not checkpoint:
            return Frontier(per_host=per_host, host_of=urls.host_of)
        frontier = Frontier.from_dict(
            checkpoint["frontier"], per_host=per_host, host_of=urls.host_of
        )
        self.fetched = int(checkpoint.get("fetched", 0))
        if checkpoint.get("profile"):
            _restore_profile(self.profile, checkpoint["profile"])
        if self.steer and checkpoint.get("steer"):
            self.strategy.load(checkpoint["steer"], carry=1.0)  # type: ignore[attr-defined]
        return frontier

    def state(self, requeue: Iterable[Entry]) -> dict[str, Any]:
        """The checkpoint: the ``requeue`` entries go back in the saved frontier."""
        return {
            "version": CHECKPOINT_VERSION,
            "strategy": self.config.strategy,
            "seeds": self.seed_urls,
            "fetched": self.fetched,
            "frontier": self.frontier.to_dict(requeue),
            "profile": self.profile.to_dict(),
            **({"steer": self.strategy.state()} if self.steer else {}),  # type: ignore[attr-defined]
            **({"judge": self.judge.state()} if self.judge is not None else {}),
        }

    def start_clock(self) -> None:
        """The time limit runs from now."""
        limit = self.config.time_limit
        self.deadline = None if limit is None else time.monotonic() + limit

    def start_fetches(self, source: PageFetcher) -> bool:
        """Start fetches up to the limits; False when the crawl is over (nothing in flight, or
        out of time)."""
        expired = self.deadline is not None and time.monotonic() >= self.deadline
        while (
            not expired
            and len(self.pending) < self.concurrency
            and self.scheduled < self.config.max_pages
        ):
            if self._waits and self._cut_due():
                self.frontier.budget(self.config.max_pages - self.scheduled)
                self._cut_at = (self.scheduled, len(self.frontier))
            entry = self.frontier.pop(self.fresh)
            if entry is None:
                break
            self.scheduled += 1
            self.pending[asyncio.create_task(_fetch(source, entry))] = entry
        return bool(self.pending) and not expired

    def _cut_due(self) -> bool:
        """Find the budget's cut again: every ``_CUT_EVERY`` fetches, and whenever the queue
        has grown by a quarter since (a visit's first pages queue most of what it will
        choose from)."""
        scheduled, queued = self._cut_at
        return self.scheduled - scheduled >= _CUT_EVERY or len(self.frontier) > 1.25 * queued

    async def wait(self) -> list[asyncio.Task[_Fetched]]:
        """The fetches that finished (at least one unless time ran out), in the order they
        started."""
        deadline = self.deadline
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        done, _ = await asyncio.wait(
            self.pending, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        return [t for t in self.pending if t in done]

    def handle(
        self,
        task: asyncio.Task[_Fetched],
        on_checkpoint: Callable[[dict[str, Any]], None] | None,
    ) -> CrawlEvent:
        """The event of one finished fetch; counts it and saves a checkpoint when due."""
        entry = self.pending[task]
        ev = self.event(entry, task.result())
        del self.pending[task]
        self.frontier.done(entry)
        self.fetched += 1
        every = self.config.checkpoint_every
        if on_checkpoint and every and self.fetched % every == 0:
            on_checkpoint(self.state(self.pending.values()))
        return ev

    def event(self, entry: Entry, result: _Fetched) -> CrawlEvent:
        """Judge a fetched page (and schedule its links), or report the failure."""
        page = result.page
        if page is None:
            self.strategy.failed(entry.url)
            return _failure(entry, result)
        rel = score_page(page, self.profile, method=self.scorer, params=self.score_params)
        if self.config.learn and not (self.steer and self.judge is not None):
            # the seed scorers and the strategies that rank links by the profile's terms learn
            # them here; where the judgment both decides and steers, its own model is what
            # is learned (the profile's terms would feed neither)
            self.profile.learn(page, rel)
        matched, explanation, probability = rel.matched, rel.explanation, 0.0
        provisional = False
        if self.judge is not None:
            judgment = self.judge.judge(page, anchor=entry.anchor)
            matched, explanation = judgment.relevant, judgment.explanation
            probability = judgment.probability
            rel = replace(rel, probability=probability)
            provisional = judgment.provisional and not matched and page.kind == ITEM
            if provisional:
                self._waiting.add(page.final_url or page.url)
            if page.kind == ITEM and page.final_url and page.final_url != entry.url:
                self._asked[page.final_url] = entry.url
        else:
            matched = matched and page.kind == ITEM
        self.expand(entry, page, rel)
        return CrawlEvent(
            url=entry.url,
            final_url=page.final_url,
            status=result.status,
            depth=entry.hops,
            priority=entry.priority,
            relevance=rel.score,
            matched=matched,
            explanation=explanation,
            title=page.title,
            elapsed_ms=result.elapsed_ms,
            page=page,
            kind=page.kind,
            probability=probability,
            anchor=entry.anchor,
            provisional=provisional,
        )

    def expand(self, entry: Entry, page: Page, rel: Relevance) -> None:
        """Schedule the page's followable links (and mark its other URLs seen)."""
        for extra in (page.final_url, page.canonical_url):
            if extra and extra != entry.url:
                self.frontier.mark_seen(extra)
        hops = entry.hops + 1
        links = self._followable(page, hops)
        for scored in self.strategy.score_links(replace(page, links=links), rel, entry.depth):
            anchor = scored.link.anchor if scored.link is not None else ""
            self.frontier.push(scored.url, scored.priority, scored.depth, hops, anchor)
        if self.rescore is not None:
            self.rescore(self.frontier)

    def _followable(self, page: Page, hops: int) -> list[Link]:
        """The page's links a crawl ``hops`` links from the seed may follow."""
        config = self.config
        if config.max_depth is not None and hops > config.max_depth:
            return []
        return [
            link
            for link in page.links
            if (config.follow_nofollow or not link.nofollow) and self._may_follow(link.url)
        ]

    def _may_follow(self, url: str) -> bool:
        """In scope and not a trap; remembered for the crawl (most pages of a site link to
        the same navigation)."""
        ok = self._follow.get(url)
        if ok is None:
            ok = self.in_scope(url) and urls.trap_reason(url) is None
            if len(self._follow) >= 20_000:
                self._follow.clear()
            self._follow[url] = ok
        return ok

    def waiting(self) -> int:
        """How many of this visit's items the end of the visit judges again (not pushed yet)."""
        return 0 if self.judge is None else self.judge.undecided()

    def finals(self) -> list[CrawlEvent]:
        """The end of the visit, one more event each for the pages the judgment now pushes
        and for those whose decision waited for the end (``provisional``) and is no push."""
        if self.judge is None:
            return []
        return [
            CrawlEvent(
                url=self._asked.get(url, url),
                final_url=url,
                status=200,
                depth=0,
                priority=0.0,
                relevance=0.0,
                matched=judgment.relevant,
                explanation=judgment.explanation,
                title=judgment.title,
                elapsed_ms=0.0,
                kind=judgment.kind,
                probability=judgment.probability,
                final=True,
            )
            for url, judgment in self.judge.finish(every=True)
            if judgment.relevant or url in self._waiting
        ]

    async def stop(self, on_checkpoint: Callable[[dict[str, Any]], None] | None) -> None:
        """Cancel the fetches in flight and save the last checkpoint (they are re-queued)."""
        for task in self.pending:
            task.cancel()
        if self.pending:
            await asyncio.gather(*self.pending, return_exceptions=True)
        if on_checkpoint:
            on_checkpoint(self.state(self.pending.values()))


def _failure(entry: Entry, result: _Fetched) -> CrawlEvent:
    """The event of a failed fetch."""
    return CrawlEvent(
        url=entry.url,
        final_url=entry.url,
        status=result.status,
        depth=entry.hops,
        priority=entry.priority,
        relevance=0.0,
        matched=False,
        explanation={},
        title="",
        elapsed_ms=result.elapsed_ms,
        error=result.error,
        error_kind=result.error_kind,
    )


def _fetch_in_child(config: CrawlConfig, client: httpx.AsyncClient | None) -> bool:
    """Whether the built-in fetcher runs in a child process (never with a given client)."""
    if client is not None:
        return False
    if config.fetch_process is not None:
        return config.fetch_process
    from crawler.fetchproc import available_cpus

    return (
        available_cpus() >= 2
        and config.max_pages >= FETCH_PROCESS_PAGES
        and config.fetch.concurrency >= 2  # one fetch at a time leaves nothing to overlap
    )


async def _open_fetcher(
    config: CrawlConfig, client: httpx.AsyncClient | None, profile: TopicProfile
) -> tuple[contextlib.AsyncExitStack, PageFetcher]:
    """The built-in fetcher, open, with the stack that closes it (``profile``: the crawl's
    topic, which says what to load while a fetch process starts)."""
    owned = contextlib.AsyncExitStack()
    source: PageFetcher
    if _fetch_in_child(config, client):
        from crawler.fetchproc import ProcessFetcher

        source = await owned.enter_async_context(ProcessFetcher(config.fetch))
        # the child takes most of a second to start: load the dictionary meanwhile, which the
        # first page would otherwise wait for, and the table that weighs Chinese words when
        # the topic is written in them (the judgment reads it for Chinese words only)
        textmod.load(idf=_written_in_chinese(profile))
    else:
        from crawler.fetch import Fetcher

        source = await owned.enter_async_context(Fetcher(config.fetch, client=client))
    return owned, source


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
    on_deciding: Callable[[int], None] | None = None,
) -> AsyncGenerator[CrawlEvent, None]:
    """Crawl from ``seeds`` for ``topic``; yield one event per fetched URL (see module doc).

    ``fetcher`` (anything with ``async fetch(url, etag=None, last_modified=None) -> Page``)
    replaces the built-in ``Fetcher(config.fetch, client=client)``; ``strategy`` replaces the
    one ``config.strategy`` names (e.g. an evaluation strategy that knows the truth).
    ``on_deciding(n)`` is called once the last fetch is done, before the end of the visit
    refits the judgment and judges again the ``n`` items not pushed yet (a pause of a second or
    a few on a visit of 1,000 pages, with no event meanwhile): a caller can say what it waits
    for. Not called when the visit has no judgment (a seed scorer) or nothing to judge again.
    """
    config = config or CrawlConfig()
    owned: contextlib.AsyncExitStack | None = None
    source: PageFetcher
    # the fetcher first: a fetch process starts while this one sets up the crawl
    profile = _profile(topic)
    if fetcher is None:
        owned, source = await _open_fetcher(config, client, profile)
    else:
        source = fetcher
    try:
        run = _Crawl(seeds, profile, config, checkpoint, strategy)
    except BaseException:
        if owned is not None:
            await owned.aclose()
        raise
    run.start_clock()
    try:
        while run.start_fetches(source):
            for task in await run.wait():
                yield run.handle(task, on_checkpoint)
        waiting = run.waiting()
        if on_deciding is not None and waiting:
            on_deciding(waiting)
        for ev in run.finals():
            yield ev
    finally:
        await run.stop(on_checkpoint)
        if owned is not None:
            await owned.aclose()
