"""Rate limits and login throttling, in one place, atomic across processes.

Every limit is named in ``DEFAULTS`` and can be changed with ``TIMELYPUSH_RATE_LIMITS``
(``"login=5/15m,reset_email=3/1h"``). A limit allows ``attempts`` per ``window`` for one key
(an account, an IP, an account × IP …). Beyond that, a plain limit refuses until the window
ends; a **back-off** limit (logins) lets one more attempt through after a delay that doubles
with every further attempt (1 s, 2 s, 4 s … up to ``max_delay``), so nobody is locked out for
long and guessing stays slow.

Check and record are one atomic step — a Lua script on Redis when ``TIMELYPUSH_REDIS_URL`` is
set, else a compare-and-set update of the key's row in ``rate_limits`` — so parallel requests
are each counted: 30 parallel wrong passwords are 30 attempts, not 30 × "0 so far". The
counters commit on their own connection, independent of the request's transaction.

Login keys (see ``auth.authenticate``): account × IP (tight), IP (wider) and account alone
(much wider), so an attacker at one address cannot lock the owner out of their own account.
"""

from __future__ import annotations

import logging
import math
import random
import re
import threading
import time
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session

from app.core.config import Settings
from app.core.i18n import N_
from app.models import RateLimit, utcnow
from app.services.errors import Throttled

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limit:
    """A rate limit: attempts per window, optionally with back-off."""

    attempts: int
    window: timedelta
    message: str = N_("Too many attempts. Try again in %(minutes)s min.")
    backoff: bool = False
    base_delay: timedelta = timedelta(seconds=1)
    max_delay: timedelta = timedelta(minutes=15)


_LOGINS = N_("Too many attempts to log in. Try again in %(minutes)s min.")
DEFAULTS: dict[str, Limit] = {
    # logins and current-password checks: free attempts, then exponential back-off
    "login": Limit(5, timedelta(minutes=15), _LOGINS, backoff=True),  # account × IP
    "login_ip": Limit(30, timedelta(minutes=15), _LOGINS, backoff=True),  # any account
    "login_account": Limit(  # all IPs: wide, with a short ceiling on the delay
        100, timedelta(hours=1), _LOGINS, backoff=True, max_delay=timedelta(minutes=5)
    ),
    # things that send or crawl on someone's behalf
    "reset_email": Limit(
        3,
        timedelta(hours=1),
        N_("Too many reset requests for this address. Try again in %(minutes)s min."),
    ),
    "reset_ip": Limit(
        10,
        timedelta(hours=1),
        N_("Too many reset requests from your network. Try again in %(minutes)s min."),
    ),
    "sms_reset": Limit(
        3,
        timedelta(minutes=15),
        N_("Too many codes requested. Try again in %(minutes)s min."),
    ),
    "phone_code": Limit(
        3,
        timedelta(hours=1),
        N_("Too many codes requested. Try again in %(minutes)s min."),
    ),
    "register_ip": Limit(
        20,
        timedelta(hours=1),
        N_("Too many new accounts from your network. Try again in %(minutes)s min."),
    ),
    "verify_resend": Limit(
        3,
        timedelta(hours=1),
        N_("Too many verification emails requested. Try again in %(minutes)s min."),
    ),
    "channel_test": Limit(
        10,
        timedelta(hours=1),
        N_("Too many test messages. Try again in %(minutes)s min."),
    ),
    "resend": Limit(
        20,
        timedelta(hours=1),
        N_("Too many re-sends. Try again in %(minutes)s min."),
    ),
    "check_now": Limit(
        10,
        timedelta(hours=1),
        N_("Too many checks requested. Try again in %(minutes)s min."),
    ),
}

PURGE_CHANCE = 0.01
"""Share of database hits that also delete the counters whose window is over."""

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_SPEC = re.compile(r"(\d+)/(\d*)([smhd])\Z")


