"""The durable outbox: every notification is a ``Delivery`` row first, then sent by a worker.

Life of a row::

    pending ──claim──▶ sending ──ok──▶ sent
       ▲                  │ └─permanent / too many attempts──▶ dead
       └── failed ◀───────┘ (transient: next_attempt_at = now + backoff with jitter)

A claim sets ``status='sending'`` and ``next_attempt_at = now + LEASE`` with a conditional
UPDATE (rowcount check), so concurrent workers never take the same row. A worker that dies
after claiming leaves the row in 'sending'; once the lease expires it is claimed again and
re-sent with the same Message-ID / webhook-id (derived from the idempotency key), so the
receiver can drop a duplicate and nothing is ever lost.

Idempotency keys: ``i:{user}:{channel}:{match}`` (instant), ``d:{user}:email:{local date}``
(daily digest), ``s:{user}:{channel}:{concern}`` (first-visit summary),
``n:{user}:email:webhook-gone:{date}`` (notice), ``…:r{n}`` (user resend); an Apprise
channel's part is ``apprise-{channel id}`` and its row's target is that id (the URL, which
may hold a token, stays in ``push_channels``).
Instant email/SMS/Apprise rows wait for the grouping window (``push_group_seconds``): the
first of a burst opens it, the rest join it, and fresh rows of one user × channel × target
that are due together are merged into one message: the lowest id carries every match, the
others are parked until it finishes and then share its outcome.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from contextlib import AsyncExitStack
from datetime import datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import func, update
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, col, select

from app.core.config import Settings, get_settings
from app.core.db import session_scope
from app.models import (
    APPRISE,
    Concern,
    Delivery,
    DeliveryChannel,
    DeliveryKind,
    DeliveryStatus,
    Match,
    PushChannel,
    User,
    concerns_query,
    utcnow,
)
from app.services import channels, sites
from app.services.delivery_compose import (
    Composer,
    load,
)
from app.services.delivery_policy import (
    DIGEST_MODES,
    INSTANT_MODES,
    MAX_ATTEMPTS,
    backoff,
    due_digest,
    effective_mode,
    quiet_until,
)
from app.services.urlcheck import guarded_client
from push import Channel, DeliveryResult, Message, new_secret

logger = logging.getLogger(__name__)

LEASE = timedelta(minutes=5)
PARK = timedelta(days=7)
SEND_CONCURRENCY = 16
MERGEABLE = (DeliveryChannel.EMAIL, DeliveryChannel.SMS, DeliveryChannel.APPRISE)
SUMMARY_WAIT = timedelta(minutes=2)
"""A first-visit summary goes out this long after the last match it lists (at least)."""
RESEND = re.compile(r":r\d+$")
_table = Delivery.__table__  # type: ignore[attr-defined]


# --- enqueue ---------------------------------------------------------------------------------


def enabled_targets(user: User) -> list[tuple[str, str]]:
    """The instant channels the user has turned on, with their addresses."""
    out: list[tuple[str, str]] = []
    # email and SMS go only to an address the user has verified
    if user.email_enabled and user.email and user.email_verified_at is not None:
        out.append((DeliveryChannel.EMAIL, user.email))
    if user.webhook_enabled and user.webhook_url and user.webhook_disabled_at is None:
        out.append((DeliveryChannel.WEBHOOK, user.webhook_url))
    if user.sms_enabled and user.phone and user.phone_verified_at is not None:
        out.append((DeliveryChannel.SMS, user.phone))
    return out


def _row(
    key: str, user_id: int, channel: str, target: str, now: datetime, **kw: Any
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "idempotency_key": key,
        "user_id": user_id,
        "match_id": None,
        "match_ids": [],
        "digest_date": None,
        "kind": DeliveryKind.INSTANT,
        "channel": channel,
        "target": target[:2048],
        "status": DeliveryStatus.PENDING,
        "attempts": 0,
        "next_attempt_at": now,
        "last_error": None,
        "sent_at": None,
        "created_at": now,
    }
    row.update(kw)
    return row


def _insert_ignore(session: OrmSession, rows: Sequence[dict[str, Any]]) -> int:
    """Insert outbox rows, skipping keys that exist already (INSERT … ON CONFLICT DO NOTHING)."""
    if not rows:
        return 0
    from sqlalchemy.dialects import postgresql, sqlite

    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    inserted = 0
    conn = session.connection()
    for i in range(0, len(rows), 200):
        stmt = dialect.insert(_table).values(list(rows[i : i + 200]))
        stmt = stmt.on_conflict_do_nothing(index_elements=["idempotency_key"])
        inserted += len(conn.execute(stmt.returning(_table.c.id)).all())
    return inserted


def _apprise_channels(session: Session, user_ids: Iterable[int]) -> dict[int, list[PushChannel]]:
    """The enabled Apprise channels of these users."""
    out: dict[int, list[PushChannel]] = defaultdict(list)
    ids = sorted(set(user_ids))
    for i in range(0, len(ids), 900):
        q = select(PushChannel).where(
            col(PushChannel.user_id).in_(ids[i : i + 900]), col(PushChannel.enabled).is_(True)
        )
        for ch in session.exec(q.order_by(col(PushChannel.id))):
            out[ch.user_id].append(ch)
    return out


def _instant_targets(
    user: User, mode: str, apprise: Sequence[PushChannel]
) -> list[tuple[str, str, str]]:
    """``(channel, target, key part)`` of every channel a match of ``mode`` goes to at once.

    The profile's channels follow the concern's (or user's) push mode; an Apprise channel
    follows its own instant / digest choice unless the concern is off."""
    out = []
    if mode in INSTANT_MODES:
        out = [(c, t, c) for c, t in enabled_targets(user)]
    if mode != "off":
        for ch in apprise:
            if ch.mode in INSTANT_MODES and ch.id is not None:
                out.append((APPRISE, str(ch.id), f"{APPRISE}-{ch.id}"))
    return out


def _first_visit(session: Session, concerns: dict[int | None, Concern]) -> set[int]:
    """The concerns whose site is on its first visit since the concern was created (no
    visit that finished began after it: one under way when it was added did not read the site
    for it)."""
    return {
        c.id
        for c in concerns.values()
        if c.id is not None
        and c.site_id is not None
        and not sites.visited_since(session, c.site_id, c.created_at)
    }


def _open_batches(
    session: Session, user_ids: Iterable[int], now: datetime
) -> dict[tuple[int, str, str], datetime]:
    """When each user × channel × target's waiting group of instant pushes goes out."""
    q = (
        select(
            Delivery.user_id, Delivery.channel, Delivery.target, func.max(Delivery.next_attempt_at)
        )
        .where(
            col(Delivery.user_id).in_(sorted(set(user_ids))),
            col(Delivery.status) == DeliveryStatus.PENDING,
            col(Delivery.kind) == DeliveryKind.INSTANT,
            col(Delivery.attempts) == 0,
            col(Delivery.channel).in_((*MERGEABLE, DeliveryChannel.WEBHOOK)),
            col(Delivery.next_attempt_at) > now,
        )
        .group_by(col(Delivery.user_id), col(Delivery.channel), col(Delivery.target))
    )
    return {(u, c, t): due for u, c, t, due in session.exec(q) if due is not None}


def _extend_summary(session: Session, key: str, match_ids: list[int], due: datetime) -> bool:
    """Add matches to the still-waiting first-visit summary ``key`` (and push its time on);
    False when it has gone out already (or is being sent)."""
    row = session.exec(
        select(Delivery.id, Delivery.match_ids).where(
            Delivery.idempotency_key == key,
            col(Delivery.status) == DeliveryStatus.PENDING,
            col(Delivery.attempts) == 0,
        )
    ).first()
    if row is None:
        return False
    row_id, ids = row
    merged = sorted(set(ids or []) | set(match_ids))
    done = session.connection().execute(
        update(_table)
        .where(
            _table.c.id == row_id, _table.c.status == DeliveryStatus.PENDING, _table.c.attempts == 0
        )
        .values(match_ids=merged, next_attempt_at=due)
    )
    return bool(done.rowcount)


def enqueue_for_matches(session: Session, matches: Iterable[Match]) -> int:
    """Write instant deliveries for new matches, inside the caller's (crawl) transaction.

    One row per match × channel the match goes to at once (``_instant_targets``); during
    quiet hours the row waits until they end. Email, SMS and Apprise rows wait for the
    grouping window (``push_group_seconds``, opened by the first of a burst) so that a burst
    goes out as one message; webhooks stay one event per match unless the user asked for
    batches. Matches found by the first visit of a new concern go into one "what is on the
    site now" summary per channel instead (not webhooks). Returns rows added or extended.
    """
    matches = list(matches)
    if not matches:
        return 0
    session.flush()
    now = utcnow()
    group = timedelta(seconds=max(0.0, get_settings().push_group_seconds))
    summary_wait = max(group, SUMMARY_WAIT)
    user_ids = {m.user_id for m in matches}
    users = {u.id: u for u in session.exec(select(User).where(col(User.id).in_(user_ids)))}
    concern_ids = {m.concern_id for m in matches}
    concerns = {
        c.id: c for c in session.exec(concerns_query().where(col(Concern.id).in_(concern_ids)))
    }
    apprise = _apprise_channels(session, user_ids)
    first = _first_visit(session, concerns)
    batches = _open_batches(session, user_ids, now) if group else {}
    rows = []
    summaries: dict[tuple[int, str, str, str, int], list[int]] = defaultdict(list)
    for m in matches:
        user = users.get(m.user_id)
        if user is None or user.id is None or m.id is None or not user.is_active:
            continue
        mode = effective_mode(user, concerns.get(m.concern_id))
        base = quiet_until(user, now) or now
        for channel, target, part in _instant_targets(user, mode, apprise.get(user.id, [])):
            if m.concern_id in first and channel != DeliveryChannel.WEBHOOK:
                summaries[(user.id, channel, target, part, m.concern_id)].append(m.id)
                continue
            due = base
            batched = channel in MERGEABLE or (
                channel == DeliveryChannel.WEBHOOK and user.webhook_batch
            )
            if group and batched:
                slot = (user.id, channel, target)
                due = max(base, batches.get(slot) or base + group)
                batches[slot] = due
            key = f"i:{user.id}:{part}:{m.id}"
            rows.append(_row(key, user.id, channel, target, due, match_id=m.id, match_ids=[m.id]))
    extended = 0
    for (uid, channel, target, part, cid), ids in summaries.items():
        key = f"s:{uid}:{part}:{cid}"
        due = (quiet_until(users[uid], now) or now) + summary_wait
        if _extend_summary(session, key, ids, due) or _insert_ignore(
            session,
            [
                _row(
                    key, uid, channel, target, due, kind=DeliveryKind.SUMMARY, match_ids=sorted(ids)
                )
            ],
        ):
            extended += 1
        else:  # the summary went out already: these are ordinary instant pushes
            for mid in ids:
                k = f"i:{uid}:{part}:{mid}"
                rows.append(
                    _row(k, uid, channel, target, now + group, match_id=mid, match_ids=[mid])
                )
    added = _insert_ignore(session, rows)
    logger.info(
        "outbox: %d instant deliveries, %d first-visit summaries for %d matches",
        added,
        extended,
        len(matches),
    )
    return added + extended


def _digest_matches(
    session: Session, windows_of: dict[int, tuple[datetime, datetime]]
) -> dict[int, list[tuple[int, str | None]]]:
    """Each user's (match id, the concern's push mode) created in the user's digest window
    (after its start, up to its end); users sharing a window are queried together."""
    windows: dict[tuple[datetime, datetime], list[int]] = defaultdict(list)
    for uid, window in windows_of.items():
        windows[window].append(uid)
    by_user: dict[int, list[tuple[int, str | None]]] = defaultdict(list)
    for (lo, hi), ids in windows.items():
        for i in range(0, len(ids), 900):
            q = (
                select(Match.id, Match.user_id, Concern.push_mode)
                .join(Concern, col(Concern.id) == Match.concern_id)
                .where(
                    col(Match.user_id).in_(ids[i : i + 900]),
                    col(Match.deleted_at).is_(None),
                    col(Match.created_at) > lo,
                    col(Match.created_at) <= hi,
                )
            )
            for mid, uid, mode in session.exec(q):
                if mid is not None:
                    by_user[uid].append((mid, mode))
    return by_user


def enqueue_due_digests(now: datetime | None = None) -> int:
    """Write the daily digest rows of every user whose local digest time has passed.

    The digest of local date D covers matches created between the digest times of D-1 and D:
    by email from concerns in digest or both mode, and to each Apprise channel in digest or
    both mode from every concern that is not off. Nothing is written when there is nothing
    new, unless the user asked for a "nothing today" mail. Returns the number of rows added.
    """
    now = now or utcnow()
    with session_scope() as session:
        digest_channels = select(PushChannel.user_id).where(
            col(PushChannel.enabled).is_(True), col(PushChannel.mode).in_(DIGEST_MODES)
        )
        users = session.exec(
            select(User).where(
                col(User.is_active).is_(True),
                (col(User.email_enabled).is_(True) & col(User.email_verified_at).is_not(None))
                | col(User.id).in_(digest_channels),
            )
        ).all()
        due = {u.id: due_digest(u, now) for u in users if u.id is not None}
        if not due:
            return 0
        apprise = {
            uid: [c for c in chs if c.mode in DIGEST_MODES]
            for uid, chs in _apprise_channels(session, due).items()
        }

        def targets(user: User) -> list[tuple[str, str, str]]:
            assert user.id is not None
            out: list[tuple[str, str, str]] = []
            if user.email_enabled:
                out.append((DeliveryChannel.EMAIL, user.email, "email"))
            out += [(APPRISE, str(c.id), f"{APPRISE}-{c.id}") for c in apprise.get(user.id, [])]
            return out

        def key(uid: int, part: str) -> str:
            return f"d:{uid}:{part}:{due[uid][0].isoformat()}"

        dates = {d.isoformat() for d, _, _ in due.values()}
        existing = set(
            session.exec(
                select(Delivery.idempotency_key).where(
                    Delivery.kind == DeliveryKind.DIGEST, col(Delivery.digest_date).in_(dates)
                )
            ).all()
        )
        todo = [
            u
            for u in users
            if u.id is not None and any(key(u.id, p) not in existing for _, _, p in targets(u))
        ]
        if not todo:
            return 0
        by_user = _digest_matches(session, {u.id: due[u.id][1:] for u in todo if u.id is not None})
        rows = []
        for user in todo:
            assert user.id is not None
            day = due[user.id][0]
            found = by_user.get(user.id, [])
            for channel, target, part in targets(user):
                if channel == DeliveryChannel.EMAIL:
                    picked = [m for m, mode in found if (mode or user.push_mode) in DIGEST_MODES]
                    empty_ok = user.digest_when_empty and user.push_mode in DIGEST_MODES
                else:
                    picked = [m for m, mode in found if (mode or user.push_mode) != "off"]
                    empty_ok = user.digest_when_empty
                if not picked and not empty_ok:
                    continue
                rows.append(
                    _row(
                        key(user.id, part),
                        user.id,
                        channel,
                        target,
                        now,
                        kind=DeliveryKind.DIGEST,
                        digest_date=day.isoformat(),
                        match_ids=sorted(picked),
                    )
                )
        added = _insert_ignore(session, rows)
    logger.info("outbox: %d digests due", added)
    return added


# --- claim, send, record ---------------------------------------------------------------------


def _claim(limit: int, now: datetime) -> list[Delivery]:
    """Take up to ``limit`` due rows for this worker (pending, failed, or lease expired)."""
    with session_scope() as session:
        q = (
            select(Delivery.id, Delivery.status)
            .where(
                col(Delivery.status).in_(
                    (DeliveryStatus.PENDING, DeliveryStatus.FAILED, DeliveryStatus.SENDING)
                ),
                col(Delivery.next_attempt_at) <= now,
            )
            .order_by(col(Delivery.next_attempt_at), col(Delivery.id))
            .limit(limit)
        )
        if session.get_bind().dialect.name == "postgresql":
            q = q.with_for_update(skip_locked=True)
        candidates = [row_id for row_id, _ in session.exec(q).all()]
        if not candidates:
            return []
        # one conditional UPDATE: a row another worker took meanwhile no longer matches
        claim = (
            update(_table)
            .where(
                _table.c.id.in_(candidates),
                _table.c.status.in_(
                    (DeliveryStatus.PENDING, DeliveryStatus.FAILED, DeliveryStatus.SENDING)
                ),
                _table.c.next_attempt_at <= now,
            )
            .values(
                status=DeliveryStatus.SENDING,
                attempts=_table.c.attempts + 1,
                next_attempt_at=now + LEASE,
            )
            .returning(_table.c.id)
        )
        claimed = [row_id for (row_id,) in session.connection().execute(claim)]
        if not claimed:
            return []
        rows = list(session.exec(select(Delivery).where(col(Delivery.id).in_(claimed))).all())
        rows.sort(key=lambda r: r.id or 0)
        return _merge(session, rows, now)


def _merge(session: Session, rows: list[Delivery], now: datetime) -> list[Delivery]:
    """Merge fresh instant email/SMS/Apprise rows (and webhook rows of users who asked for
    batches) of one user × channel × target into the lowest-id row.

    Only rows never tried before are merged (a row already sent once must keep its content,
    since its Message-ID is fixed), and user resends are never merged.
    """
    groups: dict[tuple[int, str, str], list[Delivery]] = defaultdict(list)
    keep: list[Delivery] = []
    hook_users = {
        r.user_id
        for r in rows
        if r.channel == DeliveryChannel.WEBHOOK and r.kind == DeliveryKind.INSTANT
    }
    batching = (
        set(
            session.exec(
                select(User.id).where(
                    col(User.id).in_(hook_users), col(User.webhook_batch).is_(True)
                )
            ).all()
        )
        if hook_users
        else set()
    )
    for row in rows:
        fresh = row.attempts == 1 and not RESEND.search(row.idempotency_key)
        mergeable = row.channel in MERGEABLE or (
            row.channel == DeliveryChannel.WEBHOOK and row.user_id in batching
        )
        if row.kind == DeliveryKind.INSTANT and mergeable and fresh:
            groups[(row.user_id, row.channel, row.target)].append(row)
        else:
            keep.append(row)
    for group in groups.values():
        primary, rest = group[0], group[1:]
        keep.append(primary)
        if not rest:
            continue
        ids: set[int] = set(primary.match_ids)
        for other in rest:
            ids.update(other.match_ids)
            other.next_attempt_at = now + PARK
            other.merged_into_id = primary.id
            session.add(other)
        primary.match_ids = sorted(ids)
        session.add(primary)
    keep.sort(key=lambda r: r.id or 0)
    return keep


def _wanted(
    row: Delivery, user: User | None, apprise: dict[int, PushChannel] | None = None
) -> str | None:
    """Why the row must not be sent any more (the user changed their settings), or None."""
    if user is None or not user.is_active:
        return "user is gone or inactive"
    # no email or SMS to an address the user has not verified (or no longer has)
    if row.channel == DeliveryChannel.EMAIL and (
        user.email_verified_at is None or row.target != user.email
    ):
        return "email address not verified"
    if row.channel == DeliveryChannel.SMS and (
        user.phone_verified_at is None or row.target != user.phone
    ):
        return "phone number not verified"
    if row.kind not in (DeliveryKind.INSTANT, DeliveryKind.DIGEST, DeliveryKind.SUMMARY):
        return None
    if row.channel == APPRISE:
        ch = (apprise or {}).get(int(row.target)) if row.target.isdigit() else None
        if ch is None or ch.user_id != user.id:
            return "push channel removed by the user"
        return None if ch.enabled else "push channel turned off by the user"
    if row.channel == DeliveryChannel.EMAIL and not user.email_enabled:
        return "email turned off by the user"
    if row.channel == DeliveryChannel.WEBHOOK and (
        not user.webhook_enabled or user.webhook_disabled_at
    ):
        return "webhook turned off"
    if row.channel == DeliveryChannel.SMS and not user.sms_enabled:
        return "SMS turned off by the user"
    return None


async def _send_all(
    settings: Settings, jobs: list[tuple[Delivery, Message, str | None]]
) -> dict[int, DeliveryResult]:
    """Send every (row, message, extra) concurrently; never raises. ``extra`` is the
    webhook's signing secret, or the Apprise channel's URL (sent to instead of the row's
    target, which names the channel by id so that no token sits in the outbox)."""
    results: dict[int, DeliveryResult] = {}
    gate = asyncio.Semaphore(SEND_CONCURRENCY)
    async with AsyncExitStack() as stack:
        client = await stack.enter_async_context(httpx.AsyncClient(follow_redirects=False))
        # webhooks go to user-supplied URLs: connect only to guard-checked addresses
        hooks = await stack.enter_async_context(guarded_client(settings, follow_redirects=False))
        cache: dict[str, Channel | Exception] = {}

        async def channel_for(row: Delivery, secret: str | None) -> Channel:
            name = f"webhook:{secret}" if row.channel == DeliveryChannel.WEBHOOK else row.channel
            if name not in cache:
                try:
                    if row.channel == APPRISE:
                        cache[name] = channels.apprise_channel(settings)
                    elif row.channel == DeliveryChannel.EMAIL:
                        email = channels.email_channel(settings)
                        cache[name] = await stack.enter_async_context(email)
                    elif row.channel == DeliveryChannel.SMS:
                        cache[name] = channels.sms_channel(settings, client=client)
                    else:
                        cache[name] = channels.webhook_channel(settings, secret or "", client=hooks)
                except Exception as exc:
                    cache[name] = exc
            found = cache[name]
            if isinstance(found, Exception):
                raise found
            return found

        async def one(row: Delivery, message: Message, secret: str | None) -> None:
            assert row.id is not None
            async with gate:
                try:
                    channel = await channel_for(row, secret)
                    target = (secret or "") if row.channel == APPRISE else row.target
                    results[row.id] = await channel.send(message, target)
                except channels.ChannelNotConfigured as exc:
                    logger.warning("delivery %s not sent: %s", row.id, exc)
                    results[row.id] = DeliveryResult(ok=False, error=str(exc)[:500])
                except Exception as exc:  # a broken channel must not sink the whole batch
                    logger.exception("delivery %s: channel %s failed", row.id, row.channel)
                    results[row.id] = DeliveryResult(ok=False, error=f"{exc}"[:500])

        await asyncio.gather(*(one(r, m, s) for r, m, s in jobs))
    return results


def _compose(
    settings: Settings, rows: list[Delivery]
) -> tuple[list[tuple[Delivery, Message, str | None]], dict[int, str]]:
    """Messages for the claimed rows, and the rows to drop with the reason why."""
    jobs: list[tuple[Delivery, Message, str | None]] = []
    dropped: dict[int, str] = {}
    with session_scope() as session:
        loaded = load(session, rows)
        composer = Composer(settings, loaded)
        apprise_ids = {int(r.target) for r in rows if r.channel == APPRISE and r.target.isdigit()}
        apprise = {
            ch.id: ch
            for ch in session.exec(select(PushChannel).where(col(PushChannel.id).in_(apprise_ids)))
            if ch.id is not None
        }
        for row in rows:
            assert row.id is not None
            user = loaded.users.get(row.user_id)
            reason = _wanted(row, user, apprise)
            if reason is None:
                try:
                    message = composer.compose(row)
                except Exception as exc:
                    logger.exception("delivery %s could not be composed", row.id)
                    message, reason = None, f"could not build the message: {exc}"[:500]
                if message is None:
                    reason = reason or "nothing left to send"
            if reason is not None or message is None:
                dropped[row.id] = reason or "nothing left to send"
                continue
            secret = None
            if row.channel == DeliveryChannel.WEBHOOK and user is not None:
                secret = webhook_secret(session, user)
            elif row.channel == APPRISE:
                secret = apprise[int(row.target)].url
            jobs.append((row, message, secret))
    return jobs, dropped


def _record(
    rows: list[Delivery], results: dict[int, DeliveryResult], dropped: dict[int, str]
) -> int:
    """Store each outcome; returns the number of rows sent."""
    now = utcnow()
    sent_ids: list[int] = []
    with session_scope() as session:
        conn = session.connection()
        for row in rows:
            assert row.id is not None
            result = results.get(row.id)
            values: dict[str, Any]
            if row.id in dropped:
                values = {
                    "status": DeliveryStatus.DEAD,
                    "last_error": dropped[row.id],
                    "merged_into_id": None,
                }
            elif result is None:
                continue
            elif result.ok:
                sent_ids.append(row.id)
                values = {"status": DeliveryStatus.SENT}
            elif result.permanent or row.attempts >= MAX_ATTEMPTS:
                values = {
                    "status": DeliveryStatus.DEAD,
                    "last_error": (result.error or "failed")[:2000],
                    "merged_into_id": None,
                }
            else:
                values = {
                    "status": DeliveryStatus.FAILED,
                    "last_error": (result.error or "failed")[:2000],
                    "merged_into_id": None,
                    "next_attempt_at": now + backoff(row.attempts),
                }
            if result is not None and result.gone:
                _webhook_gone(session, row.user_id, now)
            if values["status"] != DeliveryStatus.SENT:
                conn.execute(update(_table).where(_table.c.id == row.id).values(**values))
            final = values["status"] in (DeliveryStatus.SENT, DeliveryStatus.DEAD)
            if final and row.kind == DeliveryKind.INSTANT and len(row.match_ids) > 1:
                # the rows merged into this one share its outcome
                conn.execute(
                    update(_table)
                    .where(
                        _table.c.status == DeliveryStatus.SENDING,
                        _table.c.user_id == row.user_id,
                        _table.c.merged_into_id == row.id,
                    )
                    .values(
                        status=values["status"],
                        sent_at=now if values["status"] == DeliveryStatus.SENT else None,
                    )
                )
        for i in range(0, len(sent_ids), 900):
            conn.execute(
                update(_table)
                .where(_table.c.id.in_(sent_ids[i : i + 900]))
                .values(
                    status=DeliveryStatus.SENT, sent_at=now, last_error=None, merged_into_id=None
                )
            )
    return len(sent_ids)


def _webhook_gone(session: Session, user_id: int, now: datetime) -> None:
    """The endpoint answered 410: stop using it and tell the user by email (via the outbox)."""
    user = session.get(User, user_id)
    if user is None or user.id is None or user.webhook_disabled_at is not None:
        return
    user.webhook_disabled_at = now
    session.add(user)
    logger.warning("webhook of user %s is gone (410); disabled", user.id)
    if user.email:
        key = f"n:{user.id}:email:webhook-gone:{now.date().isoformat()}"
        _insert_ignore(
            session,
            [
                _row(
                    key,
                    user.id,
                    DeliveryChannel.EMAIL,
                    user.email,
                    now,
                    kind=DeliveryKind.WEBHOOK_GONE,
                )
            ],
        )


def process_outbox(limit: int = 100, *, now: datetime | None = None) -> int:
    """Claim, send and record up to ``limit`` due deliveries; returns how many were claimed."""
    settings = get_settings()
    rows = _claim(limit, now or utcnow())
    if not rows:
        return 0
    jobs, dropped = _compose(settings, rows)
    results = channels.run_sync(_send_all(settings, jobs)) if jobs else {}
    sent = _record(rows, results, dropped)
    logger.info("outbox: %d claimed, %d sent, %d dropped", len(rows), sent, len(dropped))
    return len(rows)


def webhook_secret(session: Session, user: User) -> str:
    """The user's signing secret, created (in the caller's transaction) on first use."""
    if not user.webhook_secret:
        user.webhook_secret = new_secret()
        session.add(user)
    return user.webhook_secret
