"""Start a visit asked for with “check now” at once, not at the next scheduler tick.

The periodic ``run_due_crawls`` job (every ``TIMELYPUSH_SCHEDULER_TICK_SECONDS``) is the safety
net; the embedded scheduler registers a *waker* here that runs it once now. Without a waker
(a web process of the Celery deployment) the next beat tick starts the visit.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

logger = logging.getLogger(__name__)

_waker: Callable[[], object] | None = None


def set_waker(waker: Callable[[], object] | None) -> None:
    """Install (or, with None, remove) this process's waker."""
    global _waker
    _waker = waker


def wake() -> bool:
    """Hand out due crawls now if this process can; returns whether it could."""
    waker = _waker
    if waker is None:
        return False
    try:
        waker()
    except Exception:
        logger.warning("could not start the due crawls now", exc_info=True)
        return False
    return True
