"""One site visit: ``crawl_site(site_id)`` — one crawl for every concern on the site.

1. Lock the site (Redis or the database row, with expiry: see ``app.services.locks``).
2. Build one topic profile per enabled concern and their union for the crawl.
3. With a stored ETag / Last-Modified, ask the seed first with a conditional GET: a 304 is
   an unchanged visit and costs one request.
4. Crawl (resuming from ``sites.checkpoint`` if a previous worker died mid-crawl); each page
   is written in its own transaction — Page, Links, and per-concern Matches with the
   delivery outbox rows (``delivery.enqueue_for_matches``) — so a kill loses nothing and a
   retry doubles nothing.
5. Write the CrawlRun row and the site's revisit state (policy from settings; "changed" =
   the visit found new in-scope pages).
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sqlalchemy import func, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app import metrics
from app.core.config import Settings, get_settings
from app.core.db import get_engine
from app.models import STRATEGIES, Concern, CrawlRun, Match, Page, Site, utcnow
from app.services import outbox_wake, revisit, sites
from app.services.crawl_store import (
    ConcernScorer,
    insert_links,
    judge_rest,
    load_recent_simhashes,
    match_page,
    upsert_page,
)
from app.services.feedback import feedback_examples
from app.services.locks import Heartbeat, SiteLock, site_lock

if TYPE_CHECKING:
    import httpx

    from crawler import CrawlConfig, CrawlEvent, Fetcher

logger = logging.getLogger(__name__)

K_CACHE_SECONDS = 300.0
CHECKPOINT_EVERY = 20
"""Pages between two saved crawl checkpoints (and lock renewals)."""
_k_cache: dict[str, tuple[float, float]] = {}


def crawl_site(
    site_id: int,
    *,
    settings: Settings | None = None,
    engine: Engine | None = None,
    client: httpx.AsyncClient | None = None,
) -> dict[str, Any]:
    """Visit one site now if no other worker is; returns a summary (``VisitSummary.to_dict``:
    ``status`` …, JSON-able for the task queue)."""
    settings = settings or get_settings()
    engine = engine or get_engine()
    beat = settings.crawl_heartbeat_seconds
    lock = site_lock(site_id, engine=engine, redis_url=settings.redis_url, ttl=beat * 3)
    if not lock.acquire():
        logger.info("site %s is being crawled by another worker; skipped", site_id)
        return VisitSummary(site_id=site_id, status="locked").to_dict()
    try:
        with Heartbeat(lock, beat):  # the lock lives exactly as long as this process crawls
            return _visit(site_id, settings, engine, lock, client).to_dict()
    finally:
        lock.release()
        outbox_wake.flush()


def _profiles(concerns: list[Concern], session: Session | None = None) -> list[ConcernScorer]:
    from crawler import SENSITIVITY, Judge, TopicProfile

    scorers = []
    for c in concerns:
        base = TopicProfile.from_keywords(c.keywords, c.synonyms, c.exclude, params=c.params)
        if c.learned_terms:
            base = TopicProfile(
                base.keywords,
                base.synonyms,
                base.exclude,
                learned=dict(c.learned_terms),
                params=dict(c.params),
            )
        if c.scorer != "model":
            scorers.append(ConcernScorer(concern=c, profile=base, method=c.scorer))
            continue
        params = {**c.params, "threshold": SENSITIVITY.get(c.sensitivity, SENSITIVITY["balanced"])}
        judge = Judge(
            base,
            params=params,
            state=c.model_state or None,
            feedback=feedback_examples(session, c.id or 0) if session is not None else (),
            blocked=c.blocked_terms,
        )
        scorers.append(ConcernScorer(concern=c, profile=base, method="kp", judge=judge))
    return scorers


def visit_budget(settings: Settings, concern: Concern) -> int:
    """The pages one visit may fetch for ``concern``: its budget, times
    ``crawl_first_visit_factor`` while it has no model yet. Judged as four visits of 200
    pages, the first 800 pages of a crawl were pushed with about as many wrong pages as right
    ones on a one-keyword topic (Chinese F1 0.61 / 0.62); judged as one visit, at 0.79 / 0.77
    (docs/benchmarks.md, "A concern's first visit reads more of the site")."""
    if not first_visit(concern):
        return concern.max_pages
    return int(concern.max_pages * settings.crawl_first_visit_factor)


def first_visit(concern: Concern) -> bool:
    """Whether the concern's next visit is its first: it has no model yet (new, or its
    keywords changed)."""
    return not concern.model_state


def crawl_config(settings: Settings, site: Site, concerns: list[Concern]) -> CrawlConfig:
    """The CrawlConfig of one visit: settings for fetching, the concerns for the budget."""
    from crawler import CrawlConfig, FetchConfig, forget_items

    fetch = FetchConfig(
        user_agent=settings.user_agent,
        concurrency=settings.crawl_concurrency,
        per_host=settings.crawl_per_host,
        delay=settings.crawl_delay,
        total_timeout=settings.crawl_timeout,
        read_timeout=min(settings.crawl_timeout, 20.0),
        max_bytes=settings.crawl_max_bytes,
        proxy=settings.proxy,
        allowlist=tuple(settings.allowlist),
    )
    # the strategy most of the site's concerns chose; a tie goes to the one listed first
    # (the default leads the list), never to set order
    chosen = [c.strategy for c in concerns]
    strategy = min(
        set(chosen),
        key=lambda s: (-chosen.count(s), STRATEGIES.index(s) if s in STRATEGIES else 99),
    )
    params: dict[str, float] = {}
    for c in concerns:
        params.update(c.params or {})
    learned = (site.checkpoint or {}).get("learned") or {}
    steer = learned.get("steer")
    if any(first_visit(c) for c in concerns):
        # the items the site's last visits fetched are new to a concern's first visit: they
        # are not passed over
        steer = forget_items(steer)
    return CrawlConfig(
        max_pages=max(visit_budget(settings, c) for c in concerns),
        time_limit=settings.crawl_time_limit,
        scope=site.scope,
        strategy=strategy,
        params=params,
        fetch=fetch,
        checkpoint_every=CHECKPOINT_EVERY,
        # each concern's own judgment model decides its matches (crawl_store.match_page); the
        # engine's judgment of the merged topic steers the crawl (which links first) and
        # starts from what the site's last visit learned
        scorer="model",
        judge_state=learned.get("judge"),
        strategy_state=steer,
    )


def _visit(
    site_id: int,
    settings: Settings,
    engine: Engine,
    lock: SiteLock,
    client: httpx.AsyncClient | None,
) -> VisitSummary:
    with Session(engine, expire_on_commit=False) as session:
        site = session.get(Site, site_id)
        if site is None:
            return VisitSummary(site_id=site_id, status="missing")
        concerns = list(
            session.exec(
                select(Concern).where(Concern.site_id == site_id, col(Concern.enabled).is_(True))
            )
        )
        if not concerns:
            site.next_visit_at = None
            session.add(site)
            session.commit()  # the crawl job's own session (no request edge around a visit)
            return VisitSummary(site_id=site_id, status="idle")
        if _host_busy(session, site, settings):
            # two sites on one host (a portal's home and its sport section) read at once
            # would each keep the delay between requests, and together halve it
            logger.info("site %s: another visit reads its host now; skipped", site_id)
            return VisitSummary(site_id=site_id, status="locked")
        scorers = _profiles(concerns, session)
        for s in scorers:
            s.recent_simhashes = load_recent_simhashes(session, s.concern.id or 0)
        config = crawl_config(settings, site, concerns)
        signals = not told_since(session, site_id, scorers)
        # we hold the lock, so a run still "running" belongs to a worker that died
        session.exec(
            update(CrawlRun)
            .where(col(CrawlRun.site_id) == site_id, col(CrawlRun.status) == "running")
            .values(status="interrupted", finished_at=utcnow())
        )
        run = CrawlRun(site_id=site_id, strategy=config.strategy, status="running")
        session.add(run)
        session.commit()  # the run is visible as running while the crawl goes on
        resume = (site.checkpoint or {}).get("crawl")
    started = time.perf_counter()
    state = _RunState(run_id=run.id or 0)
    error: str | None = None
    try:
        asyncio.run(
            _crawl(
                site,
                scorers,
                config,
                resume,
                engine,
                lock,
                state,
                client=client,
                lock_ttl=settings.crawl_heartbeat_seconds * 3,
                feed_signal=settings.revisit_feed_signal,
                signals=signals,
            )
        )
    except Exception as exc:  # the crawl failed as a whole (seed refused …): record it
        from crawler import CrawlerError

        if not isinstance(exc, CrawlerError):
            raise
        error = f"{type(exc).__name__}: {exc}"[:2000]
        logger.warning("site %s crawl failed: %s", site_id, error)
    elapsed = time.perf_counter() - started
    changed = state.pages_new > 0
    summary = _finish(site_id, run.id or 0, settings, engine, state, changed, error, elapsed)
    metrics.CRAWLS.labels(status=summary.status).inc()
    return summary


def _host_busy(session: Session, site: Site, settings: Settings) -> bool:
    """Whether a visit of another site whose seed is on this site's host runs now (a run
    started within twice the visit time limit and not finished)."""
    host = urlsplit(site.seed_url).hostname
    since = utcnow() - timedelta(seconds=2 * settings.crawl_time_limit)
    seeds = session.exec(
        select(col(Site.seed_url))
        .join(CrawlRun, col(CrawlRun.site_id) == col(Site.id))
        .where(
            col(CrawlRun.status) == "running",
            col(CrawlRun.site_id) != site.id,
            col(CrawlRun.started_at) >= since,
        )
    )
    return any(urlsplit(seed).hostname == host for seed in seeds)


@dataclass(frozen=True)
class VisitSummary:
    """What one ``crawl_site`` call did. A visit that did not crawl (``locked``, ``missing``,
    ``idle``) has no run: its summary is only the site and the status."""

    site_id: int
    status: str
    run_id: int | None = None
    pages_fetched: int = 0
    pages_new: int = 0
    pages_matched: int = 0
    matches: int = 0
    changed: bool = False
    next_visit_minutes: float | None = None

    def to_dict(self) -> dict[str, Any]:
        if self.run_id is None:
            return {"site_id": self.site_id, "status": self.status}
        return asdict(self)


@dataclass
class _RunState:
    """The running state of one crawl, written into the CrawlRun row and the site at the end."""

    pages_fetched: int = 0
    pages_new: int = 0
    pages_matched: int = 0
    matches: int = 0
    errors: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)
    """Failed fetches by ``CrawlEvent.error_kind`` (the documented ``FetchError.kind``)."""
    not_modified: bool = False
    run_id: int = 0
    """The CrawlRun row the visit's progress is written to as it goes (0: none)."""
    harvest: list[list[int]] = field(default_factory=list)
    seed_etag: str | None = None
    seed_feeds: list[str] = field(default_factory=list)
    feed: dict[str, Any] | None = None
    signal: str = "crawl"
    retry_after: float | None = None
    seed_last_modified: str | None = None
    checkpoint: dict[str, Any] | None = None
    learned: dict[str, Any] = field(default_factory=dict)
    """What the crawl learned about the site (strategy and judgment), for its next visit."""
    extended_at: float = field(default_factory=time.monotonic)


