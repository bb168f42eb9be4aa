"""Sites: the crawl targets shared by every concern with the same seed and scope.

A site is identified by ``scope_key(seed_url, scope)``::

    "<scope>:<host>[:<port>]<path>[?<query>]"

The host is lowercased (IDNA for non-ASCII names), a default port is dropped, the scheme and
fragment are dropped, an empty path becomes "/". The seed path is part of the key on purpose,
for every scope: a site visit starts from its one ``seed_url``, so two concerns on different
sections of one host (``news.example.com/tech`` and ``news.example.com/sports``) stay two sites
and each keeps its own starting point; everyone watching the same seed shares one crawl.
``scope`` ("host", "domain", "any") is part of the key because it changes what one visit covers.

These functions flush but do not commit; the calling use case commits.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from sqlalchemy import exists, or_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from app.models import SCOPES, Concern, CrawlRun, Site, utcnow
from app.services.errors import Invalid

logger = logging.getLogger(__name__)

_DEFAULT_PORTS = {"http": 80, "https": 443}


def scope_key(seed_url: str, scope: str) -> str:
    """The identity of the site a concern with this seed and scope crawls."""
    if scope not in SCOPES:
        raise Invalid("Choose the scope: host, domain or any.", details={"field": "scope"})
    parts = urlsplit(seed_url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if scheme not in _DEFAULT_PORTS or not host:
        raise Invalid(
            "“%(url)s” is not a valid web address.",
            details={"field": "seed_url"},
            params={"url": seed_url},
        )
    try:
        host = host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        host = host.lower()
    port = parts.port
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    path = parts.path or "/"
    query = f"?{parts.query}" if parts.query else ""
    return f"{scope}:{netloc}{path}{query}"[:2100]


def attach_site(session: Session, concern: Concern) -> Site:
    """Find or create the shared site of ``concern`` and link it (race-safe).

    Two processes adding the first concern for one seed at once both end up with the same
    row: the insert is ``ON CONFLICT (scope_key) DO NOTHING`` and the row is read back.
    """
    key = scope_key(concern.seed_url, concern.scope)
    site = session.exec(select(Site).where(Site.scope_key == key)).first()
    if site is None:
        values = Site(scope_key=key, seed_url=concern.seed_url, scope=concern.scope)
        row = values.model_dump(exclude={"id"})
        dialect = session.get_bind().dialect.name
        insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
        stmt = insert(Site).values(**row).on_conflict_do_nothing(index_elements=["scope_key"])
        session.exec(stmt)
        site = session.exec(select(Site).where(Site.scope_key == key)).one()
        logger.info("site %s for %s", site.id, key)
    concern.site_id = site.id
    session.add(concern)
    session.flush()
    return site


def visited_since(session: Session, site_id: int, since: datetime) -> bool:
    """Whether a visit of the site that finished (read it, or found it unchanged) began at or
    after ``since``: a concern created or changed at ``since`` has been judged on the site as
    it is only then. A visit's end is no measure: a concern added while one ran was not part of it.
    (A range on ``ix_crawl_runs_site_started``: the runs since, not the site's whole history.)"""
    query = select(CrawlRun.id).where(
        CrawlRun.site_id == site_id,
        col(CrawlRun.started_at) >= since,
        col(CrawlRun.status).in_(("ok", "not_modified")),
    )
    return session.exec(select(exists(query))).one()


def check_now(session: Session, site: Site) -> Site:
    """Ask for a visit as soon as the scheduler next looks (next_visit_at = now)."""
    now = utcnow()
    if site.next_visit_at is None or site.next_visit_at > now:
        site.next_visit_at = now
        session.add(site)
        session.flush()
    return site


# --- handing out due visits ------------------------------------------------------------------


def due_site_ids(session: Session, limit: int = 100) -> list[int]:
    """Sites with an enabled concern whose next visit is due (or never set), not locked."""
    now = utcnow()
    has_concern = exists().where(
        col(Concern.site_id) == col(Site.id), col(Concern.enabled).is_(True)
    )
    due = col(Site.next_visit_at)
    locked = col(Site.locked_until)
    stmt = (
        select(col(Site.id))
        .where(has_concern, or_(due.is_(None), due <= now), or_(locked.is_(None), locked < now))
        .order_by(due)
        .limit(limit)
    )
    return [int(i) for i in session.exec(stmt) if i is not None]


def lease_visit(session: Session, site_id: int, seconds: float) -> bool:
    """Push the site's next visit out by ``seconds`` unless someone else already did.

    A compare-and-set, so two schedulers never hand out the same visit; if the crawl never
    happens (queue lost, worker killed) the site is due again when the lease runs out.
    """
    now = utcnow()
    table = Site.__table__  # type: ignore[attr-defined]
    stmt = (
        update(table)
        .where(
            table.c.id == site_id,
            or_(table.c.next_visit_at.is_(None), table.c.next_visit_at <= now),
        )
        .values(next_visit_at=now + timedelta(seconds=seconds))
    )
    return session.exec(stmt).rowcount == 1