def parse_overrides(text: str) -> dict[str, Limit]:
    """``DEFAULTS`` with the ``name=N/period`` entries of ``text`` applied (period: 30s, 15m,
    1h, 1d). Unknown names and malformed entries are a configuration error (ValueError)."""
    limits = dict(DEFAULTS)
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, spec = item.partition("=")
        name = name.strip()
        found = _SPEC.match(spec.strip())
        if name not in DEFAULTS or not found:
            raise ValueError(
                f"TIMELYPUSH_RATE_LIMITS: {item!r} is not name=N/period with a name among "
                f"{', '.join(DEFAULTS)}"
            )
        seconds = int(found.group(2) or 1) * _UNITS[found.group(3)]
        limits[name] = replace(
            DEFAULTS[name], attempts=int(found.group(1)), window=timedelta(seconds=seconds)
        )
    return limits


_parsed: dict[str, dict[str, Limit]] = {}


def limit_for(settings: Settings, name: str) -> Limit:
    text = settings.rate_limits
    if text not in _parsed:
        _parsed[text] = parse_overrides(text)
    return _parsed[text][name]


# --- the one rule, shared by both stores --------------------------------------------------


@dataclass
class State:
    """One key's counter: attempts in the window and the next allowed time."""

    count: int
    window_ends: float  # epoch seconds
    next_at: float


def step(state: State | None, now: float, limit: Limit) -> tuple[State, float]:
    """(new state, seconds to wait — 0 when this attempt is allowed and counted)."""
    window = limit.window.total_seconds()
    if state is None or now >= state.window_ends:
        state = State(0, now + window, 0.0)
    if now < state.next_at:
        return state, state.next_at - now
    if state.count < limit.attempts:
        return State(state.count + 1, state.window_ends, state.next_at), 0.0
    if not limit.backoff:
        return state, state.window_ends - now
    count = state.count + 1
    excess = count - limit.attempts
    delay = min(
        limit.base_delay.total_seconds() * 2.0 ** min(excess - 1, 60),
        limit.max_delay.total_seconds(),
    )
    next_at = now + delay
    return State(count, max(state.window_ends, next_at + window), next_at), 0.0


# --- stores ---------------------------------------------------------------------------------


_LUA_HIT = """
local now = tonumber(ARGV[1])
local attempts = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local backoff = tonumber(ARGV[4])
local base = tonumber(ARGV[5])
local maxd = tonumber(ARGV[6])
local n = tonumber(redis.call('hget', KEYS[1], 'n') or '0')
local w = tonumber(redis.call('hget', KEYS[1], 'w') or '0')
local x = tonumber(redis.call('hget', KEYS[1], 'x') or '0')
if now >= w then n = 0; w = now + window; x = 0 end
if now < x then return tostring(x - now) end
if n < attempts then
  n = n + 1
elseif backoff == 0 then
  return tostring(w - now)
else
  n = n + 1
  local excess = math.min(n - attempts - 1, 60)
  local delay = math.min(base * (2 ^ excess), maxd)
  x = now + delay
  if x + window > w then w = x + window end
end
redis.call('hset', KEYS[1], 'n', n, 'w', tostring(w), 'x', tostring(x))
redis.call('expireat', KEYS[1], math.ceil(w) + 1)
return '0'
"""

_LUA_REFUND = """
local n = tonumber(redis.call('hget', KEYS[1], 'n') or '0')
if n > 0 then redis.call('hincrby', KEYS[1], 'n', -1) end
return n
"""

_clients: dict[str, Any] = {}
_clients_lock = threading.Lock()


def _redis(url: str) -> Any:
    import redis

    with _clients_lock:
        if url not in _clients:
            _clients[url] = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
        return _clients[url]


def _redis_key(key: str) -> str:
    return f"timelypush:rl:{key}"


