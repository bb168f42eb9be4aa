"""`timelypush bench focus`: every link strategy and the oracle on lab webs, one seed URL.

For each topic (coarse: zh 体育,足球,篮球,比赛 / en sports,football,tennis,rugby; fine: zh 足球 /
en football) every strategy crawls from the same seed through the lab proxy with the thesis
parameters, for 1,000 fetches or 2× the topic's on-topic items if that is more. The ground
truth counts on-topic *items* (articles; hubs are fetches that harvest nothing). Reported per
strategy: harvest at 100 / 500 / 1,000 fetches, recall at 2× the topic's size, the ratio of
harvest@1000 to the oracle's (``lab.oracle``, a greedy crawler that knows the truth), and
harvest over the first 100 fetches divided by that over fetches 101–1,000. With ``--revisit N``
the default strategy then visits a copy of the web in which 5 % of the articles changed
(``lab.mutate``), N fetches, starting from what its first visit learned ("warm") and from
nothing ("cold"), against bfs: new on-topic items found per fetch, and on-topic items the
first visit did not fetch (new or older) per fetch — the lab puts a new item where an old one
was, anywhere in the site's lists, so the first count is a few items a visit and the second,
which also counts the older items a short visit reaches for the first time, moves less by
chance.
Writes ``focus_<web>.json``, ``focus_<web>.md`` and ``focus_<web>_<topic>.png`` into ``--out``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import typer

from app.models import DEFAULT_STRATEGY
from lab.bench.match import CRAWL_PARAM_HELP, crawl_params
from lab.judge import TOPIC_KEYWORDS as TOPICS

logger = logging.getLogger(__name__)

STRATEGIES = (
    "oracle",
    "bfs",
    "fish",
    "fish-kp",
    "pagerank",
    "topic-pagerank",
    "ipagerank",
    "statistical",
    "sections",
    "adaptive",
)
"""The oracle first: every other row is reported as a ratio to it."""


def plot(results: list[dict[str, Any]], topic: str, path: Path, pages: int, web: str) -> None:
    """On-topic item harvest vs pages fetched, one line per strategy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5), dpi=110)
    for result in results:
        curve = [c for c in result["curve"] if c[0] <= pages]
        if curve:
            ax.plot(
                [c[0] for c in curve],
                [c[1] for c in curve],
                marker="o",
                markersize=3,
                label=result["strategy"],
                linestyle="--" if result["strategy"] == "oracle" else "-",
            )
    ax.set_xlabel("pages fetched")
    ax.set_ylabel("harvest (on-topic items / fetched)")
    ax.set_title(f"{web}, topic {topic}")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def summary(result: dict[str, Any], oracle: dict[str, Any] | None) -> dict[str, Any]:
    """Harvest at 100 / 500 / 1,000 fetches, recall at 2× the topic, ratio to the oracle,
    the first 100 fetches against the rest (up to 1,000)."""
    found = {int(k): v for k, v in result["found_at"].items()}
    target = int(result["reachable_relevant"])
    fetched = int(result["fetched"]) + int(result["errors"])

    def harvest(n: int) -> float | None:
        return found[n] / n if n in found and fetched >= n else None

    h100, h1000 = harvest(100), harvest(1000)
    rest = (found[1000] - found[100]) / 900 if h1000 is not None and h100 is not None else None
    out: dict[str, Any] = {
        "strategy": result["strategy"],
        "h100": h100,
        "h500": harvest(500),
        "h1000": h1000,
        "recall_2x": found.get(2 * target, 0) / target if target else None,
        "first_vs_rest": h100 / rest if h100 is not None and rest else None,
        "oracle_ratio": None,
    }
    if oracle is not None and h1000 is not None:
        ceiling = {int(k): v for k, v in oracle["found_at"].items()}.get(1000)
        out["oracle_ratio"] = found[1000] / ceiling if ceiling else None
    return out


def _fmt(value: float | None, suffix: str = "") -> str:
    return "–" if value is None else f"{value:.3f}{suffix}"


_HEADER = (
    "| strategy | harvest@100 | harvest@500 | harvest@1000 | recall@2× | ÷ oracle | "
    "first 100 ÷ rest |\n|---|---|---|---|---|---|---|"
)


def _row(s: dict[str, Any]) -> str:
    name = f"**{s['strategy']}**" if s["strategy"] == DEFAULT_STRATEGY else s["strategy"]
    return (
        f"| {name} | {_fmt(s['h100'])} | {_fmt(s['h500'])} | {_fmt(s['h1000'])} | "
        f"{_fmt(s['recall_2x'])} | {_fmt(s['oracle_ratio'])} | {_fmt(s['first_vs_rest'])} |"
    )


