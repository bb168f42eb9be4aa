"""`timelypush crawl`: one focused crawl from the command line, as JSON lines.

    timelypush crawl SEED [SEED …] --keywords 足球,中超 [--strategy adaptive]
        [--max-pages 1000] [--param gamma=0.8 …] [--scope any|host|domain] [--proxy URL]
        [--concurrency 16] [--per-host 16] [--delay 0] [--allow-private] [--jsonl out.jsonl]

One JSON object per fetched page, in fetch order (``--jsonl -``: stdout), then one more per
page whose decision the end of the visit made or changed (``"final": true``: a page pushed
then, or one whose row said ``"provisional": true`` and that is not pushed); a progress bar (plain
periodic lines when stderr is not a terminal; it says so when the end of the visit decides
again, a pause of a second or a few) and a summary on stderr. Defaults for the user
agent, URL allowlist, proxy and fetch limits come from the application settings
(``TIMELYPUSH_*``); the crawler library itself never reads them. When every seed is refused or
unreachable the command exits with status 1 and a one-line reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import time
from pathlib import Path
from typing import IO, Any

import typer

from app.models import DEFAULT_STRATEGY, SCORERS, STRATEGIES

STRATEGY_NAMES = ", ".join(STRATEGIES)


def register(cli: typer.Typer) -> None:
    """Add this module's commands to the root command."""
    cli.command("crawl")(crawl_cmd)


