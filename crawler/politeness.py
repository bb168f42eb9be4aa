"""Politeness: a global concurrency limit and, per host, N concurrent requests and a delay.

Like Scrapy's downloader slots: every host (``host:port``) has a slot with a semaphore of
``per_host`` and a "next start" time; request starts on one host are at least ``delay``
seconds apart (the larger of the configured delay and robots.txt ``Crawl-delay``). A 429 or
503 pushes the host's next start back by its ``Retry-After`` (``back_off``), so every request
to that host waits, not just the one that was refused. ``delay=0`` is allowed (a local web).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

__all__ = ["Politeness"]

Sleep = Callable[[float], Awaitable[None]]


@dataclass(slots=True)
class _Slot:
    semaphore: asyncio.Semaphore
    next_start: float = 0.0


class Politeness:
    """Per-host slots plus a global semaphore. ``sleep`` is injectable for tests."""

    def __init__(
        self,
        *,
        concurrency: int = 16,
        per_host: int = 2,
        delay: float = 1.0,
        sleep: Sleep | None = None,
    ) -> None:
        self.per_host = max(1, per_host)
        self.delay = max(0.0, delay)
        self._global = asyncio.Semaphore(max(1, concurrency))
        self._slots: dict[str, _Slot] = {}
        self.sleep: Sleep = sleep or asyncio.sleep

    def _slot(self, key: str) -> _Slot:
        slot = self._slots.get(key)
        if slot is None:
            slot = _Slot(asyncio.Semaphore(self.per_host))
            self._slots[key] = slot
        return slot

    @staticmethod
    def _now() -> float:
        return asyncio.get_running_loop().time()

    def back_off(self, key: str, seconds: float) -> None:
        """No request to ``key`` starts in the next ``seconds`` (a 429/503 Retry-After)."""
        slot = self._slot(key)
        slot.next_start = max(slot.next_start, self._now() + max(0.0, seconds))

    @contextlib.asynccontextmanager
    async def slot(self, key: str, *, delay: float | None = None) -> AsyncIterator[None]:
        """Hold a global and a per-host permit; start no sooner than the host's delay allows."""
        gap = self.delay if delay is None else max(self.delay, delay)
        slot = self._slot(key)
        async with slot.semaphore:
            now = self._now()
            start = max(now, slot.next_start)
            slot.next_start = start + gap  # reserve our start time before waiting
            if start > now:
                await self.sleep(start - now)
            async with self._global:
                yield
