"""`timelypush bench ranking`: what focus costs, on synthetic pages and graphs (no network).

* **ranking CPU per fetched page**, per strategy: kp scoring, term learning, and link scoring
  plus frontier pushes/pops, over a simulated crawl of a synthetic Chinese site;
* **PageRank cost** at 1k / 10k / 100k crawled pages: the incremental + every-k-pages graph
  (total and per page, number of recomputations) and one full recomputation, to show growth
  is roughly linear;
* **memory per queued and per seen URL** in the frontier, measured with tracemalloc.

Results go in docs/benchmarks.md ("Focus / ranking").
"""

from __future__ import annotations

import gc
import json
import random
import time
import tracemalloc
from typing import Any

import typer

_WORDS_TEXT = (
    "足球 中超 国足 梅西 联赛 比赛 球员 进球 教练 转会 国安 申花 恒大 积分榜 赛程 战报 "
    "篮球 天气 股市 基金 房价 手机 电影 音乐 旅游 美食 汽车 教育 医疗 科技 游戏 明星 "
    "经济 政策 公司 市场 发布 新品 报道 记者 今天 昨日 北京 上海 广州 深圳 城市 时间"
)
WORDS = tuple(_WORDS_TEXT.split())
TOPIC_WORDS = ("足球", "中超", "国足", "梅西", "进球", "联赛")
OTHER_WORDS = tuple(w for w in WORDS if w not in TOPIC_WORDS)


def register(bench_cli: typer.Typer) -> None:
    """Add `bench ranking` to the bench group."""
    bench_cli.command("ranking")(ranking_cmd)