def markdown(report: dict[str, Any]) -> str:
    lines = [
        f"Web `{report['web']}` ({report['manifest_pages']} pages), seed {report['seed']}, "
        f"concurrency {report['concurrency']}, code {report.get('commit')}. Harvest counts "
        "on-topic *items* (articles) per fetch; hubs fetched count as fetches."
        + (
            " Parameters: " + ", ".join(f"{k}={v:g}" for k, v in report["params"].items()) + "."
            if report.get("params")
            else ""
        ),
        "",
    ]
    for topic, runs in report["strategies"].items():
        target = runs[0]["reachable_relevant"] if runs else 0
        oracle = next((r for r in runs if r["strategy"] == "oracle"), None)
        lines += [
            f"**{topic}** (keywords {', '.join(TOPICS[report['lang']][topic])}; {target} on-topic "
            f"items reachable; budget {runs[0]['budget'] if runs else 0} fetches)",
            "",
            _HEADER,
        ]
        lines += [_row(summary(r, oracle)) for r in runs]
        lines.append("")
    for topic, visit in report.get("revisit", {}).items():
        lines += [
            f"**Second visit, {topic}** ({visit['changed']} items changed, "
            f"{visit['budget']} fetches): new on-topic items found per fetch — "
            + ", ".join(f"{k} {v:.4f}" for k, v in visit["per_fetch"].items())
            + (
                "; on-topic items the first visit did not fetch, per fetch — "
                + ", ".join(f"{k} {v:.4f}" for k, v in visit["unseen_per_fetch"].items())
                if "unseen_per_fetch" in visit
                else ""
            ),
            "",
        ]
    return "\n".join(lines)


async def _bench(
    web: Path,
    proxy: str,
    out: Path,
    pages: int,
    strategies: list[str],
    topics: list[str],
    concurrency: int,
    recall: bool,
    seed_key: str,
    params: dict[str, float] | None = None,
) -> dict[str, Any]:
    from lab.runner import run_crawl
    from lab.truth import Truth

    truth = Truth.load(web)
    manifest = json.loads((web / "manifest.json").read_text(encoding="utf-8"))
    lang = manifest.get("lang", "zh")
    seeds = [manifest["seeds"][seed_key]]
    report: dict[str, Any] = {
        "commit": _commit(),
        "web": web.name,
        "lang": lang,
        "manifest_pages": manifest["pages"],
        "seed": seeds[0],
        "pages": pages,
        "concurrency": concurrency,
        "params": dict(params or {}),
        "strategies": {},
    }

    def save() -> None:
        (out / f"focus_{web.name}.json").write_text(
            json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8"
        )
        (out / f"focus_{web.name}.md").write_text(markdown(report) + "\n", encoding="utf-8")

    for topic in topics:
        target = len(truth.relevant_reachable(seeds, topic, items=True))
        budget = max(pages, 2 * target) if recall else pages
        runs = report["strategies"].setdefault(topic, [])
        for strategy in strategies:
            result = await run_crawl(
                truth,
                proxy=proxy,
                seeds=seeds,
                keywords=TOPICS[lang][topic],
                topic=topic,
                strategy=strategy,
                max_pages=budget,
                concurrency=concurrency,
                target=target,
                items=True,
                params=params,
            )
            runs.append({**result.to_dict(), "budget": budget})
            oracle = next((r for r in runs if r["strategy"] == "oracle"), None)
            typer.echo(f"{web.name} {topic} " + _row(summary(runs[-1], oracle)))
            save()
        if runs:
            plot(runs, topic, out / f"focus_{web.name}_{topic}.png", min(budget, 1000), web.name)
    return report


