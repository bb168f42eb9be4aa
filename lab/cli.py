"""`timelypush lab …` and `timelypush bench …`: the evaluation lab and the benchmarks.

`lab` builds the local evaluation web and serves it on loopback; `bench` runs the benchmarks
that print numbers (see docs/benchmarks.md). Development only: `app.cli` adds both groups when
this package is importable (a source checkout); the installed wheel carries no `lab` package.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import typer

from lab.bench import (
    digest,
    focus,
    match,
    parse,
    ranking,
    replay,
    revisit,
    throughput,
    trace,
    webhook,
)

lab_cli = typer.Typer(
    help="The evaluation lab: a local multi-site web with ground truth.", no_args_is_help=True
)


@lab_cli.command("build")
def build_cmd(
    corpus: Path = typer.Option(..., "--corpus", help="Directory with the labelled corpus files."),
    out: Path = typer.Option(..., "--out", help="Output directory (sites/, truth.jsonl, …)."),
    seed: int = typer.Option(0, "--seed", help="Same seed → byte-identical web."),
    sites: int | None = typer.Option(
        None, "--sites", min=1, max=8, help="Number of portals (default zh 6, en 4)."
    ),
    articles: int | None = typer.Option(
        None, "--articles", min=10, help="Articles per portal, ±25 % (default zh 1000, en 500)."
    ),
    lang: str = typer.Option(
        "zh", "--lang", help="zh: Chinese portals (Toutiao, THUCNews, cnews); en: BBC articles."
    ),
    titles: str = typer.Option(
        "section",
        "--titles",
        help="An article's <title> after its headline: section: the section and portal names; "
        "site: the portal's name alone; plain: nothing.",
    ),
    urls: str = typer.Option(
        "channels",
        "--urls",
        help="The Chinese web's URL layout: channels: a host per channel (sports.<portal>); "
        "flat: one host, and article URLs that name no section (/a/<date>/<id>.shtml).",
    ),
    layout: str = typer.Option(
        "news",
        "--layout",
        help="news: news portals; academic: universities' sites (English only: departments, "
        "courses, lectures, staff pages; --sites universities of about --articles stories, "
        "default 6 and 300); blog: personal blogs, Chinese or English (posts, lists with "
        "excerpts, categories, tags, monthly archives, comments; --sites blogs of about "
        "--articles posts, default 6 and 150); magazine: online magazines, Chinese or English "
        "(story URLs that name no section or date, card grids with excerpts, kickers or "
        "breadcrumbs, topic, author and search pages; --sites magazines of about --articles "
        "stories, default 5 and 220).",
    ),
    stock_lines: bool = typer.Option(
        True,
        "--stock-lines/--no-stock-lines",
        help="The Chinese news web: a story that has only a headline carries its portal's "
        "stock sentences after its keywords (记者获悉，相关情况仍在进一步了解之中。); "
        "--no-stock-lines: the headline and keywords alone.",
    ),
) -> None:
    """Build a deterministic multi-site web (news portals, universities, blogs or magazines)
    from the labelled corpus."""
    from lab.builder import DEFAULT_SIZES, TITLES, build
    from lab.corpus import LANGUAGES, load_corpus
    from lab.plan import URLS, url_layout_ok

    if lang not in LANGUAGES:
        raise typer.BadParameter(f"expected one of {', '.join(LANGUAGES)}", param_hint="--lang")
    if layout not in ("news", "academic", "blog", "magazine"):
        raise typer.BadParameter("expected news, academic, blog or magazine", param_hint="--layout")
    if layout != "news" and (titles != "section" or urls != "channels" or not stock_lines):
        raise typer.BadParameter(
            f"--titles, --urls and --no-stock-lines shape the news web; the {layout} web has "
            "its own",
            param_hint="--layout",
        )
    if layout in ("blog", "magazine"):
        from lab.blog import DEFAULT_SIZE as BLOG_SIZE
        from lab.blog import build_blog
        from lab.magazine import DEFAULT_SIZE as MAGAZINE_SIZE
        from lab.magazine import build_magazine

        make, size = (
            (build_blog, BLOG_SIZE) if layout == "blog" else (build_magazine, MAGAZINE_SIZE)
        )
        manifest = make(
            load_corpus(corpus, lang),
            out,
            lang=lang,
            seed=seed,
            sites=sites or size[0],
            articles=articles or size[1],
        )
        _echo_manifest(manifest)
        return
    if layout == "academic":
        from lab.academic import DEFAULT_SIZE, build_academic

        if lang != "en":
            raise typer.BadParameter(
                "the academic web is English: add --lang en", param_hint="--lang"
            )
        manifest = build_academic(
            load_corpus(corpus, "en"),
            out,
            seed=seed,
            sites=sites or DEFAULT_SIZE[0],
            articles=articles or DEFAULT_SIZE[1],
        )
        _echo_manifest(manifest)
        return
    if titles not in TITLES:
        raise typer.BadParameter(f"expected one of {', '.join(TITLES)}", param_hint="--titles")
    if not url_layout_ok(urls, lang):
        raise typer.BadParameter(
            f"the Chinese web takes one of {', '.join(URLS)}; the English web mixes its own",
            param_hint="--urls",
        )
    default_sites, default_articles = DEFAULT_SIZES[lang]
    manifest = build(
        corpus,
        out,
        seed=seed,
        sites=sites or default_sites,
        articles=articles or default_articles,
        lang=lang,
        titles=titles,
        urls=urls,
        stock=stock_lines,
    )
    _echo_manifest(manifest)


def _echo_manifest(manifest: dict[str, object]) -> None:
    summary = {k: v for k, v in manifest.items() if k != "hosts"}
    summary["hosts"] = len(manifest["hosts"])  # type: ignore[arg-type]
    typer.echo(json.dumps(summary, ensure_ascii=False, indent=2))


@lab_cli.command("serve")
def serve_cmd(
    directory: Path = typer.Argument(..., help="A directory written by `lab build`."),
    host: str = typer.Option("127.0.0.1", "--host", help="Loopback address to bind."),
    port: int = typer.Option(8870, "--port", help="Port (0 = any free port)."),
    latency_ms: float = typer.Option(0.0, "--latency-ms", min=0, help="Delay per response."),
    error_rate: float = typer.Option(
        0.0, "--error-rate", min=0, max=1, help="Share of requests answered 503."
    ),
) -> None:
    """Serve the lab web as an HTTP proxy on loopback (crawl it with --proxy)."""
    from lab.server import run

    runner = _loop_runner()
    with contextlib.suppress(KeyboardInterrupt):
        runner(run(directory, host=host, port=port, latency_ms=latency_ms, error_rate=error_rate))


@lab_cli.command("load")
def load_cmd(
    directory: Path = typer.Argument(..., help="The built web (its URLs are requested)."),
    proxy: str = typer.Option(
        ..., "--proxy", help="The running `lab serve`, e.g. http://127.0.0.1:8870"
    ),
    requests: int = typer.Option(20000, "--requests", min=1),
    concurrency: int = typer.Option(16, "--concurrency", min=1),
    client: str = typer.Option("raw", "--client", help="raw (asyncio streams) or httpx"),
) -> None:
    """Measure the lab server's requests per second from a loopback client."""
    from lab.load import measure, page_urls

    urls = page_urls(directory)
    result = _loop_runner()(
        measure(proxy, urls, requests=requests, concurrency=concurrency, client=client)
    )
    typer.echo(json.dumps(result.to_dict()))


def _loop_runner() -> Callable[[Coroutine[Any, Any, Any]], Any]:
    try:
        import uvloop

        return uvloop.run
    except ImportError:  # pragma: no cover - uvloop ships with uvicorn[standard]
        return asyncio.run


bench_cli = typer.Typer(help="Benchmarks that print numbers.", no_args_is_help=True)


def register(cli: typer.Typer) -> None:
    """Add the `lab` and `bench` groups to the root command."""
    cli.add_typer(lab_cli, name="lab")
    for module in (
        parse,
        ranking,
        revisit,
        focus,
        match,
        replay,
        trace,
        throughput,
        digest,
        webhook,
    ):
        module.register(bench_cli)
    cli.add_typer(bench_cli, name="bench")
