"""When and how a user is notified: push modes, quiet hours, digest time, retry backoff.

Times in user settings are local wall-clock ``HH:MM`` in the user's IANA timezone (zoneinfo).
"""

from __future__ import annotations

import logging
import random
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from app.models import Concern, User

logger = logging.getLogger(__name__)

INSTANT_MODES = ("instant", "both")
DIGEST_MODES = ("digest", "both")
BACKOFF_BASE = timedelta(seconds=30)
BACKOFF_CAP = timedelta(hours=6)
MAX_ATTEMPTS = 10


def zone(user: User) -> ZoneInfo:
    try:
        return ZoneInfo(user.timezone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        logger.warning("user %s has unknown timezone %r; using UTC", user.id, user.timezone)
        return ZoneInfo("UTC")


def parse_hhmm(value: str | None) -> time | None:
    """``"08:30"`` → time(8, 30); None or malformed → None."""
    if not value:
        return None
    try:
        hours, minutes = value.split(":", 1)
        return time(int(hours), int(minutes))
    except ValueError:
        return None


def effective_mode(user: User, concern: Concern | None) -> str:
    """The concern's push mode when it overrides the user's, else the user's."""
    if concern is not None and concern.push_mode:
        return concern.push_mode
    return user.push_mode


def quiet_until(user: User, now: datetime) -> datetime | None:
    """The UTC end of the quiet period ``now`` falls in, or None when not in quiet hours."""
    start, end = parse_hhmm(user.quiet_start), parse_hhmm(user.quiet_end)
    if start is None or end is None or start == end:
        return None
    tz = zone(user)
    local = now.astimezone(tz)
    t = local.time().replace(tzinfo=None)
    inside = start <= t < end if start < end else (t >= start or t < end)
    if not inside:
        return None
    end_day = local.date() if t < end else local.date() + timedelta(days=1)
    return datetime.combine(end_day, end, tzinfo=tz).astimezone(UTC)


def digest_cutoff(user: User, day: date) -> datetime:
    """The UTC instant of the user's digest time on local date ``day``."""
    at = parse_hhmm(user.digest_time) or time(8, 0)
    return datetime.combine(day, at, tzinfo=zone(user)).astimezone(UTC)


def due_digest(user: User, now: datetime) -> tuple[date, datetime, datetime]:
    """The latest digest that is due at ``now``: ``(local date, window start, window end)``.

    A digest covers the matches created in ``(window start, window end]``: from the previous
    day's digest time to this day's.
    """
    local = now.astimezone(zone(user))
    day = local.date()
    if now < digest_cutoff(user, day):
        day -= timedelta(days=1)
    return day, digest_cutoff(user, day - timedelta(days=1)), digest_cutoff(user, day)


def backoff(attempts: int, rng: random.Random | None = None) -> timedelta:
    """Delay before the next try: exponential in ``attempts`` with jitter (50–100 %), capped."""
    exp = BACKOFF_BASE * (1 << min(20, max(0, attempts - 1)))
    delay = min(exp, BACKOFF_CAP)
    factor: float = (rng or random).uniform(0.5, 1.0)
    return delay * factor
