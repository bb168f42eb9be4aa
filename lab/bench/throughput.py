"""`timelypush bench throughput`: our crawler against Scrapy on the same lab web, whole processes.

Each run is a fresh child process (``lab.bench.crawl_worker``) crawling ``--pages`` pages from
the same seed through the same lab proxy (itself another process) at the same concurrency, with
no politeness delay and robots.txt obeyed by both. Ours runs the product defaults — the
``adaptive`` strategy and the judgment model (every page parsed, segmented, judged, its links
ranked, the topic terms learned); Scrapy runs a minimal breadth-first spider that only extracts
links. Runs alternate (ours, Scrapy, ours, Scrapy, …) so load on the machine hits both alike.

Each run is timed as a whole process by this parent: wall-clock from the spawn to the exit
(interpreter start, imports, jieba's dictionary, the crawl, shutdown), and the child's own CPU
seconds and peak resident memory (``wait4``'s rusage; the lab server is not counted). Reported
per crawler: median pages/s, CPU seconds per 1,000 pages and peak RSS over ``--repeats`` runs;
per pair, ours ÷ Scrapy, and the median of those ratios. ``--profile``: one extra cProfile run
of each crawler (the crawl only), its top functions.
"""

from __future__ import annotations

import io
import json
import logging
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import typer

logger = logging.getLogger(__name__)

CRAWLERS: tuple[tuple[str, str], ...] = (
    ("ours", "adaptive"),
    ("ours 1 process", "adaptive"),
    ("ours bfs", "bfs"),
    ("scrapy", ""),
)
"""(name, strategy); the default run compares ``ours`` (the product default) with Scrapy.
``ours 1 process`` is the default with fetching and parsing kept in the crawl's own process
(``CrawlConfig.fetch_process=False``)."""


