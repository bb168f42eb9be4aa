"""`timelypush bench revisit`: revisit policies compared offline at an equal fetch budget.

N sources publish new items as Poisson processes. Rates are log-normal (median
``--median-rate`` items/day, σ = ``--sigma``), and ``--dead`` of the sources are near-dead
(one item per ~100 days). Every policy is simulated for ``--warmup`` days (to settle), then
measured over ``--days`` days, and keeps running 7 more days so late items can still be seen.

Equal budget: all policies make the same number of fetches in the measured window (±2 %).
By default the budget is what the seed's rule as written spends by itself; ``--budget F``
sets F fetches per source per day instead. The seed's rules and Nutch's are proportional
controllers whose fetch count does not respond to a time scale, so their knob is the
change-side factor (``÷1.2^β``, ``×0.8^β``; β = 1 as written), found by bisection; uniform
and ours are scaled by an interval multiplier.

Reported per policy: mean / median / p95 detection delay of items (an item not seen within
7 days counts as 7 days and as a miss), freshness (time-average share of sources with no
unseen item), fetches per visit that found a change, fetches. ``bound_mean_delay_h`` is
D* = (Σ√λᵢ)² / (2·B·Σλᵢ), the least mean delay any periodic schedule with B fetches/day can
reach knowing the true rates.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import typer

from app.services.revisit import DECAY, FACTOR, LEVELS, PRIOR_VISITS

MIN = 1.0 / 1440.0
"""One minute in days (the simulation's time unit is the day)."""
CAP_DAYS = 7.0
LEVELS_D = tuple(x * MIN for x in LEVELS)
LO, HI = LEVELS_D[0], LEVELS_D[-1]
POLICY_NAMES = ("uniform", "seed-levels", "seed-levels-clamped", "nutch", "default")


@dataclass
class World:
    """The simulated sources and their item arrivals (sorted by source, then time)."""

    rates: Any  # items/day per source
    a_src: Any
    a_time: Any
    a_key: Any
    span: float
    warmup: float
    days: float

    @property
    def end(self) -> float:
        return self.warmup + self.days + CAP_DAYS

    @property
    def n(self) -> int:
        return int(self.rates.size)


def make_world(
    sources: int,
    days: float,
    seed: int,
    *,
    sigma: float,
    median_rate: float,
    dead: float,
    warmup: float,
) -> World:
    import numpy as np

    rng = np.random.default_rng(seed)
    rates = median_rate * np.exp(sigma * rng.standard_normal(sources))
    near_dead = rng.random(sources) < dead
    rates[near_dead] = 0.01
    total = warmup + days + CAP_DAYS
    counts = rng.poisson(rates * total)
    a_src = np.repeat(np.arange(sources), counts)
    a_time = rng.random(a_src.size) * total
    span = total + 1.0
    a_key = a_src * span + a_time
    order = np.argsort(a_key, kind="stable")
    return World(rates, a_src[order], a_time[order], a_key[order], span, warmup, days)


# --- policies: each is a factory (world, knob, budget_per_day) -> step(idx, changed, dt) -------


def _uniform(world: World, knob: float, budget: float) -> Callable[..., Any]:
    import numpy as np

    interval = knob * world.n / budget

    def step(idx: Any, changed: Any, dt: Any) -> Any:
        return np.full(idx.size, interval)

    return step


def _seed(clamp: bool) -> Callable[..., Callable[..., Any]]:
    def factory(world: World, knob: float, budget: float) -> Callable[..., Any]:
        import numpy as np

        t = np.full(world.n, 200.0 * MIN)
        levels = np.asarray(LEVELS_D)
        down = FACTOR**knob

        def step(idx: Any, changed: Any, dt: Any) -> Any:
            tt = np.where(changed, t[idx] / down, t[idx] * FACTOR)
            if clamp:
                tt = np.clip(tt, LO, HI)
            t[idx] = tt
            level = np.clip(np.searchsorted(levels, tt, side="right"), 1, len(levels))
            return levels[level - 1]

        return step

    return factory


def _nutch(world: World, knob: float, budget: float) -> Callable[..., Any]:
    import numpy as np

    interval = np.full(world.n, 200.0 * MIN)
    down = 0.8**knob

    def step(idx: Any, changed: Any, dt: Any) -> Any:
        value = np.clip(np.where(changed, interval[idx] * down, interval[idx] * 1.4), LO, HI)
        interval[idx] = value
        return value

    return step


def _default(world: World, knob: float, budget: float) -> Callable[..., Any]:
    """Ours: Cho & Garcia-Molina's estimate with decayed counts, visits ∝ √λ̂ under B."""
    import numpy as np

    n = np.zeros(world.n)
    x = np.zeros(world.n)
    minutes = np.zeros(world.n)
    floor = 1.0 / 90.0
    rate = np.full(world.n, floor)
    warm = knob * world.n / budget  # the uniform interval until a source has a history

    def step(idx: Any, changed: Any, dt: Any) -> Any:
        n[idx] = n[idx] * DECAY + 1.0
        x[idx] = x[idx] * DECAY + changed
        minutes[idx] = minutes[idx] * DECAY + dt
        ni, xi, mi = n[idx], x[idx], minutes[idx]
        mean_i = np.where(mi > 0, mi / ni, 1.0)
        est = -np.log((ni - xi + 0.5) / (ni + 0.5)) / mean_i
        rate[idx] = np.maximum(est, floor)
        k = np.sqrt(rate).sum() / budget
        value = knob * k / np.sqrt(rate[idx])
        value = np.where(ni < PRIOR_VISITS, warm, value)
        return np.clip(value, LO, HI)

    return step


FACTORIES: dict[str, Callable[..., Callable[..., Any]]] = {
    "uniform": _uniform,
    "seed-levels": _seed(clamp=False),
    "seed-levels-clamped": _seed(clamp=True),
    "nutch": _nutch,
    "default": _default,
}
KNOB = {
    "uniform": "interval×",
    "default": "interval×",
    "seed-levels": "β",
    "seed-levels-clamped": "β",
    "nutch": "β",
}


def run_policy(world: World, name: str, knob: float, budget: float, seed: int) -> Any:
    """Simulate one policy; returns (visit_src, visit_time) sorted by (source, time)."""
    import numpy as np

    rng = np.random.default_rng(seed + 1)
    step = FACTORIES[name](world, knob, budget)
    t = rng.random(world.n) * (world.n / budget)  # random phases within one uniform interval
    last = np.zeros(world.n)
    seen = np.searchsorted(world.a_key, np.arange(world.n) * world.span, side="left")
    out_src, out_t = [], []
    active = np.flatnonzero(t < world.end)
    while active.size:
        tt = t[active]
        out_src.append(active)
        out_t.append(tt)
        count = np.searchsorted(world.a_key, active * world.span + tt, side="right")
        changed = count > seen[active]
        seen[active] = count
        interval = step(active, changed.astype(float), tt - last[active])
        last[active] = tt
        t[active] = tt + interval
        active = active[t[active] < world.end]
    v_src = np.concatenate(out_src)
    v_t = np.concatenate(out_t)
    order = np.argsort(v_src * world.span + v_t, kind="stable")
    return v_src[order], v_t[order]


def window_fetches(world: World, v_t: Any) -> int:
    import numpy as np

    return int(np.count_nonzero((v_t >= world.warmup) & (v_t < world.warmup + world.days)))


def measure(world: World, v_src: Any, v_t: Any) -> dict[str, float]:
    import numpy as np

    lo, hi = world.warmup, world.warmup + world.days
    v_key = v_src * world.span + v_t
    # detection delay of items arriving in the window
    items = (world.a_time >= lo) & (world.a_time < hi)
    a_key, a_src, a_t = world.a_key[items], world.a_src[items], world.a_time[items]
    j = np.searchsorted(v_key, a_key, side="left")
    jc = np.minimum(j, v_key.size - 1)
    found = (j < v_key.size) & (v_src[jc] == a_src)
    delay = np.where(found, v_t[jc] - a_t, CAP_DAYS)
    miss = delay > CAP_DAYS
    delay = np.minimum(delay, CAP_DAYS)
    # visits that found a change, and stale time (first unseen item → the visit that sees it)
    prev_same = np.concatenate(([False], v_src[1:] == v_src[:-1]))
    prev_key = np.concatenate(([0.0], v_key[:-1]))
    prev_key = np.where(prev_same, prev_key, v_src * world.span)
    first_new = np.searchsorted(world.a_key, prev_key, side="right")
    fc = np.minimum(first_new, world.a_key.size - 1)
    changed = (first_new < world.a_key.size) & (world.a_key[fc] <= v_key)
    in_window = (v_t >= lo) & (v_t < hi)
    stale_from = np.where(changed, world.a_time[fc], v_t)
    stale = np.clip(v_t, lo, hi) - np.clip(stale_from, lo, hi)
    fetches = int(np.count_nonzero(in_window))
    detections = int(np.count_nonzero(changed & in_window))
    hours = 24.0
    return {
        "mean_delay_h": float(delay.mean() * hours) if delay.size else 0.0,
        "median_delay_h": float(np.median(delay) * hours) if delay.size else 0.0,
        "p95_delay_h": float(np.percentile(delay, 95) * hours) if delay.size else 0.0,
        "miss_rate": float(miss.mean()) if miss.size else 0.0,
        "freshness": float(1.0 - stale.sum() / (world.n * world.days)),
        "fetches_per_detection": fetches / detections if detections else math.inf,
        "fetches": fetches,
    }


def _solve(
    world: World, name: str, budget: float, target: int, seed: int
) -> tuple[float, Any, Any, int]:
    """Find the knob that spends ``target`` fetches (±1 %): interval multiplier or β."""
    import numpy as np

    def spend(knob: float) -> tuple[int, Any, Any]:
        v_src, v_t = run_policy(world, name, knob, budget, seed)
        return window_fetches(world, v_t), v_src, v_t

    knob = 1.0
    fetches, v_src, v_t = spend(knob)
    # fetches fall as the interval multiplier grows and rise as β grows
    sign = -1.0 if KNOB[name] == "interval×" else 1.0
    lo = hi = None
    for _ in range(40):
        if abs(fetches - target) <= 0.01 * target:
            break
        too_many = fetches > target
        if (too_many and sign < 0) or (not too_many and sign > 0):
            lo = knob  # the knob must grow
        else:
            hi = knob
        if lo is not None and hi is not None:
            knob = math.sqrt(lo * hi)
        else:
            ratio = (fetches / target) if sign < 0 else (target / fetches)
            knob = knob * float(np.clip(ratio, 0.25, 4.0)) ** (1.0 if sign < 0 else 2.0)
        fetches, v_src, v_t = spend(knob)
    return knob, v_src, v_t, fetches


def simulate(
    sources: int = 10_000,
    days: float = 30.0,
    seed: int = 1,
    *,
    sigma: float = 1.75,
    median_rate: float = 1.0,
    dead: float = 0.2,
    warmup: float = 14.0,
    budget: float | None = None,
    policies: tuple[str, ...] = POLICY_NAMES,
) -> dict[str, Any]:
    """Run every policy at one fetch budget; the JSON-able report."""
    import numpy as np

    started = time.perf_counter()
    world = make_world(
        sources, days, seed, sigma=sigma, median_rate=median_rate, dead=dead, warmup=warmup
    )
    results: dict[str, dict[str, Any]] = {}
    if budget is None:
        v_src, v_t = run_policy(world, "seed-levels", 1.0, sources, seed)
        target = window_fetches(world, v_t)
    else:
        target = round(budget * sources * days)
    per_day = target / days
    for name in policies:
        knob, v_src, v_t, _ = _solve(world, name, per_day, target, seed)
        results[name] = measure(world, v_src, v_t) | {"knob": {KNOB[name]: round(knob, 4)}}
    lam = world.rates
    bound = float(np.sqrt(lam).sum() ** 2 / (2.0 * per_day * lam.sum()))
    return {
        "policies": results,
        "bound_mean_delay_h": bound * 24.0,
        "budget_fetches": target,
        "budget_per_source_day": target / (sources * days),
        "params": {
            "sources": sources,
            "days": days,
            "seed": seed,
            "sigma": sigma,
            "median_rate_per_day": median_rate,
            "dead_share": dead,
            "warmup_days": warmup,
        },
        "elapsed_s": round(time.perf_counter() - started, 2),
    }


def _table(report: dict[str, Any]) -> str:
    lines = [
        f"{'policy':<20} {'mean h':>8} {'median h':>9} {'p95 h':>8} {'miss':>7} "
        f"{'fresh':>6} {'f/det':>6} {'fetches':>9}  knob"
    ]
    for name, r in report["policies"].items():
        knob = ", ".join(f"{k}={v}" for k, v in r["knob"].items())
        lines.append(
            f"{name:<20} {r['mean_delay_h']:>8.2f} {r['median_delay_h']:>9.2f} "
            f"{r['p95_delay_h']:>8.2f} {r['miss_rate']:>7.4f} {r['freshness']:>6.3f} "
            f"{r['fetches_per_detection']:>6.2f} {r['fetches']:>9}  {knob}"
        )
    lines.append(
        f"bound D* = {report['bound_mean_delay_h']:.2f} h at {report['budget_fetches']} fetches "
        f"({report['budget_per_source_day']:.2f} per source per day); "
        f"{report['elapsed_s']} s"
    )
    return "\n".join(lines)


def revisit(
    sources: int = typer.Option(10_000, help="Number of simulated sources."),
    days: float = typer.Option(30.0, help="Measured days (after the warm-up)."),
    seed: int = typer.Option(1, help="Random seed."),
    budget: float = typer.Option(
        0.0, help="Fetches per source per day; 0 = what the seed's rule spends by itself."
    ),
    sigma: float = typer.Option(1.75, help="σ of the log-normal item rates."),
    median_rate: float = typer.Option(1.0, help="Median items per day of a live source."),
    dead: float = typer.Option(0.2, help="Share of near-dead sources (0.01 items/day)."),
    warmup: float = typer.Option(14.0, help="Days simulated before measuring."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Compare revisit policies on simulated Poisson sources at an equal fetch budget."""
    report = simulate(
        sources,
        days,
        seed,
        sigma=sigma,
        median_rate=median_rate,
        dead=dead,
        warmup=warmup,
        budget=budget or None,
    )
    typer.echo(json.dumps(report) if as_json else _table(report))


def register(bench_cli: typer.Typer) -> None:
    """Add `bench revisit` to the bench group."""
    bench_cli.command("revisit")(revisit)