async def _revisit(
    web: Path,
    out: Path,
    topics: list[str],
    concurrency: int,
    seed_key: str,
    budget: int,
    params: dict[str, float] | None = None,
) -> dict[str, Any]:
    """A second visit after 5 % of the items changed: the default strategy starting from what
    the first visit learned, from that without the items it fetched, and cold; and bfs."""
    from crawler import forget_items
    from lab.mutate import changed
    from lab.process import lab_server
    from lab.runner import run_crawl
    from lab.truth import Truth

    truth = Truth.load(web)
    manifest = json.loads((web / "manifest.json").read_text(encoding="utf-8"))
    lang = manifest.get("lang", "zh")
    seeds = [manifest["seeds"][seed_key]]
    later = out / f"{web.name}-changed"
    new = set(changed(web, later))
    truth2 = Truth.load(later)
    report: dict[str, Any] = {}
    for topic in topics:
        keywords = TOPICS[lang][topic]
        wanted = {u for u in new if truth2.relevant(u, topic, items=True)}
        before: list[str] = []
        with lab_server(web) as proxy:
            first = await run_crawl(
                truth,
                proxy=proxy,
                seeds=seeds,
                keywords=keywords,
                topic=topic,
                strategy=DEFAULT_STRATEGY,
                max_pages=1000,
                concurrency=concurrency,
                params=params,
                visited=before,
            )
        seen = set(before)
        per_fetch: dict[str, float] = {}
        unseen: dict[str, float] = {}
        with lab_server(later) as proxy:
            forgetful = {**first.state, "steer": forget_items(first.state.get("steer"))}
            for label, strategy, state in (
                ("default, warm", DEFAULT_STRATEGY, first.state),
                ("default, warm, items not remembered", DEFAULT_STRATEGY, forgetful),
                ("default, cold", DEFAULT_STRATEGY, {}),
                ("bfs", "bfs", {}),
            ):
                found: list[str] = []
                result = await run_crawl(
                    truth2,
                    proxy=proxy,
                    seeds=seeds,
                    keywords=keywords,
                    topic=topic,
                    strategy=strategy,
                    max_pages=budget,
                    concurrency=concurrency,
                    strategy_state=state.get("steer"),
                    judge_state=state.get("judge"),
                    visited=found,
                    params=params,
                )
                fetched = max(1, result.score.fetched)
                got = set(found)
                per_fetch[label] = len(wanted & got) / fetched
                unseen[label] = (
                    sum(1 for u in got - seen if truth2.relevant(u, topic, items=True)) / fetched
                )
                typer.echo(
                    f"{web.name} {topic} second visit {label}: {per_fetch[label]:.4f} new, "
                    f"{unseen[label]:.4f} not fetched before"
                )
        report[topic] = {
            "changed": len(new),
            "on_topic_changed": len(wanted),
            "budget": budget,
            "per_fetch": per_fetch,
            "unseen_per_fetch": unseen,
        }
    return report


def _commit() -> str:
    """The code version measured: HEAD plus a note when crawler/ has uncommitted changes."""
    import subprocess

    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],  # noqa: S607
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "crawler"],  # noqa: S607
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        return "unknown"
    return head + (" (crawler/ modified)" if dirty else "")


def register(bench_cli: typer.Typer) -> None:
    """Add `bench focus` to the bench group."""

    @bench_cli.command("focus")
    def focus(
        web: list[Path] = typer.Option(
            ..., "--web", help="A web built by `timelypush lab build` (repeat for several)."
        ),
        out: Path = typer.Option(Path("var/bench/focus"), "--out", help="Where results go."),
        pages: int = typer.Option(1000, "--pages", min=100, help="Fetches per run."),
        strategies: str = typer.Option(
            ",".join(STRATEGIES), "--strategies", help="Comma-separated; 'none' skips them."
        ),
        topics: str = typer.Option("sports,football", "--topics"),
        concurrency: int = typer.Option(16, "--concurrency", min=1),
        seed: str = typer.Option("sports", "--seed", help="Seed from the manifest: sports|home."),
        recall: bool = typer.Option(
            True, "--recall/--no-recall", help="Run each strategy to 2× the topic's size."
        ),
        revisit: int = typer.Option(
            0, "--revisit", min=0, help="Second-visit fetches after 5 % of items changed (0: no)."
        ),
        param: list[str] = typer.Option(
            [],
            "--param",
            metavar="NAME=VALUE",
            help=CRAWL_PARAM_HELP + " Every crawl of the run takes it, the revisits too.",
        ),
    ) -> None:
        """Every strategy and the oracle on lab webs: on-topic item harvest, recall, speed."""
        from lab.process import lab_server

        params = crawl_params(param)
        logging.basicConfig(level=logging.WARNING)
        out.mkdir(parents=True, exist_ok=True)
        chosen = [s.strip() for s in strategies.split(",") if s.strip() not in ("", "none")]
        names = [t.strip() for t in topics.split(",") if t.strip() in ("sports", "football")]
        for one in web:
            with lab_server(one) as url:
                report = asyncio.run(
                    _bench(one, url, out, pages, chosen, names, concurrency, recall, seed, params)
                )
            if revisit:
                report["revisit"] = asyncio.run(
                    _revisit(one, out, names, concurrency, seed, revisit, params)
                )
                (out / f"focus_{one.name}.md").write_text(markdown(report) + "\n", encoding="utf-8")
                (out / f"focus_{one.name}.json").write_text(
                    json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8"
                )
        typer.echo(f"wrote {out}/focus_*.md, .json and the plots")
