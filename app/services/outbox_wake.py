"""Wake the outbox sender as soon as instant deliveries are written.

The periodic ``send_due_deliveries`` job (every ``TIMELYPUSH_SCHEDULER_TICK_SECONDS``, 60 s by
default) is the safety net; on top of it the running adapter registers a *waker* here — the
Celery worker sends a ``send_due_deliveries`` task, the embedded scheduler adds a one-off job —
so that a match found by a crawl is pushed within about a second, not a tick later.

``wake()`` is called after the transaction that wrote the rows has committed. It calls the
waker at most once per ``DELAY`` seconds in a process, asking it to start the sender ``DELAY``
seconds later; the sender then claims every row committed up to that moment, so the calls it
skipped lose nothing. A waker that fails only costs latency: the next tick sends the rows.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)

DELAY = 0.2
"""Seconds between two wake-ups of one process, and from a wake-up to the sender's run."""

Waker = Callable[[float], object]

_waker: Waker | None = None
_last = -math.inf
_lock = threading.Lock()


def set_waker(waker: Waker | None) -> None:
    """Install (or, with None, remove) this process's waker: ``waker(delay_seconds)``."""
    global _waker, _last
    with _lock:
        _waker = waker
        _last = -math.inf


def wake() -> bool:
    """Ask for a sender run soon; returns whether the waker was called."""
    global _last
    with _lock:
        waker = _waker
        now = time.monotonic()
        if waker is None or now - _last < DELAY:
            return False
        _last = now
    try:
        waker(DELAY)
    except Exception:
        logger.warning("could not wake the outbox sender; the next tick sends", exc_info=True)
        return False
    return True
