"""PageRank over the crawled subgraph: the power iteration, weights, incremental updates."""

from __future__ import annotations

import numpy as np
import pytest

from crawler.linkrank import LinkGraph, pagerank


def test_pagerank_of_a_small_graph_matches_the_closed_form() -> None:
    # 0 → 1, 0 → 2, 1 → 2, 2 → 0 (no dangling nodes)
    src, dst = np.array([0, 0, 1, 2]), np.array([1, 2, 2, 0])
    r, _ = pagerank(3, src, dst, tol=1e-12, max_iter=500)
    d = 0.85
    # R0 = (1-d) + d·R2, R1 = (1-d) + d·R0/2, R2 = (1-d) + d·(R0/2 + R1)
    a = np.array([[1, 0, -d], [-d / 2, 1, 0], [-d / 2, -d, 1]])
    assert r == pytest.approx(np.linalg.solve(a, np.full(3, 1 - d)))
    assert r.sum() == pytest.approx(3)  # mean-1 scale


def test_a_restart_on_one_node_gives_its_personalized_pagerank() -> None:
    # a path 0 – 1 – 2 – 3, links both ways; the walk starts again at node 0 only
    src, dst = np.array([0, 1, 1, 2, 2, 3]), np.array([1, 0, 2, 1, 3, 2])
    restart = np.array([4.0, 0.0, 0.0, 0.0])  # on the mean-1 scale: sums to n
    d = 0.3
    r, _ = pagerank(4, src, dst, d=d, restart=restart, tol=1e-14, max_iter=500)
    # R = (1-d)·restart + d·Pᵀ·R, P row-stochastic over each node's links
    p = np.array([[0, 1, 0, 0], [0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5], [0, 0, 1, 0]])
    expected = np.linalg.solve(np.eye(4) - d * p.T, (1 - d) * restart)
    assert r == pytest.approx(expected)
    assert r[1] > r[2] > r[3] > 0 and r.sum() == pytest.approx(4)
    # no restart given: every node alike, as before
    uniform, _ = pagerank(4, src, dst, d=d, tol=1e-14, max_iter=500)
    alike, _ = pagerank(4, src, dst, d=d, restart=np.ones(4), tol=1e-14, max_iter=500)
    assert uniform == pytest.approx(alike)


def test_weighted_shares_follow_the_weights() -> None:
    src, dst = np.array([0, 0]), np.array([1, 2])
    r, _ = pagerank(3, src, dst, np.array([3.0, 1.0]), tol=1e-12, max_iter=500)
    # both children are dangling and get the same spread; only node 0's shares differ
    assert r[1] - r[2] == pytest.approx(0.85 * r[0] * (3 / 4 - 1 / 4))


def test_incremental_estimate_is_the_thesis_sum_over_fetched_parents() -> None:
    g = LinkGraph(every=1000)
    g.add_seed("s")
    assert g.add_page("s", ["a", "b"]) == 1.0
    assert g.rank("a") == pytest.approx(0.15 + 0.85 / 2)
    g.add_page("a", ["b", "c"])
    assert g.rank("b") == pytest.approx(0.15 + 0.85 / 2 + 0.85 * (0.15 + 0.85 / 2) / 2)
    assert g.rank("never-seen") == pytest.approx(0.15)
    assert g.recomputations == 0
    assert g.normalized("s") == 1.0 and 0 < g.normalized("c") < 1


def test_recomputed_every_k_pages_not_every_page() -> None:
    g = LinkGraph(every=10, every_frac=0.5)
    for i in range(100):
        g.add_page(f"p{i}", [f"p{i + 1}", f"p{(i * 7) % 100}"])
    # at 10, 20, 30 (10 ≥ 0.5·k) then every k/2 pages: 45, 67 (≥ 0.5·45 = 22) …
    assert 3 <= g.recomputations <= 6
    assert g.pages == 100 and 190 <= g.edges <= 200  # self-links are dropped
    before = g.rank("p50")
    g.recompute()
    assert g.rank("p50") == pytest.approx(before, rel=0.5)


def test_refetch_does_not_duplicate_edges() -> None:
    g = LinkGraph()
    g.add_page("a", ["b", "b", "c"])
    g.add_page("a", ["b", "c"])
    assert g.edges == 2 and g.pages == 1