async def _crawl(
    site: Site,
    scorers: list[ConcernScorer],
    config: CrawlConfig,
    resume: dict[str, Any] | None,
    engine: Engine,
    lock: SiteLock,
    state: _RunState,
    *,
    client: httpx.AsyncClient | None = None,
    lock_ttl: float = 900.0,
    feed_signal: bool = True,
    signals: bool = True,
) -> None:
    from crawler import Fetcher, TopicProfile, crawl

    merged = TopicProfile.merged([s.profile for s in scorers])
    # the cheap change signals tell whether the site changed; a concern that has not judged
    # its pages yet, or whose user taught it since, needs the pages whatever they say
    cheap = not resume and signals
    async with Fetcher(config.fetch, client=client) as fetcher:
        if cheap and feed_signal and site.feed_url:
            if await _feed_unchanged(fetcher, site, engine, state):
                return
        elif cheap and (site.etag or site.last_modified):
            try:
                seed = await fetcher.fetch(
                    site.seed_url, etag=site.etag, last_modified=site.last_modified
                )
            except Exception as exc:
                state.retry_after = getattr(exc, "retry_after", None)
                raise
            if seed.not_modified:
                state.not_modified = True
                state.signal = "seed-304"
                state.pages_fetched = 1
                return

        def on_checkpoint(checkpoint: dict[str, Any]) -> None:
            # the engine counts the page it is about to yield as done: persist the state only
            # once that page is stored, so a kill in between loses nothing
            state.checkpoint = checkpoint
            state.learned = {k: checkpoint[k] for k in ("steer", "judge") if checkpoint.get(k)}

        events = crawl(
            [site.seed_url],
            merged,
            config,
            fetcher=fetcher,
            checkpoint=resume,
            on_checkpoint=on_checkpoint,
        )
        async for event in events:
            if event.page is not None and not event.error:
                _store(engine, site, scorers, event, state)
            elif event.error:
                state.errors += 1
                kind = event.error_kind or "other"
                state.error_kinds[kind] = state.error_kinds.get(kind, 0) + 1
                metrics.FETCH_ERRORS.labels(kind=kind).inc()
            if state.checkpoint is not None and not _checkpoint(engine, site, scorers, state):
                break
            if time.monotonic() - state.extended_at > lock_ttl / 3:
                state.extended_at = time.monotonic()
                if not lock.extend():
                    logger.warning("site %s: lost the crawl lock", site.id)
        _end_of_visit(engine, scorers, state)


