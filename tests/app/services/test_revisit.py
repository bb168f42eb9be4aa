"""Revisit policies: the seed's level arithmetic exactly, and the options beyond it."""

from __future__ import annotations

import math
import random

import pytest

from app.services.revisit import (
    BudgetedPolicy,
    Estimate,
    Hints,
    History,
    SeedPolicy,
    budget_constant,
    cho_rate,
    hints_from_headers,
    jittered,
    level_interval,
    level_of,
    make_policy,
    next_t,
)


def test_seed_example_t_250_minutes_is_level_2_every_200_minutes() -> None:
    assert level_of(250) == 2
    assert level_interval(level_of(250), 0) == 200


@pytest.mark.parametrize(
    ("t", "level"),
    [
        (5, 1),
        (19.9, 1),
        (20, 1),
        (199.9, 1),
        (200, 2),
        (999, 2),
        (1000, 3),
        (1999, 3),
        (2000, 4),
        (9999, 4),
        (10000, 5),
        (1e9, 5),
    ],
)
def test_level_is_the_largest_with_level_le_t(t: float, level: int) -> None:
    assert level_of(t) == level


def test_rss_rank_shifts_the_level_down_but_never_below_one() -> None:
    # the seed: Level[5] with RssRank 3 → Level[2] = 200 minutes
    assert level_interval(5, 3) == 200
    assert level_interval(5, 0) == 10000
    assert level_interval(5, 5) == 20
    assert level_interval(2, 4) == 20
    assert level_interval(3, 1) == 200


def test_t_times_or_divided_by_1_2() -> None:
    assert next_t(250, changed=False) == pytest.approx(300)
    assert next_t(300, changed=True) == pytest.approx(250)
    # as written T is unbounded; clamped it stays in [20, 10000]
    assert next_t(10000, changed=False) == pytest.approx(12000)
    assert next_t(10000, changed=False, clamp=True) == 10000
    assert next_t(20, changed=True) == pytest.approx(20 / 1.2)
    assert next_t(20, changed=True, clamp=True) == 20


def test_seed_policy_decides_interval_from_t_and_priority() -> None:
    policy = SeedPolicy()
    d = policy.decide(History(t_minutes=250 * 1.2, priority=0), changed=True)
    assert d.t_minutes == pytest.approx(250)
    assert (d.level, d.interval_minutes) == (2, 200)
    d = policy.decide(History(t_minutes=10000, priority=3), changed=False)
    assert (d.level, d.interval_minutes) == (5, 200)


def test_seed_as_written_drifts_and_clamped_does_not() -> None:
    t_seed = t_clamped = 200.0
    for _ in range(100):
        t_seed = SeedPolicy().decide(History(t_minutes=t_seed), changed=False).t_minutes
        t_clamped = (
            make_policy("seed-clamped")
            .decide(History(t_minutes=t_clamped), changed=False)
            .t_minutes
        )
    assert t_seed > 1e9
    assert t_clamped == 10000
    # a dead site under the unclamped rule needs dozens of changed visits to come back
    visits = 0
    while level_of(t_seed) > 1:
        t_seed = next_t(t_seed, changed=True)
        visits += 1
    assert visits > 60


def test_server_hints_are_minimum_intervals() -> None:
    hints = Hints(max_age_seconds=3600, retry_after_seconds=600, feed_ttl_minutes=30)
    assert hints.min_interval_minutes() == 60
    d = SeedPolicy(clamp=True).decide(History(t_minutes=20), changed=True, hints=hints)
    assert d.interval_minutes == 60
    parsed = hints_from_headers(
        {"Cache-Control": "public, max-age=7200", "Retry-After": "120"},
        "<rss><channel><ttl>45</ttl></channel></rss>",
    )
    assert parsed == Hints(max_age_seconds=7200, retry_after_seconds=120, feed_ttl_minutes=45)
    assert hints_from_headers({"Cache-Control": "no-cache, max-age=60"}).max_age_seconds is None


def test_cho_estimator() -> None:
    # no change seen: rate 0; every visit changed: finite
    assert cho_rate(10, 0, 60) == 0
    assert cho_rate(10, 10, 60) == pytest.approx(math.log(21) / 60)
    # converges on a Poisson source: p(change) = 1 - exp(-λI)
    lam, interval = 1 / 120, 60.0
    p = 1 - math.exp(-lam * interval)
    assert cho_rate(10_000, 10_000 * p, interval) == pytest.approx(lam, rel=0.01)


def test_budgeted_policy_visits_in_proportion_to_sqrt_rate() -> None:
    fast = Estimate(visits=10, changes=9, minutes=600)
    slow = Estimate(visits=10, changes=1, minutes=6000)
    k = budget_constant([(1.0, fast.rate_per_minute()), (1.0, slow.rate_per_minute())], 2 / 300)
    policy = BudgetedPolicy(k=k)
    d_fast = policy.decide(History(estimate=fast, last_interval_minutes=60), changed=True)
    d_slow = policy.decide(History(estimate=slow, last_interval_minutes=600), changed=False)
    assert d_fast.interval_minutes < d_slow.interval_minutes
    r_fast = d_fast.estimate.rate_per_minute()
    r_slow = d_slow.estimate.rate_per_minute()
    assert d_slow.interval_minutes / d_fast.interval_minutes == pytest.approx(
        math.sqrt(r_fast / r_slow), rel=1e-6
    )
    # a higher priority shortens the interval
    d_prio = policy.decide(
        History(estimate=slow, last_interval_minutes=600, priority=2), changed=False
    )
    assert d_prio.interval_minutes == pytest.approx(d_slow.interval_minutes / 2)


def test_budgeted_policy_warms_up_on_clamped_levels() -> None:
    d = BudgetedPolicy(k=1.0).decide(History(t_minutes=250), changed=False)
    assert d.interval_minutes == 200
    assert d.estimate.visits == 0  # a first visit observes no interval
    d = BudgetedPolicy(k=1.0).decide(
        History(t_minutes=250, last_interval_minutes=200), changed=False
    )
    assert d.estimate.visits == 1 and d.estimate.minutes == 200


def test_jitter_is_bounded() -> None:
    rng = random.Random(1)
    values = [jittered(100, rng) for _ in range(1000)]
    assert min(values) >= 90 and max(values) <= 110
    assert max(values) - min(values) > 10
