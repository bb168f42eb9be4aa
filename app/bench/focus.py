"""`timelypush bench focus`: every link strategy on the same lab web, seeds and keywords.

For each topic (coarse: sports = 体育,足球,篮球,比赛; fine: football = 足球) every strategy
crawls ``--pages`` pages from the same seed through the lab proxy with the thesis parameters;
the ground truth scores each fetched page. Reported: harvest rate every 100 pages, final harvest,
recall of the topic's reachable pages, relevant pages per minute, pages/s. Then the default
strategy runs with a budget of 2× the topic's reachable relevant pages (the recall goal), and a
one-at-a-time parameter study around the thesis defaults (γ, position weights, T, W, D).
Writes ``focus.json``, ``focus.md`` and ``focus_<topic>.png`` into ``--out``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import typer

from app.models import DEFAULT_STRATEGY

logger = logging.getLogger(__name__)

STRATEGIES = (
    "bfs",
    "fish",
    "fish-kp",
    "pagerank",
    "topic-pagerank",
    "ipagerank",
    "statistical",
    "adaptive",
)
TOPICS: dict[str, list[str]] = {"sports": ["体育", "足球", "篮球", "比赛"], "football": ["足球"]}
STUDY: list[tuple[str, dict[str, float]]] = [
    ("thesis defaults", {}),
    ("γ=0.5", {"gamma": 0.5}),
    ("γ=0.95", {"gamma": 0.95}),
    ("w_meta=0.25 w_anchor=0.75", {"w_meta": 0.25, "w_anchor": 0.75}),
    ("T=0.05", {"T": 0.05}),
    ("T=0.1", {"T": 0.1}),
    ("T=0.3", {"T": 0.3}),
    ("W=40", {"W": 40}),
    ("D=3", {"D": 3}),
]
"""One change at a time around the thesis defaults (γ 0.8, weights 1/0.75/0.25, T 0.5, W 20,
D 2, a 1.5)."""


def plot(results: list[dict[str, Any]], topic: str, path: Path, pages: int) -> None:
    """Harvest rate vs pages fetched, one line per strategy (like the thesis's fig. 5-2…5-9)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5), dpi=110)
    for result in results:
        curve = list(result["curve"])
        if result["fetched"] % 100:  # the last, partial step
            curve.append([result["fetched"], result["harvest"]])
        if curve:
            ax.plot(
                [c[0] for c in curve],
                [c[1] for c in curve],
                marker="o",
                markersize=3,
                label=result["strategy"],
            )
    ax.set_xlabel("pages fetched")
    ax.set_ylabel("harvest rate (relevant / fetched)")
    ax.set_title(f"lab web, topic {topic}, {pages} pages per strategy")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _row(result: dict[str, Any], label: str) -> str:
    def at(n: int) -> str:
        for count, value in result["curve"]:
            if count == n:
                return f"{value:.3f}"
        return "–"

    return (
        f"| {label} | {result['fetched']} | {at(100)} | {at(300)} | {at(500)} | "
        f"{result['harvest']:.3f} | {result['recall']:.3f} | {result['relevant_per_min']} | "
        f"{result['pages_per_s']} |"
    )


_HEADER = (
    "| {0} | pages | harvest@100 | harvest@300 | harvest@500 | final harvest | recall | "
    "relevant/min | pages/s |\n|---|---|---|---|---|---|---|---|---|"
)


def markdown(report: dict[str, Any]) -> str:
    lines = [
        f"Web: `{report['web']}` ({report['manifest_pages']} pages); seed {report['seed']}; "
        f"budget {report['pages']} fetches per run (study: {report.get('study_pages')}); "
        f"concurrency {report['concurrency']}; code {report.get('commit')}.",
        "",
        '"pages" counts fetched HTML pages (dead links and errors excluded); '
        "final harvest is over all of them.",
        "",
    ]
    for topic, runs in report["strategies"].items():
        reachable = runs[0]["reachable_relevant"] if runs else 0
        lines += [
            f"**{topic}** (keywords {', '.join(TOPICS[topic])}; {reachable} relevant "
            "pages reachable from the seed)",
            "",
            _HEADER.format("strategy"),
        ]
        bfs = next((r for r in runs if r["strategy"] == "bfs"), None)
        for run in runs:
            lines.append(_row(run, run["strategy"]))
        if bfs and bfs["harvest"]:
            ratios = ", ".join(
                f"{r['strategy']} {r['harvest'] / bfs['harvest']:.1f}×"
                for r in runs
                if r["strategy"] != "bfs"
            )
            lines += ["", f"Final harvest relative to BFS: {ratios}."]
        lines.append("")
    for topic, run in report.get("recall", {}).items():
        lines.append(
            f"Recall run, {topic}: {run['strategy']} with a budget of "
            f"{2 * run['reachable_relevant']} fetches (2× {run['reachable_relevant']} reachable "
            f"relevant pages; {run['fetched']} pages fetched before it stopped): recall "
            f"**{run['recall']:.3f}**, harvest {run['harvest']:.3f}."
        )
    if report.get("recall"):
        lines.append("")
    for topic, runs in report.get("study", {}).items():
        lines += [
            f"**Parameter study, {topic}** (topic-pagerank, one change at a time)",
            "",
            _HEADER.format("parameters"),
        ]
        lines += [_row(run, run["label"]) for run in runs]
        lines.append("")
    return "\n".join(lines)


async def _bench(
    web: Path,
    proxy: str,
    out: Path,
    pages: int,
    strategies: list[str],
    topics: list[str],
    concurrency: int,
    study: bool,
    recall: bool,
    seed_key: str,
    study_pages: int,
) -> dict[str, Any]:
    from app.lab.runner import run_crawl
    from app.lab.truth import Truth

    truth = Truth.load(web)
    manifest = json.loads((web / "manifest.json").read_text(encoding="utf-8"))
    seeds = [manifest["seeds"][seed_key]]
    report: dict[str, Any] = {
        "commit": _commit(),
        "web": str(web),
        "manifest_pages": manifest["pages"],
        "seed": seeds[0],
        "pages": pages,
        "study_pages": study_pages,
        "concurrency": concurrency,
        "strategies": {},
        "recall": {},
        "study": {},
    }

    def save() -> None:
        (out / "focus.json").write_text(
            json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8"
        )
        (out / "focus.md").write_text(markdown(report) + "\n", encoding="utf-8")

    for topic in topics if strategies else []:
        target = len(truth.relevant_reachable(seeds, topic))
        runs = report["strategies"].setdefault(topic, [])
        for strategy in strategies:
            result = await run_crawl(
                truth,
                proxy=proxy,
                seeds=seeds,
                keywords=TOPICS[topic],
                topic=topic,
                strategy=strategy,
                max_pages=pages,
                concurrency=concurrency,
                target=target,
            )
            runs.append(result.to_dict())
            typer.echo(_row(runs[-1], f"{topic}/{strategy}"))
            save()
        if runs:
            plot(runs, topic, out / f"focus_{topic}.png", pages)
    for topic in topics if recall else []:
        target = len(truth.relevant_reachable(seeds, topic))
        result = await run_crawl(
            truth,
            proxy=proxy,
            seeds=seeds,
            keywords=TOPICS[topic],
            topic=topic,
            strategy=DEFAULT_STRATEGY,
            max_pages=2 * target,
            concurrency=concurrency,
            target=target,
        )
        report["recall"][topic] = result.to_dict()
        typer.echo(_row(report["recall"][topic], f"{topic}/recall budget {2 * target}"))
        save()
    for topic in topics if study else []:
        runs = report["study"].setdefault(topic, [])
        for label, params in STUDY:
            result = await run_crawl(
                truth,
                proxy=proxy,
                seeds=seeds,
                keywords=TOPICS[topic],
                topic=topic,
                strategy="topic-pagerank",
                max_pages=study_pages,
                params=params,
                concurrency=concurrency,
            )
            runs.append({"label": label, **result.to_dict()})
            typer.echo(_row(runs[-1], f"{topic}/{label}"))
            save()
    save()
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
        web: Path = typer.Option(..., "--web", help="A web built by `timelypush lab build`."),
        out: Path = typer.Option(Path("var/bench/focus"), "--out", help="Where results go."),
        pages: int = typer.Option(1000, "--pages", min=100, help="Pages per run."),
        strategies: str = typer.Option(
            ",".join(STRATEGIES), "--strategies", help="Comma-separated; 'none' skips them."
        ),
        topics: str = typer.Option("sports,football", "--topics"),
        concurrency: int = typer.Option(16, "--concurrency", min=1),
        proxy: str | None = typer.Option(
            None, "--proxy", help="A running `lab serve` (default: start one)."
        ),
        seed: str = typer.Option("sports", "--seed", help="Seed from the manifest: sports|home."),
        study: bool = typer.Option(True, "--study/--no-study", help="Parameter study."),
        study_pages: int = typer.Option(500, "--study-pages", min=100, help="Pages per study run."),
        recall: bool = typer.Option(True, "--recall/--no-recall", help="2× budget recall run."),
    ) -> None:
        """Run every strategy on the lab web and report harvest, recall and speed."""
        from app.lab.process import lab_server

        logging.basicConfig(level=logging.WARNING)
        out.mkdir(parents=True, exist_ok=True)
        chosen = [s.strip() for s in strategies.split(",") if s.strip() not in ("", "none")]
        names = [t.strip() for t in topics.split(",") if t.strip() in TOPICS]
        args = (out, pages, chosen, names, concurrency, study, recall, seed, study_pages)
        if proxy:
            asyncio.run(_bench(web, proxy, *args))
        else:
            with lab_server(web) as url:
                asyncio.run(_bench(web, url, *args))
        typer.echo(f"wrote {out / 'focus.json'}, {out / 'focus.md'} and the plots")