def told_since(session: Session, site_id: int, scorers: list[ConcernScorer]) -> bool:
    """Whether a concern on the site has not judged the site's pages as it stands now: no
    finished visit began since it was created or changed (``sites.visited_since``; another
    concern's visits may have left the seed answering 304 to a concern that never saw a page
    of it, and one added during a visit was not part of it), or its user taught its model
    since (verdicts, words, sensitivity: ``Judge.taught_since``). Its visit reads the site
    even when the seed or the feed says nothing changed."""
    return any(
        (s.judge is not None and s.judge.taught_since)
        or not sites.visited_since(session, site_id, s.concern.updated_at)
        for s in scorers
    )


def profile_terms(learned: list[tuple[str, float]], top: float = 0.5) -> dict[str, float]:
    """The model's strongest words as topic-profile terms: weights scaled into (0, ``top``],
    below the user's own keywords (1), as the profile's learned terms always are."""
    if not learned:
        return {}
    heaviest = max(w for _, w in learned)
    return {t: round(top * w / heaviest, 4) for t, w in learned if w > 0}


def _end_of_visit(engine: Engine, scorers: list[ConcernScorer], state: _RunState) -> None:
    """Judge the visit's remaining items once more with everything the visit taught each
    concern's model; then keep each model (and its strongest terms) for the next visit."""
    judged = [s for s in scorers if s.judge is not None]
    if not judged:
        return
    with Session(engine, expire_on_commit=False) as session:
        created = judge_rest(session, judged)
        queued = _enqueue(session, created) if created else 0
        for scorer in judged:
            concern = session.get(Concern, scorer.concern.id)
            if concern is None:
                continue
            concern.model_state = scorer.judge.state()
            concern.learned_terms = profile_terms(scorer.judge.learned_terms(20))
            session.add(concern)
        session.commit()  # before the wake: the sender must find the queued rows
    outbox_wake.wake(new=bool(queued))
    if created:
        state.pages_matched += len({m.page_id for m in created})
        state.matches += len(created)
        metrics.MATCHES.inc(len(created))
    if state.pages_fetched:
        # the end of the visit judged again: most of what the model alone carries is
        # pushed here, and the visit's harvest ends where its totals do
        state.harvest.append([state.pages_fetched, state.pages_matched])


