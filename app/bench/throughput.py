"""`timelypush bench throughput`: our crawler against Scrapy on the same lab web.

Each run is a fresh child process (``app.bench.crawl_worker``) crawling ``--pages`` pages from
the same seed through the same lab proxy (itself another process) at the same concurrency, with
no politeness delay and robots.txt obeyed by both. Ours runs ``bfs`` and ``topic-pagerank`` with
ranking on (every page is segmented and scored); Scrapy runs a minimal breadth-first spider that
only extracts links. Reported per crawler: median pages/s and median CPU seconds per 1,000 pages
over ``--repeats`` runs, their ratios to Scrapy, and (``--profile``) the top functions of one
profiled run of each.
"""

from __future__ import annotations

import io
import json
import logging
import pstats
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import typer

logger = logging.getLogger(__name__)

CRAWLERS: tuple[tuple[str, str], ...] = (
    ("ours bfs", "bfs"),
    ("ours topic-pagerank", "topic-pagerank"),
    ("scrapy", ""),
)


def _worker(
    name: str,
    strategy: str,
    proxy: str,
    seed: str,
    pages: int,
    concurrency: int,
    profile: Path | None = None,
) -> dict[str, Any]:
    command = [
        sys.executable,
        "-m",
        "app.bench.crawl_worker",
        "scrapy" if name == "scrapy" else "ours",
        "--proxy",
        proxy,
        "--seed",
        seed,
        "--pages",
        str(pages),
        "--concurrency",
        str(concurrency),
    ]
    if strategy:
        command += ["--strategy", strategy]
    if profile is not None:
        command += ["--profile", str(profile)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{name} failed ({done.returncode}): {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def top_functions(path: Path, count: int = 15) -> str:
    """The ``count`` functions with the most own time in a cProfile dump, as text."""
    buffer = io.StringIO()
    stats = pstats.Stats(str(path), stream=buffer)
    stats.strip_dirs().sort_stats("tottime").print_stats(count)
    text = buffer.getvalue()
    start = text.find("   ncalls")
    return text[start:] if start >= 0 else text


def summarize(runs: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, float]]:
    summary = {}
    for name, results in runs.items():
        rates = [r["pages"] / r["seconds"] for r in results if r["seconds"]]
        cpu = [r["cpu"] / r["pages"] * 1000 for r in results if r["pages"]]
        summary[name] = {
            "pages": statistics.median(r["pages"] for r in results),
            "pages_per_s": round(statistics.median(rates), 1) if rates else 0.0,
            "cpu_s_per_1000": round(statistics.median(cpu), 2) if cpu else 0.0,
        }
    base = summary.get("scrapy")
    for values in summary.values():
        if base and base["pages_per_s"] and base["cpu_s_per_1000"]:
            values["speed_vs_scrapy"] = round(values["pages_per_s"] / base["pages_per_s"], 2)
            values["cpu_vs_scrapy"] = round(values["cpu_s_per_1000"] / base["cpu_s_per_1000"], 2)
    return summary


def markdown(report: dict[str, Any]) -> str:
    lines = [
        f"{report['pages']} pages from {report['seed']}, concurrency {report['concurrency']}, "
        f"median of {report['repeats']} runs; code {report.get('commit')}.",
        "",
        "| crawler | pages | pages/s | CPU s / 1,000 pages | pages/s vs Scrapy | CPU vs Scrapy |",
        "|---|---|---|---|---|---|",
    ]
    for name, values in report["summary"].items():
        lines.append(
            f"| {name} | {values['pages']:.0f} | {values['pages_per_s']} | "
            f"{values['cpu_s_per_1000']} | {values.get('speed_vs_scrapy', '–')}× | "
            f"{values.get('cpu_vs_scrapy', '–')}× |"
        )
    for name, text in report.get("profiles", {}).items():
        lines += [
            "",
            f"Profile, {name} (top functions by own time):",
            "",
            "```",
            text.rstrip(),
            "```",
        ]
    return "\n".join(lines) + "\n"


def register(bench_cli: typer.Typer) -> None:
    """Add `bench throughput` to the bench group."""

    @bench_cli.command("throughput")
    def throughput(
        web: Path = typer.Option(..., "--web", help="A web built by `timelypush lab build`."),
        out: Path = typer.Option(Path("var/bench/throughput"), "--out"),
        pages: int = typer.Option(1000, "--pages", min=50),
        repeats: int = typer.Option(3, "--repeats", min=1),
        concurrency: int = typer.Option(16, "--concurrency", min=1),
        profile: bool = typer.Option(
            True, "--profile/--no-profile", help="One extra cProfile run per crawler."
        ),
        crawlers: str = typer.Option(",".join(n for n, _ in CRAWLERS), "--crawlers"),
    ) -> None:
        """Our crawler (bfs, topic-pagerank) vs Scrapy: pages/s and CPU per 1,000 pages."""
        from app.bench.focus import _commit
        from app.lab.process import lab_server

        out.mkdir(parents=True, exist_ok=True)
        manifest = json.loads((web / "manifest.json").read_text(encoding="utf-8"))
        seed = manifest["seeds"]["sports"]
        chosen = [(n, s) for n, s in CRAWLERS if n in {c.strip() for c in crawlers.split(",")}]
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in chosen}
        report: dict[str, Any] = {
            "commit": _commit(),
            "pages": pages,
            "seed": seed,
            "concurrency": concurrency,
            "repeats": repeats,
            "runs": runs,
        }
        with lab_server(web) as proxy:
            for repeat in range(repeats):
                for name, strategy in chosen:  # interleaved, so drift hits every crawler alike
                    result = _worker(name, strategy, proxy, seed, pages, concurrency)
                    runs[name].append(result)
                    typer.echo(f"run {repeat + 1} {name}: {json.dumps(result)}")
            if profile:
                report["profiles"] = {}
                for name, strategy in chosen:
                    path = out / f"profile_{name.replace(' ', '_')}.pstats"
                    _worker(name, strategy, proxy, seed, pages, concurrency, path)
                    report["profiles"][name] = top_functions(path)
        report["summary"] = summarize(runs)
        (out / "throughput.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
        (out / "throughput.md").write_text(markdown(report), encoding="utf-8")
        typer.echo(markdown(report))
