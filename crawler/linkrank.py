"""PageRank over the crawled subgraph, kept cheap as the crawl grows (docs/algorithms.md §6.4–6.6).

The graph holds every fetched page and every URL they link to (fetched or not), as integer node
ids keyed by 64-bit URL hashes, with edges in compact arrays. Ranks use the *mean-1* scale of
formula (1) of seed 000: R(u) = (1 − d) + d·Σ_v R(v)·share(v→u), so the sum of R is the number
of nodes and an average page has R ≈ 1. (The thesis's formula 4-1 is the d → 1 limit with seeds
at R = 1.) Shares are uniform for PageRank and proportional to the link weights (RW) for
IPageRank; pages without out-links spread their rank uniformly.

Cost model — never a full recomputation per fetched page:

* **incremental**: when a page is fetched, its current estimate R(v) is pushed to its children
  (``acc[c] += d·R(v)·share(v→c)``): exactly the thesis's "R(u) = Σ over fetched parents",
  O(out-degree) per page;
* **periodic**: every ``max(every, every_frac·pages)`` fetched pages a sparse power iteration
  (numpy ``bincount`` over the edge arrays, warm-started from the current estimates) replaces
  the estimates with the converged PageRank. Its cost is O(edges × iterations), and with the
  geometric interval the total stays close to linear in the crawl.

How R is put on sim's [0, 1] scale (``normalized``): ``"sum"`` divides by the number of nodes
(the probability scale, Σ = 1; topic PageRank's default, see ``strategies.TopicPageRank``),
``"max"`` divides by the largest R seen (the top hub gets 1), ``"mean"`` clips the mean-1 R
to [0, 1] (an average page gets 1), ``"none"`` returns the raw mean-1 value.
"""

from __future__ import annotations

import hashlib
import logging
from array import array
from collections.abc import Sequence

import numpy as np

logger = logging.getLogger(__name__)

__all__ = ["LinkGraph", "pagerank", "url_key"]


def url_key(url: str) -> int:
    """A 64-bit hash of a canonical URL (signed, so it is a small Python int and JSON-safe)."""
    return int.from_bytes(
        hashlib.blake2b(url.encode(), digest_size=8).digest(), "little", signed=True
    )


def pagerank(
    n: int,
    src: np.ndarray,
    dst: np.ndarray,
    weight: np.ndarray | None = None,
    *,
    d: float = 0.85,
    start: np.ndarray | None = None,
    restart: np.ndarray | None = None,
    tol: float = 1e-6,
    max_iter: int = 50,
) -> tuple[np.ndarray, int]:
    """Mean-1 (weighted) PageRank of an edge list by power iteration; returns (R, iterations).

    ``restart``: where the walk starts again (and where pages without out-links send their
    rank), on the same scale (it sums to ``n``); every node alike when None. A restart on a
    few nodes gives their personalized PageRank: how near each node is to them.
    ``tol`` is the mean absolute change per node at which iteration stops.
    """
    if n == 0:
        return np.zeros(0), 0
    w = np.ones(len(src)) if weight is None else weight.astype(float)
    wsum = np.bincount(src, weights=w, minlength=n)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(wsum[src] > 0, w / wsum[src], 0.0)
    dangling = wsum == 0
    # a scalar for every node alike: no array per iteration for the ordinary PageRank
    base: float | np.ndarray = 1.0 if restart is None else restart.astype(float)
    r = np.ones(n) if start is None or len(start) != n else start.astype(float)
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007
        spread = base * (r[dangling].sum() / n)
        new = (1.0 - d) * base + d * (
            np.bincount(dst, weights=r[src] * share, minlength=n) + spread
        )
        delta = float(np.abs(new - r).mean())
        r = new
        if delta < tol:
            break
    return r, it


