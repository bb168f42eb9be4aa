"""`timelypush bench parse`: parse (+ tokenize) cost per page, ours beside Scrapy's parse path.

On the saved news pages (../shared/data/html by default), single process, single thread:

- **ours**: ``decode_body`` + ``crawler.parse.parse_html`` (title, meta, canonical, feeds,
  every link canonicalised with anchor and context, main text, content hash, simhash);
- **ours + tokenize**: the same plus ``crawler.text.tokenize(title + text)`` (jieba), when
  ``crawler.text`` provides it;
- **lxml parse only**: decoding and libxml2 tree building alone, the floor for both;
- **beautifulsoup4 + lxml**: the soup tree plus title and hrefs — why the hot path uses
  lxml directly (``--no-bs4`` skips it);
- **scrapy**: ``HtmlResponse`` + ``LinkExtractor().extract_links`` (canonical links with
  anchor text) + title / keywords / description XPaths — what a Scrapy spider does per page.

Each pass parses every page once with every parser, taking turns page by page so that other
load on the machine hits them alike; URL and segmentation caches are cleared before every
pass so repeated passes do not flatter us. Reported: median ms per page over all (page, pass)
samples and pages/s over all passes, in CPU time of the benchmark thread (per core, robust to other
load on the machine); wall-clock figures are in the JSON. Scrapy must be installed (it is in
the dev dependency group).
"""

from __future__ import annotations

import importlib
import json
import os
import platform
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

DEFAULT_PAGES = Path(__file__).resolve().parents[3] / "shared" / "data" / "html"
_SOURCE = re.compile(rb"\s*<!--\s*(https?://\S+?)\s*-->")
_CONTENT_TYPE = "text/html; charset=utf-8"


def load_pages(directory: Path) -> list[tuple[str, bytes]]:
    """(url, body) for every *.html file; the URL from the first-line comment if present."""
    pages = []
    for path in sorted(directory.glob("*.html")):
        body = path.read_bytes()
        match = _SOURCE.match(body)
        url = match.group(1).decode() if match else f"http://bench.example/{path.name}"
        pages.append((url, body))
    return pages


def _ours() -> Callable[[str, bytes], object]:
    from crawler.parse import parse_html

    def run(url: str, body: bytes) -> object:
        return parse_html(body, url, content_type=_CONTENT_TYPE)

    return run


def _floor() -> Callable[[str, bytes], object]:
    """libxml2 parsing alone: the cost no lxml-based parser can go below."""
    from lxml import etree

    parser = etree.HTMLParser(remove_comments=True, encoding="utf-8")

    def run(url: str, body: bytes) -> object:
        body.decode("utf-8", "replace")  # the text every parser here works from
        return etree.fromstring(body, parser)

    return run


def _soup() -> Callable[[str, bytes], object]:
    """BeautifulSoup on the lxml builder: tree, title and hrefs only (less than ours does)."""
    from bs4 import BeautifulSoup

    def run(url: str, body: bytes) -> object:
        soup = BeautifulSoup(body.decode("utf-8", "replace"), "lxml")
        title = soup.title.get_text() if soup.title else ""
        return title, [a.get("href") for a in soup.find_all("a", href=True)]

    return run


def _tokenizer() -> Callable[[str], list[str]] | None:
    try:
        text = importlib.import_module("crawler.text")
    except ImportError:
        return None
    tokenize = getattr(text, "tokenize", None)
    return tokenize if callable(tokenize) else None


def _ours_tokenized(tokenize: Callable[[str], list[str]]) -> Callable[[str, bytes], object]:
    parse = _ours()

    def run(url: str, body: bytes) -> object:
        page: Any = parse(url, body)
        return tokenize(page.title + "\n" + page.text)

    return run


def _scrapy() -> Callable[[str, bytes], object] | None:
    try:
        from scrapy.http import HtmlResponse
        from scrapy.linkextractors import LinkExtractor
    except ImportError:
        return None
    extractor = LinkExtractor()

    def run(url: str, body: bytes) -> object:
        response = HtmlResponse(
            url=url, body=body, headers={"Content-Type": _CONTENT_TYPE}, encoding="utf-8"
        )
        links = extractor.extract_links(response)
        return (
            response.xpath("//title/text()").get(),
            response.xpath("//meta[@name='keywords']/@content").get(),
            response.xpath("//meta[@name='description']/@content").get(),
            [(link.url, link.text) for link in links],
        )

    return run