def _db_hit(engine: Engine, key: str, limit: Limit, now: datetime) -> float:
    table = RateLimit.__table__  # type: ignore[attr-defined]
    epoch = now.timestamp()
    for attempt in range(100):
        try:
            with engine.begin() as conn:
                row = conn.execute(
                    select(table.c.count, table.c.window_ends, table.c.next_at).where(
                        table.c.key == key
                    )
                ).first()
                old = (
                    None
                    if row is None
                    else State(int(row[0]), _epoch(row[1]), _epoch(row[2]) if row[2] else 0.0)
                )
                new, wait = step(old, epoch, limit)
                if wait > 0:
                    return wait
                values = {
                    "count": new.count,
                    "window_ends": _dt(new.window_ends),
                    "next_at": _dt(new.next_at) if new.next_at else None,
                }
                if row is None:
                    conn.execute(insert(table).values(key=key, **values))
                    return 0.0
                # compare-and-set: only if nobody changed the row since we read it
                done = conn.execute(
                    update(table)
                    .where(
                        table.c.key == key,
                        table.c.count == row[0],
                        table.c.window_ends == row[1],
                    )
                    .values(**values)
                )
                if done.rowcount == 1:
                    return 0.0
        except IntegrityError:
            pass  # someone else created the row first: read it again
        except OperationalError:
            # SQLite: another writer committed after our read (a stale snapshot): read again
            if engine.dialect.name != "sqlite":
                raise
        time.sleep(0.001 * (attempt % 10))
    raise Throttled(limit.message, retry_after=1)  # extreme contention: refuse, never skip


def _epoch(value: datetime) -> float:
    from datetime import UTC

    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.timestamp()


def _dt(epoch: float) -> datetime:
    from datetime import UTC

    return datetime.fromtimestamp(epoch, UTC)


# --- the interface --------------------------------------------------------------------------


def _engine(session: Session) -> Engine:
    """The engine behind the session: counters commit on a connection of their own."""
    bind = session.get_bind()
    return bind.engine if isinstance(bind, Connection) else bind


def key(*parts: object) -> str:
    """``name:part:part`` in printable ASCII (a NUL or a lone surrogate in a typed address
    becomes an escape), at most 400 characters."""
    text = ":".join(str(p if p not in (None, "") else "-") for p in parts)
    return text.encode("unicode_escape").decode("ascii")[:400]


def hit(session: Session, settings: Settings, name: str, *parts: object) -> None:
    """Count one attempt under limit ``name`` for the key ``parts``; Throttled (429, with
    ``retry_after``) when it is not allowed now. Allowed attempts are recorded atomically."""
    limit = limit_for(settings, name)
    k = key(name, *parts)
    if settings.redis_url:
        w = limit.window.total_seconds()
        args = [
            repr(utcnow().timestamp()),
            limit.attempts,
            w,
            1 if limit.backoff else 0,
            limit.base_delay.total_seconds(),
            limit.max_delay.total_seconds(),
        ]
        wait = float(_redis(settings.redis_url).eval(_LUA_HIT, 1, _redis_key(k), *args))
    else:
        wait = _db_hit(_engine(session), k, limit, utcnow())
        if random.random() < PURGE_CHANCE:  # noqa: S311 (housekeeping, not security)
            purge(session)
    if wait > 0:
        logger.info("rate limit %s reached", name)
        raise Throttled(limit.message, retry_after=max(1, math.ceil(wait)))


def refund(session: Session, settings: Settings, name: str, *parts: object) -> None:
    """Give one attempt back (a login that turned out right is not held against the IP)."""
    k = key(name, *parts)
    if settings.redis_url:
        _redis(settings.redis_url).eval(_LUA_REFUND, 1, _redis_key(k))
        return
    table = RateLimit.__table__  # type: ignore[attr-defined]
    with _engine(session).begin() as conn:
        conn.execute(
            update(table).where(table.c.key == k, table.c.count > 0).values(count=table.c.count - 1)
        )


def clear(session: Session, settings: Settings, name: str, *parts: object) -> None:
    """Forget the attempts of one key (after a successful login, a password reset)."""
    k = key(name, *parts)
    if settings.redis_url:
        _redis(settings.redis_url).delete(_redis_key(k))
        return
    table = RateLimit.__table__  # type: ignore[attr-defined]
    with _engine(session).begin() as conn:
        conn.execute(delete(table).where(table.c.key == k))


def purge(session: Session) -> int:
    """Delete database counters whose window is over (done now and then by ``hit``)."""
    table = RateLimit.__table__  # type: ignore[attr-defined]
    with _engine(session).begin() as conn:
        return conn.execute(delete(table).where(table.c.window_ends < utcnow())).rowcount