async def _feed_unchanged(fetcher: Fetcher, site: Site, engine: Engine, state: _RunState) -> bool:
    """The cheap change signal: the site's feed answers 304, or lists only known pages.

    One request instead of a crawl. A feed that cannot be fetched says nothing: crawl.
    """
    from crawler import FetchError

    if not site.feed_url:
        return False
    saved = (site.checkpoint or {}).get("feed") or {}
    try:
        feed = await fetcher.fetch(
            site.feed_url, etag=saved.get("etag"), last_modified=saved.get("last_modified")
        )
    except FetchError as exc:
        logger.info("site %s: feed %s unavailable (%s); crawling", site.id, site.feed_url, exc)
        state.retry_after = getattr(exc, "retry_after", None)
        return False
    state.feed = {
        "etag": feed.etag or saved.get("etag"),
        "last_modified": feed.last_modified or saved.get("last_modified"),
    }
    items = sorted({link.url[:2048] for link in feed.links})
    unchanged = feed.not_modified
    if not unchanged and items:
        with Session(engine) as session:
            known = session.exec(
                select(func.count()).select_from(Page).where(col(Page.canonical_url).in_(items))
            ).one()
        unchanged = int(known) >= len(items)
    if unchanged:
        state.not_modified = True
        state.pages_fetched = 1
        state.signal = "feed"
    return bool(unchanged)


