"""Revisit policies: when to visit a site again (docs/algorithms.md §7, paper 001).

Pure functions and small classes, no database. A policy looks at a site's history and the
outcome of the visit that just ended and answers with a :class:`Decision` — the new ``T``,
the level, and the number of minutes until the next visit.

Policies (``TIMELYPUSH_REVISIT_POLICY``):

``seed``
    The seed's rule exactly as written: ``Level[1..5] = 20/200/1000/2000/10000`` minutes;
    ``T ×1.2`` after an unchanged visit, ``T ÷1.2`` after a changed one; the level ``L`` is the
    largest with ``Level[L] ≤ T`` (``T`` below 20 → level 1); the site is visited every
    ``Level[max(1, L − RssRank)]`` minutes. ``T`` is unbounded (a dead site drifts away forever,
    a busy one shrinks towards zero and then needs many unchanged visits to climb back).
``seed-clamped``
    The same with ``T`` clamped to ``[20, 10000]`` minutes.
``default``
    Ours, a budgeted policy. Each site's change rate λ is estimated from its visit history
    with Cho & Garcia-Molina's estimator ``λ̂ = −log((n − X + 0.5)/(n + 0.5)) / I`` (``n``
    visits at mean interval ``I``, ``X`` of them found a change; the counts decay so the
    estimate follows a site whose rhythm changes). Visits are then allocated
    ``∝ √(w·λ̂)`` under a global fetch budget ``B`` (visits per minute over all sites):
    ``interval_i = K / √(w_i·λ̂_i)`` with ``K = Σ_j √(w_j·λ̂_j) / B``.

    Why √λ: a site visited every ``I`` minutes with Poisson arrivals at rate λ delays each new
    item by ``I/2`` on average, so the mean delay over all items is
    ``Σ λ_i·I_i / (2·Σ λ_i)``. Minimising it subject to ``Σ 1/I_i = B`` (Lagrange) gives
    ``λ_i·I_i² = const``, i.e. ``I_i ∝ 1/√λ_i``, and the minimum mean delay
    ``D* = (Σ √λ_i)² / (2·B·Σ λ_i)``. With equal weights this is the optimum; a priority
    weight ``w = 2^priority`` biases visits towards the concerns their users ranked higher.

Every policy also honours server hints as *minimum* intervals (Cache-Control ``max-age``,
``Retry-After``, an RSS ``<ttl>``), clamps the final interval to ``[20, 10000]`` minutes except
for ``seed`` as written, and adds ±10 % jitter so a restart does not fire every site at once.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Protocol

LEVELS: tuple[float, ...] = (20.0, 200.0, 1000.0, 2000.0, 10000.0)
"""Level[1..5] in minutes, from the seed."""
FACTOR = 1.2
"""T is divided by this after a changed visit and multiplied after an unchanged one."""
T_MIN, T_MAX = LEVELS[0], LEVELS[-1]
MAX_RSS_RANK = 5
JITTER = 0.10
DECAY = 0.97
"""Per-visit decay of the estimator's counts: roughly the last 30 visits matter."""
LAMBDA_FLOOR = 1.0 / (60 * 24 * 90)
"""Lowest change rate we believe in (one change in 90 days), per minute."""
PRIOR_VISITS = 3.0
"""Below this many (decayed) visits the budgeted policy falls back to the clamped seed rule."""


def level_of(t_minutes: float) -> int:
    """The largest level ``L`` (1..5) with ``Level[L] ≤ T``; ``T`` below 20 min → 1."""
    level = 1
    for i, minutes in enumerate(LEVELS, start=1):
        if minutes <= t_minutes:
            level = i
    return level


def level_interval(level: int, rss_rank: int = 0) -> float:
    """Minutes between visits at ``level`` shifted by ``rss_rank``: ``Level[max(1, L − R)]``."""
    shifted = max(1, min(len(LEVELS), level) - max(0, rss_rank))
    return LEVELS[shifted - 1]


def next_t(t_minutes: float, changed: bool, *, clamp: bool = False) -> float:
    """The seed's update: ``T ÷ 1.2`` when the visit found something new, else ``T × 1.2``."""
    t = t_minutes / FACTOR if changed else t_minutes * FACTOR
    if clamp:
        t = min(T_MAX, max(T_MIN, t))
    return t


