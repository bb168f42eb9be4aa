"""Prometheus metrics, served by ``GET /metrics`` (app/main.py).

Two kinds of numbers:

- Counters of this process (``timelypush_crawls_total{status}``, ``timelypush_pages_total``,
  ``timelypush_matches_total``, ``timelypush_fetch_errors_total{kind}``): in the embedded
  mode the web process runs the crawls, so they cover everything.
- Gauges read from the database (and Redis) at scrape time, true across every worker on
  every machine: crawl runs by status, pages, matches, sites due now, the Celery queue
  length, deliveries by status and channel, fetch errors by kind over the last 24 hours.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, Counter, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

logger = logging.getLogger(__name__)

CRAWLS = Counter("timelypush_crawls", "Site visits finished by this process.", ["status"])
PAGES = Counter("timelypush_pages", "Pages fetched by this process.")
MATCHES = Counter("timelypush_matches", "New matches found by this process.")
FETCH_ERRORS = Counter("timelypush_fetch_errors", "Fetch errors of this process by kind.", ["kind"])


class DatabaseCollector(Collector):
    """Gauges computed from the database (and the Celery queue in Redis) at scrape time."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            yield from self._collect()
        except Exception as exc:  # a scrape must never fail because the DB is down
            logger.warning("metrics: database gauges unavailable: %s", exc)
            up = GaugeMetricFamily("timelypush_database_up", "Database reachable at scrape.")
            up.add_metric([], 0)
            yield up

    def _collect(self) -> Iterator[GaugeMetricFamily]:
        from sqlalchemy import func
        from sqlmodel import Session, col, select

        from app.core.config import get_settings
        from app.core.db import get_engine
        from app.models import CrawlRun, Delivery, Match, Page, Site, utcnow

        now = utcnow()
        with Session(get_engine()) as session:
            runs = session.exec(
                select(col(CrawlRun.status), func.count()).group_by(col(CrawlRun.status))
            ).all()
            pages = session.exec(select(func.count()).select_from(Page)).one()
            matches = session.exec(select(func.count()).select_from(Match)).one()
            due = session.exec(
                select(func.count()).select_from(Site).where(col(Site.next_visit_at) <= now)
            ).one()
            deliveries = session.exec(
                select(col(Delivery.status), col(Delivery.channel), func.count()).group_by(
                    col(Delivery.status), col(Delivery.channel)
                )
            ).all()
            recent: list[Any] = list(
                session.exec(
                    select(col(CrawlRun.stats))
                    .where(col(CrawlRun.started_at) >= now - timedelta(hours=24))
                    .limit(10_000)
                )
            )
        up = GaugeMetricFamily("timelypush_database_up", "Database reachable at scrape.")
        up.add_metric([], 1)
        yield up
        g = GaugeMetricFamily("timelypush_crawl_runs", "Crawl runs by status.", labels=["status"])
        for status, n in runs:
            g.add_metric([status], n)
        yield g
        yield _gauge("timelypush_pages_stored", "Pages stored.", pages)
        yield _gauge("timelypush_matches_stored", "Matches stored.", matches)
        yield _gauge("timelypush_sites_due", "Sites due for a visit now.", due)
        d = GaugeMetricFamily(
            "timelypush_deliveries",
            "Deliveries by status and channel.",
            labels=["status", "channel"],
        )
        for status, channel, n in deliveries:
            d.add_metric([status, channel], n)
        yield d
        kinds: dict[str, int] = {}
        for stats in recent:
            for kind, n in ((stats or {}).get("error_kinds") or {}).items():
                kinds[kind] = kinds.get(kind, 0) + int(n)
        e = GaugeMetricFamily(
            "timelypush_fetch_errors_24h",
            "Fetch errors by kind in the last 24 hours.",
            labels=["kind"],
        )
        for kind, n in sorted(kinds.items()):
            e.add_metric([kind], n)
        yield e
        settings = get_settings()
        if settings.redis_url:
            yield _gauge(
                "timelypush_queue_depth",
                "Tasks waiting in the Celery queue.",
                _queue_depth(settings.redis_url),
            )


def _gauge(name: str, doc: str, value: float) -> GaugeMetricFamily:
    g = GaugeMetricFamily(name, doc)
    g.add_metric([], value)
    return g


def _queue_depth(url: str) -> int:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
    try:
        return int(client.llen("celery"))
    except redis.RedisError:
        return -1
    finally:
        client.close()


_collector: DatabaseCollector | None = None


def register_collector() -> None:
    """Add the database gauges to the default registry (once per process)."""
    global _collector
    if _collector is None:
        _collector = DatabaseCollector()
        REGISTRY.register(_collector)


def exposition() -> tuple[bytes, str]:
    """Every metric of the default registry in the text format, and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