def _store(
    engine: Engine, site: Site, scorers: list[ConcernScorer], event: CrawlEvent, state: _RunState
) -> None:
    """Write one page and its matches in one transaction (the outbox rides along)."""
    page = event.page
    assert page is not None  # only fetched pages are stored
    state.pages_fetched += 1
    metrics.PAGES.inc()
    if event.depth == 0 and not page.is_feed:
        state.seed_etag, state.seed_last_modified = page.etag, page.last_modified
        state.seed_feeds = list(page.feeds)
    if page.not_modified:
        return
    with Session(engine, expire_on_commit=False) as session:
        row, is_new, _changed = upsert_page(session, page, site.id or 0)
        insert_links(session, row.id or 0, page.links)
        created = match_page(session, row, page, scorers, anchor=event.anchor)
        queued = _enqueue(session, created) if created else 0
        session.commit()  # each page on its own, before the wake: pushes go out mid-crawl
    outbox_wake.wake(new=bool(queued))
    if is_new:
        state.pages_new += 1
    if created:
        state.pages_matched += 1
        state.matches += len(created)
        metrics.MATCHES.inc(len(created))
    if state.pages_fetched % 10 == 0 and len(state.harvest) < 200:
        state.harvest.append([state.pages_fetched, state.pages_matched])
    if state.pages_fetched in _EARLY_PROGRESS:
        _write_progress(engine, state)  # before the first checkpoint, the list showed 0 pages


def _enqueue(session: Session, matches: list[Match]) -> int:
    """Write the matches' instant deliveries (the outbox); returns rows added."""
    from app.services import delivery

    return delivery.enqueue_for_matches(session, matches)


def _checkpoint(engine: Engine, site: Site, scorers: list[ConcernScorer], state: _RunState) -> bool:
    """Save the visit's checkpoint; whether the visit goes on. A concern deleted while its
    site is read is judged no further; with none left, the visit ends (it read on for
    minutes, for no one)."""
    assert state.checkpoint is not None
    live = _save_checkpoint(engine, site.id or 0, state.checkpoint, state)
    state.checkpoint = None
    scorers[:] = [s for s in scorers if s.concern.id in live]
    if not scorers:
        logger.info("site %s: no concern follows it any more; visit ended", site.id)
    return bool(scorers)


_EARLY_PROGRESS = frozenset({1, 5, 10})
"""Pages after which a visit's count is written before its first checkpoint (at 20 pages, a
polite visit of one host reaches it after 20 s or more)."""


def _write_progress(engine: Engine, state: _RunState) -> None:
    """The visit's counts so far on its run (the user sees them grow while it runs)."""
    with Session(engine) as session:
        _counts_on_run(session, state)
        session.commit()


def _counts_on_run(session: Session, state: _RunState) -> None:
    run = session.get(CrawlRun, state.run_id) if state.run_id else None
    if run is not None and run.status == "running":
        run.pages_fetched, run.pages_new = state.pages_fetched, state.pages_new
        run.pages_matched, run.errors = state.pages_matched, state.errors
        session.add(run)


def _save_checkpoint(
    engine: Engine, site_id: int, checkpoint: dict[str, Any], state: _RunState
) -> set[int]:
    """Keep the crawl's checkpoint on the site, and the visit's progress so far on its run
    (pages fetched, new, matched, errors: the user sees the count grow while it runs);
    returns the ids of the concerns that follow the site now."""
    with Session(engine) as session:
        live = set(session.exec(select(col(Concern.id)).where(col(Concern.site_id) == site_id)))
        site = session.get(Site, site_id)
        if site is not None:
            site.checkpoint = {**(site.checkpoint or {}), "crawl": checkpoint}
            session.add(site)
        _counts_on_run(session, state)
        session.commit()  # a checkpoint must outlive the crawl's process to resume it
    return {int(i) for i in live if i is not None}


def budget_constant(session: Session, settings: Settings) -> float:
    """``K = Σ √(w·λ̂) / B`` over all sites with enabled concerns (cached a few minutes)."""
    key = settings.sqlalchemy_url
    cached = _k_cache.get(key)
    if cached and time.monotonic() - cached[1] < K_CACHE_SECONDS:
        return cached[0]
    prio = (
        select(col(Concern.site_id), func.max(Concern.priority))
        .where(col(Concern.enabled).is_(True))
        .group_by(col(Concern.site_id))
    )
    priorities = {sid: p for sid, p in session.exec(prio) if sid is not None}
    rows = session.exec(select(col(Site.id), col(Site.checkpoint))).all()
    pairs = [
        (
            revisit.priority_weight(priorities[sid]),
            revisit.Estimate.from_dict((cp or {}).get("revisit")).rate_per_minute(),
        )
        for sid, cp in rows
        if sid in priorities
    ]
    budget = settings.revisit_budget_per_day or len(pairs) * 1440.0 / 200.0
    k = revisit.budget_constant(pairs, budget / 1440.0)
    _k_cache[key] = (k, time.monotonic())
    return k