def cho_rate(visits: float, changes: float, mean_interval: float) -> float:
    """Cho & Garcia-Molina's change-rate estimate (changes per unit of ``mean_interval``).

    ``λ̂ = −log((n − X + 0.5) / (n + 0.5)) / I``: unbiased-ish for small ``n`` and finite even
    when every visit found a change (``X = n``).
    """
    if visits <= 0 or mean_interval <= 0:
        return 0.0
    changes = min(max(changes, 0.0), visits)
    return -math.log((visits - changes + 0.5) / (visits + 0.5)) / mean_interval


def priority_weight(priority: int) -> float:
    """The budgeted policy's weight of a concern priority (0..5): ``2^priority``."""
    return float(2 ** max(0, min(MAX_RSS_RANK, priority)))


@dataclass(frozen=True)
class Hints:
    """What the server told us about how often to come back (all optional)."""

    max_age_seconds: float | None = None
    retry_after_seconds: float | None = None
    feed_ttl_minutes: float | None = None

    def min_interval_minutes(self) -> float | None:
        """The longest of the hinted intervals: a visit earlier than this is wasted."""
        values = [v / 60.0 for v in (self.max_age_seconds, self.retry_after_seconds) if v and v > 0]
        if self.feed_ttl_minutes and self.feed_ttl_minutes > 0:
            values.append(self.feed_ttl_minutes)
        return max(values) if values else None


@dataclass(frozen=True)
class Estimate:
    """Decayed visit statistics of one site (stored as JSON between visits)."""

    visits: float = 0.0
    changes: float = 0.0
    minutes: float = 0.0

    def observe(self, interval_minutes: float, changed: bool, decay: float = DECAY) -> Estimate:
        return Estimate(
            visits=self.visits * decay + 1.0,
            changes=self.changes * decay + (1.0 if changed else 0.0),
            minutes=self.minutes * decay + max(0.0, interval_minutes),
        )

    def rate_per_minute(self) -> float:
        if self.visits <= 0 or self.minutes <= 0:
            return LAMBDA_FLOOR
        rate = cho_rate(self.visits, self.changes, self.minutes / self.visits)
        return max(LAMBDA_FLOOR, rate)

    def to_dict(self) -> dict[str, float]:
        return {"visits": self.visits, "changes": self.changes, "minutes": self.minutes}

    @classmethod
    def from_dict(cls, data: dict[str, float] | None) -> Estimate:
        data = data or {}
        return cls(
            visits=float(data.get("visits", 0.0)),
            changes=float(data.get("changes", 0.0)),
            minutes=float(data.get("minutes", 0.0)),
        )


@dataclass(frozen=True)
class History:
    """A site's revisit state before the visit that just ended."""

    t_minutes: float = 200.0
    priority: int = 0
    estimate: Estimate = field(default_factory=Estimate)
    last_interval_minutes: float = 0.0
    """Minutes since the previous visit (0 for the first one)."""


@dataclass(frozen=True)
class Decision:
    """The new revisit state and when to come back."""

    t_minutes: float
    level: int
    interval_minutes: float
    estimate: Estimate
    reason: str = ""


class RevisitPolicy(Protocol):
    """``decide(history, changed, hints)`` → the next :class:`Decision`."""

    name: str

    def decide(self, history: History, changed: bool, hints: Hints | None = None) -> Decision: ...


def _observed(history: History, changed: bool) -> Estimate:
    """The estimate with this visit counted; a first visit observes no interval, so no count."""
    if history.last_interval_minutes <= 0:
        return history.estimate
    return history.estimate.observe(history.last_interval_minutes, changed)


def _bounded(interval: float, hints: Hints | None, *, clamp: bool = True) -> float:
    hinted = hints.min_interval_minutes() if hints else None
    if hinted is not None:
        interval = max(interval, hinted)
    if clamp:
        interval = min(T_MAX, max(T_MIN, interval))
    return interval