def run_worker(
    name: str,
    strategy: str,
    proxy: str,
    seed: str,
    pages: int,
    concurrency: int,
    *,
    keywords: list[str] | None = None,
    profile: Path | None = None,
) -> dict[str, Any]:
    """One crawl in a fresh process: its JSON line plus ``process_seconds`` (spawn to exit),
    ``process_cpu`` (the child's user + system seconds) and ``peak_rss_mb``."""
    command = [
        sys.executable,
        "-m",
        "lab.bench.crawl_worker",
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
    if name == "ours 1 process":
        command += ["--fetch-process", "off"]
    if keywords:
        command += ["--keywords", ",".join(keywords)]
    if profile is not None:
        command += ["--profile", str(profile)]
    with tempfile.TemporaryFile("w+") as errors:
        started = time.perf_counter()
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True)  # noqa: S603
        assert child.stdout is not None
        stdout = child.stdout.read()
        child.stdout.close()
        # reap it ourselves: wait4 gives this child's own CPU time and peak memory
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        stderr = errors.read()
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if child.returncode != 0 or not lines:
        raise RuntimeError(f"{name} failed ({child.returncode}): {stderr[-2000:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    result["process_seconds"] = round(elapsed, 3)
    result["process_cpu"] = round(usage.ru_utime + usage.ru_stime, 3)
    # Linux: kilobytes. wait4 gives the largest of the child and its own children; when ours
    # fetched in a child process, both were resident at once: count them together
    peak = usage.ru_maxrss / 1024
    if "self_rss_mb" in result:
        peak = result.pop("self_rss_mb") + result.pop("children_rss_mb")
    result["peak_rss_mb"] = round(peak, 1)
    result["pages_per_s"] = round(result["pages"] / elapsed, 1) if elapsed else 0.0
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
    """Medians per crawler (whole-process figures) and, against Scrapy, the median of the
    per-pair ratios (run i of a crawler with run i of Scrapy, which ran next to it)."""
    summary: dict[str, dict[str, float]] = {}
    for name, results in runs.items():
        summary[name] = {
            "runs": len(results),
            "pages": statistics.median(r["pages"] for r in results),
            "pages_per_s": round(statistics.median(r["pages_per_s"] for r in results), 1),
            "cpu_s_per_1000": round(
                statistics.median(r["process_cpu"] / r["pages"] * 1000 for r in results), 2
            ),
            "peak_rss_mb": round(statistics.median(r["peak_rss_mb"] for r in results), 1),
            "crawl_pages_per_s": round(
                statistics.median(r["pages"] / r["seconds"] for r in results), 1
            ),
        }
    base = runs.get("scrapy")
    for name, results in runs.items():
        if not base or name == "scrapy":
            continue
        pairs = list(zip(results, base, strict=False))
        speed = [r["pages_per_s"] / b["pages_per_s"] for r, b in pairs if b["pages_per_s"]]
        cpu = [
            (r["process_cpu"] / r["pages"]) / (b["process_cpu"] / b["pages"])
            for r, b in pairs
            if b["process_cpu"] and r["pages"] and b["pages"]
        ]
        summary[name]["pair_speed_ratios"] = [round(x, 2) for x in speed]  # type: ignore[assignment]
        summary[name]["speed_vs_scrapy"] = round(statistics.median(speed), 2) if speed else 0.0
        summary[name]["cpu_vs_scrapy"] = round(statistics.median(cpu), 2) if cpu else 0.0
    return summary


def markdown(report: dict[str, Any]) -> str:
    lines = [
        f"{report['pages']} pages from {report['seed']}, concurrency {report['concurrency']}, "
        f"{report['repeats']} alternating runs, whole processes (start-up included); "
        f"code {report.get('commit')}; load average before / after "
        f"{report.get('load_before')} / {report.get('load_after')}.",
        "",
        "| crawler | pages | pages/s | CPU s / 1,000 pages | peak RSS MB | crawl only, pages/s "
        "| pages/s ÷ Scrapy, per pair | median ratio | CPU ÷ Scrapy |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, values in report["summary"].items():
        pairs = ", ".join(f"{x}" for x in values.get("pair_speed_ratios", [])) or "–"
        lines.append(
            f"| {name} | {values['pages']:.0f} | {values['pages_per_s']} | "
            f"{values['cpu_s_per_1000']} | {values['peak_rss_mb']} | "
            f"{values['crawl_pages_per_s']} | {pairs} | "
            f"{values.get('speed_vs_scrapy', '–')}× | {values.get('cpu_vs_scrapy', '–')}× |"
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


def _load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "?"


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
            False, "--profile/--no-profile", help="One extra cProfile run per crawler."
        ),
        crawlers: str = typer.Option(
            "ours,scrapy", "--crawlers", help="ours, ours 1 process, ours bfs, scrapy"
        ),
        seed: str = typer.Option("sports", "--seed", help="Seed from the manifest: sports|home."),
        proxy: str | None = typer.Option(
            None, "--proxy", help="A running `lab serve` of this web (default: start one)."
        ),
    ) -> None:
        """Our crawler vs Scrapy as whole processes: pages/s, CPU per 1,000 pages, peak RSS."""
        from lab.bench.focus import _commit
        from lab.judge import TOPIC_KEYWORDS
        from lab.process import lab_server

        out.mkdir(parents=True, exist_ok=True)
        manifest = json.loads((web / "manifest.json").read_text(encoding="utf-8"))
        seed_url = manifest["seeds"][seed]
        keywords = TOPIC_KEYWORDS[manifest.get("lang", "zh")]["sports"]
        wanted = {c.strip() for c in crawlers.split(",")}
        chosen = [(n, s) for n, s in CRAWLERS if n in wanted]
        if not chosen:
            raise typer.BadParameter(f"--crawlers: none of {sorted(wanted)}")
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in chosen}
        report: dict[str, Any] = {
            "commit": _commit(),
            "pages": pages,
            "seed": seed_url,
            "keywords": keywords,
            "concurrency": concurrency,
            "repeats": repeats,
            "load_before": _load(),
            "runs": runs,
        }
        server = nullcontext(proxy) if proxy else lab_server(web)
        with server as url:
            assert url is not None
            for repeat in range(repeats):
                for name, strategy in chosen:  # alternating, so drift hits every crawler alike
                    result = run_worker(
                        name, strategy, url, seed_url, pages, concurrency, keywords=keywords
                    )
                    runs[name].append(result)
                    typer.echo(f"run {repeat + 1} {name}: {json.dumps(result)}")
            if profile:
                report["profiles"] = {}
                for name, strategy in chosen:
                    path = out / f"profile_{name.replace(' ', '_')}.pstats"
                    run_worker(
                        name,
                        strategy,
                        url,
                        seed_url,
                        pages,
                        concurrency,
                        keywords=keywords,
                        profile=path,
                    )
                    report["profiles"][name] = top_functions(path)
        report["load_after"] = _load()
        report["summary"] = summarize(runs)
        (out / "throughput.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
        (out / "throughput.md").write_text(markdown(report), encoding="utf-8")
        typer.echo(markdown(report))