def _clear_caches() -> None:
    from crawler import text, urls

    for name in ("_canonical_absolute", "registered_domain"):
        cache_clear = getattr(getattr(urls, name), "cache_clear", None)
        if cache_clear is not None:
            cache_clear()
    forget = getattr(text, "clear_cache", None)  # remembered segmentations: no flattering
    if forget is not None:
        forget()


def _summary(cpu: list[float], wall: list[float]) -> dict[str, float]:
    return {
        "median_ms": statistics.median(cpu) * 1000,
        "mean_ms": statistics.fmean(cpu) * 1000,
        "pages_per_s": len(cpu) / sum(cpu) if sum(cpu) else 0.0,
        "wall_median_ms": statistics.median(wall) * 1000,
        "wall_pages_per_s": len(wall) / sum(wall) if sum(wall) else 0.0,
    }


def measure(
    runners: dict[str, Callable[[str, bytes], object]],
    pages: list[tuple[str, bytes]],
    repeat: int,
) -> dict[str, dict[str, float]]:
    """Median ms/page and pages/s of every runner over ``repeat`` passes.

    The runners take turns page by page (after one warm-up pass), so a busy machine slows
    them alike and the comparison stays fair. Our URL caches are cleared before each pass.
    """
    for run in runners.values():
        for url, body in pages:
            run(url, body)
    cpu: dict[str, list[float]] = {name: [] for name in runners}
    wall: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(repeat):
        _clear_caches()
        for url, body in pages:
            for name, run in runners.items():
                start, start_cpu = time.perf_counter(), time.thread_time()
                run(url, body)
                cpu[name].append(time.thread_time() - start_cpu)
                wall[name].append(time.perf_counter() - start)
    return {name: _summary(cpu[name], wall[name]) for name in runners}


def machine() -> dict[str, Any]:
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        model = platform.processor()
    return {"nproc": os.cpu_count(), "cpu": model, "python": platform.python_version()}


def run_bench(directory: Path, repeat: int, *, with_soup: bool = True) -> dict[str, Any]:
    pages = load_pages(directory)
    if not pages:
        raise typer.BadParameter(f"no *.html pages in {directory}")
    results: dict[str, Any] = {
        "pages": len(pages),
        "bytes": sum(len(body) for _, body in pages),
        "repeat": repeat,
        "machine": machine(),
        "results": {},
    }
    runners = {"lxml parse only (floor)": _floor(), "ours (parse)": _ours()}
    tokenize = _tokenizer()
    if tokenize is not None:
        runners["ours (parse + tokenize)"] = _ours_tokenized(tokenize)
    scrapy = _scrapy()
    if scrapy is not None:
        runners["scrapy (parse)"] = scrapy
    if with_soup:
        runners["beautifulsoup4 + lxml (title, hrefs)"] = _soup()
    results["results"] = measure(runners, pages, repeat)
    results["load_average"] = os.getloadavg()
    return results


def register(bench_cli: typer.Typer) -> None:
    """Add `bench parse` to the bench group."""

    @bench_cli.command("parse")
    def bench_parse(
        pages: Path = typer.Option(DEFAULT_PAGES, "--pages", help="Directory of saved *.html"),
        repeat: int = typer.Option(5, "--repeat", min=1, help="Timed passes over the pages"),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table"),
        soup: bool = typer.Option(True, "--bs4/--no-bs4", help="Also time BeautifulSoup"),
    ) -> None:
        """Parse (+ tokenize) cost per page: median ms and pages/s, ours vs Scrapy's."""
        results = run_bench(pages, repeat, with_soup=soup)
        if as_json:
            typer.echo(json.dumps(results, ensure_ascii=False, indent=2))
            return
        info = results["machine"]
        typer.echo(
            f"{results['pages']} pages ({results['bytes'] / 1e6:.1f} MB), {repeat} passes, "
            f"1 thread; {info['nproc']} × {info['cpu']}, Python {info['python']}; "
            f"load average {results['load_average'][0]:.1f}"
        )
        typer.echo("CPU time of the benchmark thread (one core):")
        typer.echo(f"{'parser':<38}{'median ms/page':>16}{'mean ms/page':>14}{'pages/s':>10}")
        for name, row in results["results"].items():
            typer.echo(
                f"{name:<38}{row['median_ms']:>16.2f}{row['mean_ms']:>14.2f}"
                f"{row['pages_per_s']:>10.0f}"
            )