@dataclass
class SeedPolicy:
    """The seed's levels; ``clamp=True`` bounds ``T`` to [20, 10000] minutes."""

    clamp: bool = False
    name: str = "seed"

    def __post_init__(self) -> None:
        if self.clamp and self.name == "seed":
            self.name = "seed-clamped"

    def decide(self, history: History, changed: bool, hints: Hints | None = None) -> Decision:
        t = next_t(history.t_minutes, changed, clamp=self.clamp)
        level = level_of(t)
        interval = level_interval(level, history.priority)
        estimate = _observed(history, changed)
        return Decision(
            t_minutes=t,
            level=level,
            interval_minutes=_bounded(interval, hints, clamp=self.clamp),
            estimate=estimate,
            reason=f"T={t:.0f} min → Level[{level}], RssRank {history.priority}",
        )


@dataclass
class BudgetedPolicy:
    """Visits ∝ √(w·λ̂) under a global budget: ``interval = K / √(w·λ̂)`` minutes.

    ``k`` is the budget constant ``Σ_j √(w_j·λ̂_j) / B`` (see :func:`budget_constant`); the
    caller recomputes it from all sites now and then. Until a site has a few visits the clamped
    seed rule decides, and ``T`` keeps following that rule so switching policies is smooth.
    """

    k: float
    name: str = "default"

    def decide(self, history: History, changed: bool, hints: Hints | None = None) -> Decision:
        t = next_t(history.t_minutes, changed, clamp=True)
        estimate = _observed(history, changed)
        if estimate.visits < PRIOR_VISITS or self.k <= 0:
            interval = level_interval(level_of(t), history.priority)
            reason = "warming up: clamped seed levels"
        else:
            rate = estimate.rate_per_minute()
            interval = self.k / math.sqrt(priority_weight(history.priority) * rate)
            reason = f"λ̂={rate * 1440:.3g}/day, K={self.k:.3g}"
        interval = _bounded(interval, hints)
        return Decision(
            t_minutes=t,
            level=level_of(interval),
            interval_minutes=interval,
            estimate=estimate,
            reason=reason,
        )


def budget_constant(weighted_rates: list[tuple[float, float]], budget_per_minute: float) -> float:
    """``K = Σ √(w·λ̂) / B`` for (weight, rate-per-minute) pairs and a fetch budget ``B``."""
    if budget_per_minute <= 0:
        return 0.0
    return sum(math.sqrt(w * r) for w, r in weighted_rates if w > 0 and r > 0) / budget_per_minute


def make_policy(name: str, *, k: float = 0.0) -> RevisitPolicy:
    """The policy called ``name`` (``seed``, ``seed-clamped``, ``default``)."""
    if name == "seed":
        return SeedPolicy(clamp=False)
    if name == "seed-clamped":
        return SeedPolicy(clamp=True)
    if name == "default":
        return BudgetedPolicy(k=k)
    raise ValueError(f"unknown revisit policy {name!r}; choose seed, seed-clamped or default")


POLICIES = ("seed", "seed-clamped", "default")


def jittered(minutes: float, rng: random.Random | None = None, spread: float = JITTER) -> float:
    """``minutes`` × U(1 − spread, 1 + spread): spreads sites that were due together."""
    r = (rng or random).uniform(-spread, spread)
    return minutes * (1.0 + r)


def hints_from_headers(headers: dict[str, str] | None, body: str | None = None) -> Hints:
    """Read ``Cache-Control: max-age``, ``Retry-After`` (seconds or HTTP date), RSS ``<ttl>``."""
    import re
    from email.utils import parsedate_to_datetime

    lower = {k.lower(): v for k, v in (headers or {}).items()}
    max_age = retry = ttl = None
    cache = lower.get("cache-control", "")
    m = re.search(r"(?:^|[,\s])max-age\s*=\s*(\d+)", cache)
    if m and "no-cache" not in cache and "no-store" not in cache:
        max_age = float(m.group(1))
    value = lower.get("retry-after", "").strip()
    if value.isdigit():
        retry = float(value)
    elif value:
        try:
            from datetime import UTC, datetime

            when = parsedate_to_datetime(value)
            retry = max(0.0, (when - datetime.now(UTC)).total_seconds())
        except (TypeError, ValueError):
            retry = None
    if body:
        t = re.search(r"<ttl>\s*(\d+)\s*</ttl>", body[:20000], flags=re.I)
        if t:
            ttl = float(t.group(1))
    return Hints(max_age_seconds=max_age, retry_after_seconds=retry, feed_ttl_minutes=ttl)