class LinkGraph:
    """The crawled link graph with incremental and periodic (I)PageRank."""

    def __init__(
        self,
        *,
        d: float = 0.85,
        every: int = 100,
        every_frac: float = 0.1,
        tol: float = 1e-6,
        max_iter: int = 50,
    ) -> None:
        self.d = d
        self.every = every
        self.every_frac = every_frac
        self.tol = tol
        self.max_iter = max_iter
        self._ids: dict[int, int] = {}
        self._src = array("i")
        self._dst = array("i")
        self._w = array("d")
        self._acc = array("d")
        self._expanded = bytearray()
        self.pages = 0
        self.recomputations = 0
        self._since = 0
        self._max = 1.0

    def __len__(self) -> int:
        return len(self._acc)

    @property
    def edges(self) -> int:
        return len(self._src)

    def _node(self, key: int, initial: float) -> int:
        idx = self._ids.get(key)
        if idx is None:
            idx = len(self._acc)
            self._ids[key] = idx
            self._acc.append(initial)
            self._expanded.append(0)
        return idx

    def add_seed(self, url: str) -> None:
        """Seeds start at R = 1 (thesis table 4-1)."""
        idx = self._node(url_key(url), 1.0)
        self._acc[idx] = max(self._acc[idx], 1.0)

    def rank(self, url: str) -> float:
        """Current mean-1 estimate of R(url) (1 − d for a URL nobody links to yet)."""
        idx = self._ids.get(url_key(url))
        return self._acc[idx] if idx is not None else 1.0 - self.d

    def normalized(self, url: str, mode: str = "max") -> float:
        """R on sim's [0, 1] scale: ``sum`` (R / nodes), ``max`` (R / max R), ``mean`` (min(1, R))
        or ``none`` (raw mean-1 R)."""
        r = self.rank(url)
        if mode == "max":
            return min(1.0, r / self._max)
        if mode == "mean":
            return min(1.0, r)
        if mode == "sum":
            return r / max(1, len(self._acc))
        if mode == "none":
            return r
        raise ValueError(f"unknown R normalisation {mode!r}: max, mean, sum or none")

    def add_page(
        self, url: str, links: Sequence[str], weights: Sequence[float] | None = None
    ) -> float:
        """Record a fetched page and its out-links; return its R at fetch time.

        The page's current estimate is pushed to its children (incremental step); every
        ``max(every, every_frac·pages)`` pages the whole graph is recomputed.
        """
        v = self._node(url_key(url), 1.0 - self.d)
        r_v = self._acc[v]
        if self._expanded[v]:
            return r_v
        self._expanded[v] = 1
        self.pages += 1
        self._since += 1
        targets: dict[int, float] = {}
        for i, link in enumerate(links):
            c = self._node(url_key(link), 1.0 - self.d)
            if c != v:
                w = 1.0 if weights is None else float(weights[i])
                targets[c] = max(targets.get(c, 0.0), w)
        total = sum(targets.values())
        for c, w in targets.items():
            self._src.append(v)
            self._dst.append(c)
            self._w.append(w)
            if total > 0:
                self._acc[c] += self.d * r_v * w / total
                self._max = max(self._max, self._acc[c])
        if self._since >= max(self.every, int(self.every_frac * self.pages)):
            self.recompute()
        return r_v

    def recompute(self) -> None:
        """Replace the estimates with the converged PageRank of the current graph."""
        n = len(self._acc)
        src = np.frombuffer(self._src, dtype=np.int32) if self._src else np.zeros(0, np.int32)
        dst = np.frombuffer(self._dst, dtype=np.int32) if self._dst else np.zeros(0, np.int32)
        w = np.frombuffer(self._w, dtype=np.float64) if self._w else np.zeros(0)
        start = np.frombuffer(self._acc, dtype=np.float64).copy()
        r, iters = pagerank(
            n, src, dst, w, d=self.d, start=start, tol=self.tol, max_iter=self.max_iter
        )
        self._acc = array("d", r.tolist())
        self._max = max(1.0, float(r.max()) if n else 1.0)
        self._since = 0
        self.recomputations += 1
        logger.debug("pagerank: %d nodes, %d edges, %d iterations", n, len(self._src), iters)