def _phrase(rng: random.Random, n: int, topical: bool) -> str:
    """``n`` words; on-topic phrases carry one topic word per three words."""
    words = [rng.choice(OTHER_WORDS) for _ in range(n)]
    if topical:
        for k in rng.sample(range(n), max(1, n // 3)):
            words[k] = rng.choice(TOPIC_WORDS)
    return " ".join(words)


def synthetic_site(pages: int, out_degree: int, seed: int = 0) -> dict[str, Any]:
    """A site of ``pages`` pages; a third are on topic (their titles and, for half of them, meta
    keywords name topic words); links prefer pages of the same kind and anchors describe the
    target."""
    from crawler.types import Link, Page

    rng = random.Random(seed)
    topical = [rng.random() < 0.33 for _ in range(pages)]
    site: dict[str, Any] = {}
    for i in range(pages):
        links = []
        for _ in range(out_degree):
            j = rng.randrange(pages)
            if topical[j] != topical[i] and rng.random() < 0.5:
                j = rng.randrange(pages)
            links.append(Link(f"http://bench.test/{j}", anchor=_phrase(rng, 3, topical[j])))
        site[f"http://bench.test/{i}"] = Page(
            url=f"http://bench.test/{i}",
            final_url=f"http://bench.test/{i}",
            status=200,
            title=_phrase(rng, 6, topical[i]),
            meta_keywords=_phrase(rng, 4, topical[i] and rng.random() < 0.5).replace(" ", ","),
            text=" ".join(_phrase(rng, 20, topical[i] and k % 3 == 0) for k in range(15)),
            links=links,
        )
    return site


def bench_strategy(
    name: str, site: dict[str, Any], pages: int, params: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Simulate a crawl of ``pages`` pages with ``name``; CPU µs per page by stage."""
    from crawler.frontier import Frontier
    from crawler.profile import TopicProfile
    from crawler.relevance import score_page
    from crawler.strategies import make_strategy

    profile = TopicProfile.from_keywords(list(TOPIC_WORDS[:3]))
    strategy = make_strategy(name, profile, params)
    frontier = Frontier(per_host=1_000_000)
    seed = strategy.seed("http://bench.test/0")
    frontier.push(seed.url, seed.priority, seed.depth)
    t_score = t_learn = t_links = 0.0
    fetched = matched = 0
    while fetched < pages:
        c0 = time.process_time()
        entry = frontier.pop()
        if entry is None:
            break
        frontier.done(entry)
        page = site[entry.url]
        c1 = time.process_time()
        rel = score_page(page, profile, method=strategy.relevance_method)
        c2 = time.process_time()
        profile.learn(page, rel)
        c3 = time.process_time()
        for s in strategy.score_links(page, rel, entry.depth):
            frontier.push(s.url, s.priority, s.depth, entry.hops + 1)
        c4 = time.process_time()
        t_score += c2 - c1
        t_learn += c3 - c2
        t_links += (c4 - c3) + (c1 - c0)
        fetched += 1
        matched += rel.matched
    n = max(1, fetched)
    return {
        "strategy": name,
        "pages": fetched,
        "harvest": round(matched / n, 3),
        "score_us": round(t_score / n * 1e6),
        "learn_us": round(t_learn / n * 1e6),
        "links_us": round(t_links / n * 1e6),
        "total_us": round((t_score + t_learn + t_links) / n * 1e6),
        "learned": sorted(profile.learned),
    }


def bench_pagerank(pages: int, out_degree: int = 30, seed: int = 0) -> dict[str, Any]:
    """Grow a LinkGraph to ``pages`` fetched pages (site-like links); time it."""
    import numpy as np

    from crawler.linkrank import LinkGraph, pagerank

    rng = random.Random(seed)
    graph = LinkGraph()
    graph.add_seed("u0")
    start = time.process_time()
    for i in range(pages):
        # half the links go to a few hundred hub/navigation pages, half anywhere known so far
        links = [
            f"u{rng.randrange(300)}" if k % 2 else f"u{rng.randrange(max(1, i * 3))}"
            for k in range(out_degree)
        ]
        graph.add_page(f"u{i}", links)
    total = time.process_time() - start
    n = len(graph)
    src = np.frombuffer(graph._src, dtype=np.int32).copy()
    dst = np.frombuffer(graph._dst, dtype=np.int32).copy()
    c0 = time.process_time()
    _, iterations = pagerank(n, src, dst)
    full = time.process_time() - c0
    return {
        "pages": pages,
        "nodes": n,
        "edges": graph.edges,
        "recomputations": graph.recomputations,
        "total_s": round(total, 3),
        "per_page_us": round(total / pages * 1e6, 1),
        "full_recompute_ms": round(full * 1e3, 1),
        "iterations": iterations,
    }


def bench_memory(urls: int) -> dict[str, Any]:
    """Bytes per queued URL and per seen (fetched) URL in the frontier."""
    from crawler.frontier import Frontier

    names = [f"http://news.example.com/2024/05/{i:07d}/article.shtml" for i in range(urls)]
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    frontier = Frontier(per_host=urls + 1)
    for i, url in enumerate(names):
        frontier.push(url, (i % 97) / 97, 2, 1)
    queued = tracemalloc.get_traced_memory()[0] - base
    while (entry := frontier.pop()) is not None:
        frontier.done(entry)
    gc.collect()
    seen = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return {
        "urls": urls,
        "url_string_bytes": round(sum(len(u) + 49 for u in names) / urls),
        "queued_bytes_per_url": round(queued / urls),
        "seen_bytes_per_url": round(seen / urls),
        "seen_count": frontier.seen_count,
    }


def ranking_cmd(
    pages: int = typer.Option(2000, "--pages", help="Pages per simulated crawl."),
    sizes: str = typer.Option("1000,10000,100000", "--sizes", help="PageRank graph sizes."),
    memory_urls: int = typer.Option(100_000, "--memory-urls", help="URLs for the memory test."),
    strategies: str = typer.Option(
        "bfs,fish,fish-kp,pagerank,topic-pagerank,ipagerank,statistical,adaptive", "--strategies"
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
) -> None:
    """CPU per fetched page by strategy, PageRank cost by graph size, memory per URL."""
    from crawler import text

    text.tokenize("足球")  # jieba's one-time dictionary load is not ranking cost
    site = synthetic_site(5 * pages, 30)  # the crawl sees a fifth of the site
    ranking = [bench_strategy(name.strip(), site, pages) for name in strategies.split(",")]
    scales = [
        bench_strategy("topic-pagerank", site, pages, {"r_norm": norm})
        for norm in ("sum", "max", "mean")
    ]
    pr = [bench_pagerank(int(size)) for size in sizes.split(",")]
    memory = bench_memory(memory_urls)
    if as_json:
        typer.echo(
            json.dumps({"ranking": ranking, "pagerank": pr, "memory": memory}, ensure_ascii=False)
        )
        return
    typer.echo(
        f"Ranking CPU per fetched page ({pages} pages, 30 links each, keywords 足球,中超,国足)\n"
    )
    typer.echo("| strategy | harvest | kp score µs | learn µs | links+frontier µs | total µs |")
    typer.echo("|---|---|---|---|---|---|")
    for r in ranking:
        typer.echo(
            f"| {r['strategy']} | {r['harvest']:.1%} | {r['score_us']} | {r['learn_us']} "
            f"| {r['links_us']} | {r['total_us']} |"
        )
    typer.echo("\nTopic PageRank harvest by R scale (r_norm; γ = 0.8)\n")
    typer.echo("| r_norm | harvest |")
    typer.echo("|---|---|")
    for norm, r in zip(("sum", "max", "mean"), scales, strict=True):
        typer.echo(f"| {norm} | {r['harvest']:.1%} |")
    typer.echo("\nPageRank over the crawled graph (30 links per page)\n")
    typer.echo(
        "| pages | nodes | edges | recomputations | total s | µs per page | full recompute ms |"
    )
    typer.echo("|---|---|---|---|---|---|---|")
    for r in pr:
        typer.echo(
            f"| {r['pages']:,} | {r['nodes']:,} | {r['edges']:,} | {r['recomputations']} "
            f"| {r['total_s']} | {r['per_page_us']} | {r['full_recompute_ms']} |"
        )
    m = memory
    typer.echo(
        f"\nFrontier memory ({m['urls']:,} URLs of ~{m['url_string_bytes']} B as str): "
        f"{m['queued_bytes_per_url']} B per queued URL, {m['seen_bytes_per_url']} B per seen URL"
    )
