"""One crawl of the lab web in a fresh process, for `bench throughput`.

``python -m lab.bench.crawl_worker ours|scrapy --proxy URL --seed URL --pages N
--concurrency C [--strategy S] [--profile FILE]`` prints one JSON line: pages, and the seconds
and CPU seconds of the crawl itself (from its start to its end, start-up excluded), and with
``--profile`` writes cProfile statistics of the crawl. The whole process — imports, jieba's
dictionary, the crawl, exit — is timed by the parent (``bench throughput``), which is what it
compares. Ours runs the product's defaults: the strategy (``adaptive`` unless ``--strategy``),
its parameters and the judgment model; nothing is loaded before the crawl starts.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import logging
import os
import resource
import time
from typing import Any
from urllib.parse import urlsplit

KEYWORDS = ["体育", "足球", "篮球", "比赛"]
"""The coarse sports topic of the Chinese lab web (``--keywords`` for another)."""


PROFILER: cProfile.Profile | None = None
"""Set by ``--profile``: enabled only while the crawl runs (start-up is not profiled)."""


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _begin() -> tuple[float, float]:
    if PROFILER is not None:
        PROFILER.enable()
    return _clock()


def _end() -> tuple[float, float]:
    if PROFILER is not None:
        PROFILER.disable()
    return _clock()


async def _ours(args: argparse.Namespace) -> dict[str, Any]:
    from crawler import CrawlConfig, TopicProfile, crawl
    from crawler.fetchconfig import FETCH_PROCESS_MODES
    from lab.runner import lab_fetch_config

    config = CrawlConfig(
        max_pages=args.pages,
        scope="any",
        strategy=args.strategy,
        fetch=lab_fetch_config(args.proxy, args.concurrency),
        fetch_process=FETCH_PROCESS_MODES[args.fetch_process],
    )
    pages = errors = pushed = 0
    wall, cpu = _begin()
    async for event in crawl([args.seed], TopicProfile.from_keywords(args.keywords), config):
        if event.final:
            pushed += event.matched
        elif event.page is not None and event.error is None:
            pages += 1
            pushed += event.matched
        else:
            errors += 1
    end_wall, end_cpu = _end()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "pages": pages,
        "errors": errors,
        "pushed": pushed,
        "seconds": end_wall - wall,
        "cpu": end_cpu - cpu,
        # the fetch process (if any) has ended and been reaped by now
        "self_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "children_rss_mb": children.ru_maxrss / 1024,
    }


def _scrapy(args: argparse.Namespace) -> dict[str, Any]:
    """A minimal breadth-first Scrapy spider over every *.test host, through the proxy."""
    import scrapy
    from scrapy.crawler import CrawlerProcess

    os.environ["http_proxy"] = args.proxy  # robots.txt requests go through the proxy too
    result: dict[str, Any] = {"pages": 0, "errors": 0}
    clocks: dict[str, tuple[float, float]] = {}

    class LabSpider(scrapy.Spider):
        name = "lab"
        custom_settings = {  # noqa: RUF012
            "CONCURRENT_REQUESTS": args.concurrency,
            "CONCURRENT_REQUESTS_PER_DOMAIN": args.concurrency,
            "DOWNLOAD_DELAY": 0,
            "ROBOTSTXT_OBEY": True,
            "CLOSESPIDER_PAGECOUNT": args.pages,
            "DEPTH_PRIORITY": 1,
            "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
            "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
            "RETRY_ENABLED": False,
            "LOG_LEVEL": "ERROR",
            "TELNETCONSOLE_ENABLED": False,
            "COOKIES_ENABLED": False,
            "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
            "HTTPERROR_ALLOW_ALL": True,
        }

        async def start(self):  # type: ignore[no-untyped-def]
            clocks["start"] = _begin()
            yield scrapy.Request(args.seed, meta={"proxy": args.proxy})

        def closed(self, reason: str) -> None:
            clocks["end"] = _end()
            result["reason"] = reason

        def parse(self, response):  # type: ignore[no-untyped-def]
            if response.status != 200:
                result["errors"] += 1
                return
            result["pages"] += 1
            for href in response.css("a::attr(href)").getall():
                url = response.urljoin(href)
                host = urlsplit(url).hostname or ""
                if url.startswith("http://") and host.endswith(".test"):
                    yield scrapy.Request(url, meta={"proxy": args.proxy})

    process = CrawlerProcess({"LOG_LEVEL": "ERROR"})
    process.crawl(LabSpider)
    process.start()
    (wall, cpu), (end_wall, end_cpu) = clocks["start"], clocks["end"]
    result.update(seconds=end_wall - wall, cpu=end_cpu - cpu)
    return result


def main() -> None:
    from crawler.fetchconfig import FETCH_PROCESS_MODES  # light: no HTTP stack, no crawler

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("crawler", choices=("ours", "scrapy"))
    parser.add_argument("--proxy", required=True)
    parser.add_argument("--seed", required=True)
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--strategy", default="adaptive")
    parser.add_argument("--profile", default=None)
    parser.add_argument(
        "--fetch-process",
        choices=tuple(FETCH_PROCESS_MODES),
        default="auto",
        help="Fetch and parse in a child process (auto: the product default).",
    )
    parser.add_argument("--keywords", default=",".join(KEYWORDS), help="Comma-separated.")
    args = parser.parse_args()
    global PROFILER
    PROFILER = cProfile.Profile() if args.profile else None
    if args.crawler == "ours":
        logging.basicConfig(level=logging.ERROR)
        try:
            import uvloop

            result = uvloop.run(_ours(args))
        except ImportError:  # pragma: no cover
            result = asyncio.run(_ours(args))
    else:
        result = _scrapy(args)
    if PROFILER is not None:
        PROFILER.dump_stats(args.profile)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