def _finish(
    site_id: int,
    run_id: int,
    settings: Settings,
    engine: Engine,
    state: _RunState,
    changed: bool,
    error: str | None,
    elapsed: float,
) -> VisitSummary:
    now = utcnow()
    with Session(engine, expire_on_commit=False) as session:
        site = session.get(Site, site_id)
        run = session.get(CrawlRun, run_id)
        assert site is not None and run is not None
        priority = session.exec(
            select(func.max(Concern.priority)).where(
                Concern.site_id == site_id, col(Concern.enabled).is_(True)
            )
        ).first()
        k = budget_constant(session, settings) if settings.revisit_policy == "default" else 0.0
        policy = revisit.make_policy(settings.revisit_policy, k=k)
        since = (now - site.last_visit_at).total_seconds() / 60.0 if site.last_visit_at else 0.0
        history = revisit.History(
            t_minutes=site.revisit_t_minutes,
            priority=int(priority or 0),
            estimate=revisit.Estimate.from_dict((site.checkpoint or {}).get("revisit")),
            last_interval_minutes=since,
        )
        # server hints are minimum intervals: Retry-After from this visit, and the site's
        # stored minimum (operators may set one per site)
        hints = revisit.Hints(
            retry_after_seconds=state.retry_after, feed_ttl_minutes=site.min_interval_minutes
        )
        decision = policy.decide(history, changed, hints)
        interval = revisit.jittered(decision.interval_minutes, random.Random())  # noqa: S311
        site.revisit_t_minutes = decision.t_minutes
        site.level = decision.level
        added = session.exec(
            select(func.count()).where(
                Concern.site_id == site_id,
                col(Concern.enabled).is_(True),
                col(Concern.updated_at) > run.started_at,
            )
        ).one()
        # a concern added or changed while this visit ran was not part of it: the next visit
        # goes at once (it reads the site for that concern), not after the interval
        site.next_visit_at = now if added else now + timedelta(minutes=interval)
        site.last_visit_at = now
        site.visits += 1
        if changed:
            site.changes += 1
            site.last_change_at = now
        if state.seed_etag or state.seed_last_modified:
            site.etag = (state.seed_etag or "")[:512] or None
            site.last_modified = (state.seed_last_modified or "")[:128] or None
        if not site.feed_url and state.seed_feeds:
            site.feed_url = state.seed_feeds[0][:2048]
        feed = state.feed or (site.checkpoint or {}).get("feed")
        learned = state.learned or (site.checkpoint or {}).get("learned")
        site.checkpoint = {"revisit": decision.estimate.to_dict()}
        if feed:
            site.checkpoint["feed"] = feed
        if learned:
            site.checkpoint["learned"] = learned
        status = "failed" if error else ("not_modified" if state.not_modified else "ok")
        run.status = status
        run.finished_at = now
        run.pages_fetched = state.pages_fetched
        run.pages_new = state.pages_new
        run.pages_matched = state.pages_matched
        run.errors = state.errors
        run.error = error
        run.stats = {
            "elapsed_s": round(elapsed, 3),
            "matches": state.matches,
            "changed": changed,
            "signal": state.signal,
            "error_kinds": state.error_kinds,
            "harvest": state.harvest,
            "harvest_rate": (
                state.pages_matched / state.pages_fetched if state.pages_fetched else 0.0
            ),
            "revisit": {
                "policy": policy.name,
                "t_minutes": round(decision.t_minutes, 2),
                "level": decision.level,
                "interval_minutes": round(interval, 2),
                "reason": decision.reason,
            },
        }
        session.add_all([site, run])
        session.commit()  # the crawl job's own session (no request edge around a visit)
    logger.info(
        "site %s visited: %s, %d pages (%d new, %d matched), next in %.0f min",
        site_id,
        status,
        state.pages_fetched,
        state.pages_new,
        state.pages_matched,
        interval,
    )
    return VisitSummary(
        site_id=site_id,
        status=status,
        run_id=run_id,
        pages_fetched=state.pages_fetched,
        pages_new=state.pages_new,
        pages_matched=state.pages_matched,
        matches=state.matches,
        changed=changed,
        next_visit_minutes=interval if math.isfinite(interval) else None,
    )
