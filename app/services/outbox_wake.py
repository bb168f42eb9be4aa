"""Wake the outbox sender as soon as instant deliveries are written.

The periodic ``send_due_deliveries`` job (every ``TIMELYPUSH_SCHEDULER_TICK_SECONDS``, 60 s by
default) is the safety net; on top of it the running adapter registers a *waker* here — the
Celery worker sends a ``send_due_deliveries`` task, the embedded scheduler adds a one-off job —
so that a match found by a crawl is pushed within about a second, not a tick later.

The crawl calls ``wake(new=True)`` after a transaction that wrote rows has committed, and
``wake(new=False)`` after every other page it stores, and ``flush()`` when it ends. The waker
runs at most once per ``DELAY`` seconds in a process (a burst of matches is one sender run);
rows written while it was held back are *pending* and go with the next call after ``DELAY``,
or with ``flush()``. The sender is started at once, never with a countdown: Celery holds
countdown tasks unacknowledged in the worker, and a broker restart with unacknowledged
messages is where the Redis transport is fragile. A waker that fails only costs latency: the
next tick sends the rows.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)

DELAY = 0.2
"""Least seconds between two sender runs started by one process."""

Waker = Callable[[], object]

_waker: Waker | None = None
_last = -math.inf
_pending = False
_lock = threading.Lock()


def set_waker(waker: Waker | None) -> None:
    """Install (or, with None, remove) this process's waker."""
    global _waker, _last, _pending
    with _lock:
        _waker = waker
        _last = -math.inf
        _pending = False


def wake(*, new: bool = True) -> bool:
    """Start the sender if rows are pending and ``DELAY`` has passed; returns whether it did.

    ``new``: rows were just committed (else: only a chance to send rows held back before)."""
    return _call(new=new, force=False)


def flush() -> bool:
    """Start the sender now if rows are pending (the end of a crawl)."""
    return _call(new=False, force=True)


def _call(*, new: bool, force: bool) -> bool:
    global _last, _pending
    with _lock:
        waker = _waker
        if waker is None:
            return False
        _pending = _pending or new
        now = time.monotonic()
        if not _pending or (not force and now - _last < DELAY):
            return False
        _last = now
        _pending = False
    try:
        waker()
    except Exception:
        logger.warning("could not wake the outbox sender; the next tick sends", exc_info=True)
        return False
    return True