def parse_params(items: list[str]) -> dict[str, Any]:
    """``name=value`` pairs; values become int, float or stay strings (``r_norm=mean``)."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise typer.BadParameter(f"expected NAME=VALUE, got {item!r}", param_hint="--param")
        parsed: Any = value.strip()
        for kind in (int, float):
            try:
                parsed = kind(parsed)
                break
            except ValueError:
                continue
        out[name.strip()] = parsed
    return out


def crawl_cmd(
    seeds: list[str] = typer.Argument(..., help="Start URL(s)."),
    keywords: list[str] = typer.Option(
        ...,
        "--keywords",
        "-k",
        help="Topic keywords, separated by , ， 、 or ; (or the option repeated).",
    ),
    synonyms: list[str] = typer.Option(
        [], "--synonyms", help="Words that mean the same as a keyword (repeatable)."
    ),
    exclude: list[str] = typer.Option(
        [], "--exclude", help="Pages with these words are not relevant (repeatable)."
    ),
    strategy: str = typer.Option(DEFAULT_STRATEGY, "--strategy", help=STRATEGY_NAMES),
    max_pages: int = typer.Option(1000, "--max-pages", min=1),
    max_depth: int | None = typer.Option(None, "--max-depth", min=0, help="Links from a seed."),
    time_limit: float | None = typer.Option(None, "--time-limit", min=0, help="Seconds."),
    param: list[str] = typer.Option(
        [], "--param", help="Strategy/scorer parameter NAME=VALUE (gamma, W, D, a, T, w_meta, …)."
    ),
    scope: str = typer.Option("host", "--scope", help="any, host or domain."),
    proxy: str | None = typer.Option(None, "--proxy", help="HTTP proxy (default: settings)."),
    concurrency: int | None = typer.Option(None, "--concurrency", min=1),
    per_host: int | None = typer.Option(None, "--per-host", min=1),
    delay: float | None = typer.Option(
        None, "--delay", min=0, help="Seconds between requests to a host."
    ),
    allow_private: bool = typer.Option(
        False, "--allow-private", help="Allow private and loopback addresses."
    ),
    learn: bool = typer.Option(
        True,
        "--learn/--no-learn",
        help="Learn the topic profile's terms while crawling (for the seed scorers and the "
        "strategies that rank links by them; the default model learns its own words).",
    ),
    scorer: str = typer.Option(
        "model", "--scorer", help="Push decision: model (learned, default), kp, fish or vsm."
    ),
    sensitivity: str = typer.Option(
        "balanced", "--sensitivity", help="precise, balanced or broad (model scorer)."
    ),
    jsonl: str | None = typer.Option(None, "--jsonl", help="Write JSON lines here ('-' = stdout)."),
    checkpoint: Path | None = typer.Option(
        None, "--checkpoint", help="Resume from this file if it exists; keep it up to date."
    ),
    checkpoint_every: int = typer.Option(100, "--checkpoint-every", min=1),
    fetch_process: str = typer.Option(
        "auto",
        "--fetch-process",
        help="Fetch and parse in a second process: on, off, or auto (on two or more CPUs, "
        "from 200 pages and 2 fetches at a time).",
    ),
) -> None:
    """Run one focused crawl and write one JSON object per fetched page."""
    from app.core.config import get_settings
    from crawler import SENSITIVITY, CrawlConfig, FetchConfig, TopicProfile
    from crawler.fetchconfig import FETCH_PROCESS_MODES

    settings = get_settings()
    params = parse_params(param)
    if scorer not in SCORERS:
        raise typer.BadParameter(f"choose one of {', '.join(SCORERS)}", param_hint="--scorer")
    if sensitivity not in SENSITIVITY:
        raise typer.BadParameter(
            f"choose one of {', '.join(SENSITIVITY)}", param_hint="--sensitivity"
        )
    params.setdefault("threshold", SENSITIVITY[sensitivity])
    if fetch_process not in FETCH_PROCESS_MODES:
        raise typer.BadParameter(
            f"choose one of {', '.join(FETCH_PROCESS_MODES)}", param_hint="--fetch-process"
        )
    profile = TopicProfile.from_keywords(keywords, synonyms, exclude)
    if not profile.keywords:
        raise typer.BadParameter("no keyword given", param_hint="--keywords")
    fetch = FetchConfig(
        user_agent=settings.user_agent,
        concurrency=concurrency or settings.crawl_concurrency,
        per_host=per_host or settings.crawl_per_host,
        delay=settings.crawl_delay if delay is None else delay,
        total_timeout=settings.crawl_timeout,
        max_bytes=settings.crawl_max_bytes,
        proxy=proxy or settings.proxy,
        allowlist=tuple(settings.allowlist),
        allow_private=allow_private,
    )
    config = CrawlConfig(
        max_pages=max_pages,
        max_depth=max_depth,
        time_limit=time_limit,
        scope=scope,
        strategy=strategy,
        params=params,
        fetch=fetch,
        checkpoint_every=checkpoint_every,
        learn=learn,
        scorer=scorer,
        fetch_process=FETCH_PROCESS_MODES[fetch_process],
    )
    state = None
    if checkpoint is not None and checkpoint.exists():
        state = json.loads(checkpoint.read_text(encoding="utf-8"))
    with contextlib.ExitStack() as stack:
        out: IO[str] | None = None
        if jsonl == "-":
            out = sys.stdout
        elif jsonl:
            out = stack.enter_context(open(jsonl, "a" if state else "w", encoding="utf-8"))
        try:
            summary = asyncio.run(_run(seeds, profile, config, out, state, checkpoint))
        except ValueError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        except NoSeedCrawled as exc:
            typer.echo(f"error: no seed could be crawled: {exc}", err=True)
            raise typer.Exit(1) from exc
    line = "pages {pages}, matched {matched}, errors {errors}, {rate:.1f} pages/s, {seconds:.1f} s"
    typer.echo(line.format(**summary), err=True)


def _save(path: Path, state: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)


PROGRESS_SECONDS = 5.0
"""Without a terminal on stderr: one plain progress line this often (and after the first page)."""


DECIDING = "deciding on {n} pages at the end of the visit"
"""What the progress says while the end of the visit refits and judges again (the bar, which
shares a line of 80 columns with the counts, says it in short: ``DECIDING_BAR``)."""
DECIDING_BAR = "deciding {n} pages"


class _PlainProgress:
    """Progress as periodic plain lines, for a log file or a pipe (no cursor tricks)."""

    def __init__(self, total: int, done: int) -> None:
        self.total = total
        self.done = done
        self.started = time.monotonic()
        self.last: float | None = None

    def update(self, matched: int, errors: int) -> None:
        self.done += 1
        now = time.monotonic()
        if self.last is not None and now - self.last < PROGRESS_SECONDS:
            return
        self.last = now
        self.say(
            f"crawl {self.done}/{self.total} pages, matched {matched}, errors {errors}, "
            f"{now - self.started:.1f} s"
        )

    def say(self, line: str) -> None:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


class NoSeedCrawled(Exception):
    """Every seed was refused or unreachable: the crawl found nothing to start from."""


async def _run(
    seeds: list[str],
    profile: Any,
    config: Any,
    out: IO[str] | None,
    state: dict[str, Any] | None,
    checkpoint: Path | None,
) -> dict[str, float]:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from crawler import crawl

    on_checkpoint = (lambda s: _save(checkpoint, s)) if checkpoint is not None else None
    pages = matched = errors = 0
    seed_errors: list[str] = []
    seed_ok = False
    started = time.monotonic()
    console = Console(stderr=True)
    done_before = int(state.get("fetched", 0)) if state else 0
    plain = None if console.is_terminal else _PlainProgress(config.max_pages, done_before)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(bar_width=30),
        MofNCompleteColumn(),
        TextColumn("matched {task.fields[matched]}  errors {task.fields[errors]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=plain is not None,
    )
    with progress:
        task = progress.add_task(
            "crawl", total=config.max_pages, completed=done_before, matched=0, errors=0
        )

        def deciding(n: int) -> None:
            # the end of the visit refits and judges again: seconds with no page to show
            note = DECIDING.format(n=n)
            if plain is not None:
                plain.say(note)
            progress.update(task, description=DECIDING_BAR.format(n=n))

        stream = crawl(
            seeds,
            profile,
            config,
            checkpoint=state,
            on_checkpoint=on_checkpoint,
            on_deciding=deciding,
        )
        async with contextlib.aclosing(stream) as events:
            async for event in events:
                # a "final" row is the end-of-visit decision on a page already counted
                pages += not event.final
                matched += event.matched
                errors += event.error is not None
                if event.depth == 0 and not event.final:
                    if event.error is None:
                        seed_ok = True
                    else:
                        seed_errors.append(f"{event.url}: {event.error}")
                if out is not None:
                    out.write(json.dumps(event.to_json(), ensure_ascii=False) + "\n")
                    out.flush()
                if plain is not None and not event.final:
                    plain.update(matched, errors)
                progress.update(task, advance=int(not event.final), matched=matched, errors=errors)
    if seed_errors and not seed_ok:
        more = f" (and {len(seed_errors) - 1} more)" if len(seed_errors) > 1 else ""
        raise NoSeedCrawled(" ".join(seed_errors[0].split()) + more)
    seconds = time.monotonic() - started
    return {
        "pages": pages,
        "matched": matched,
        "errors": errors,
        "seconds": seconds,
        "rate": pages / seconds if seconds > 0 else 0.0,
    }
