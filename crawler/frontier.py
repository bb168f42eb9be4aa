"""The crawl frontier: one priority queue shared by every strategy (docs/algorithms.md §6).

Rules:

* **max-merge**: pushing a URL that is already queued keeps the higher of the two priorities,
  the larger remaining Fish depth, and the smaller hop count from a seed;
* a URL that was ever popped (fetched or being fetched) is never queued again;
* equal priorities pop first-in first-out, so a constant priority is a breadth-first crawl;
* **per-host fairness**: ``pop`` returns the best URL whose host has fewer than ``per_host``
  URLs in flight (released with ``done``), so one slow host never blocks the crawl; the
  politeness delay itself is the fetcher's job.
* **the budget's cut**: while the best URL waits for its host, another host's URL is handed
  out only if it is among the best ``pages`` queued (``budget``: the fetches the crawl has
  left), a URL the crawl would fetch anyway; else ``pop`` returns None and the crawl waits for
  a slot. Politeness then costs time, not pages: with two fetches at a time per host, a second
  apart, a crawl of a sport channel whose scope held the portal's other channels spent most of
  its fetches on them, they being free (docs/benchmarks.md, "Politeness that spent the
  budget on other hosts"). Equal priorities (a breadth-first crawl) never wait.
* **lazy update**: given the strategy's ``fresh`` view, ``pop`` asks it for the best URL's
  priority before handing the URL out; one that has fallen since it was queued is queued
  again at the new priority, and the best is sought again.

Memory: the seen-set is a ``set`` of 64-bit URL hashes (no strings), about 60–70 bytes per
seen URL; a queued URL additionally holds its entry and string (``timelypush bench ranking``
measures both). Each host has its own heap; a heap of hosts keyed by their best priority
makes ``pop`` O(log n) plus at most one skip per busy host.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from crawler.linkrank import url_key

__all__ = ["ANCHOR_CHARS", "Entry", "Frontier"]

ANCHOR_CHARS = 200
"""At most this much anchor text is kept per queued URL."""

STALE = 1e-3
"""How far below its queued priority an entry's fresh one must fall for ``pop`` to queue it
again."""


@dataclass(slots=True)
class Entry:
    """A queued URL."""

    url: str
    priority: float
    depth: int | None
    """Remaining Fish depth (None when the strategy does not count it down)."""
    hops: int
    """Links followed from the nearest seed."""
    seq: int = 0
    anchor: str = ""
    """The anchor text of the links that pointed here (distinct texts joined, bounded)."""


def _host(url: str) -> str:
    return urlsplit(url).hostname or ""


class Frontier:
    """Priority queue of URLs with max-merge, seen-set and per-host slots."""

    def __init__(self, *, per_host: int = 2, host_of: Callable[[str], str] = _host) -> None:
        self.per_host = max(1, per_host)
        self.host_of = host_of
        self._seq = itertools.count()
        self._queued: dict[int, Entry] = {}
        self._seen: set[int] = set()
        self._heaps: dict[str, list[tuple[float, int, int]]] = {}
        self._hosts: list[tuple[float, int, str]] = []
        self._inflight: dict[str, int] = {}
        self._peak = 0
        self.cut = 0.0
        """What another host's URL must be worth while the best waits for its host (``budget``;
        0: anything)."""

    def __len__(self) -> int:
        """Number of queued URLs."""
        return len(self._queued)

    @property
    def seen_count(self) -> int:
        """URLs ever queued or fetched."""
        return len(self._seen)

    @property
    def in_flight(self) -> int:
        return sum(self._inflight.values())

    def is_seen(self, url: str) -> bool:
        return url_key(url) in self._seen

    def mark_seen(self, url: str) -> None:
        """Record a URL as fetched without queueing it (e.g. the target of a redirect)."""
        key = url_key(url)
        if key in self._queued:
            del self._queued[key]  # its heap entry is now stale
        self._seen.add(key)

    def push(
        self,
        url: str,
        priority: float,
        depth: int | None = None,
        hops: int = 0,
        anchor: str = "",
    ) -> bool:
        """Queue ``url`` or max-merge it into its queued entry; False if it was already fetched.

        ``anchor``: the text of the link, kept with the entry (a second distinct text is added
        to the first, up to ``ANCHOR_CHARS``) for whoever judges the page once fetched."""
        key = url_key(url)
        entry = self._queued.get(key)
        if entry is None:
            if key in self._seen:
                return False
            entry = Entry(url, float(priority), depth, hops, next(self._seq), anchor[:ANCHOR_CHARS])
            self._queued[key] = entry
            self._peak = max(self._peak, len(self._queued))
            self._seen.add(key)
            self._heap_push(entry, key)
            return True
        if depth is not None and (entry.depth is None or depth > entry.depth):
            entry.depth = depth
        entry.hops = min(entry.hops, hops)
        if anchor and anchor not in entry.anchor and len(entry.anchor) < ANCHOR_CHARS:
            entry.anchor = f"{entry.anchor} {anchor}".strip()[:ANCHOR_CHARS]
        if priority > entry.priority:
            entry.priority = float(priority)
            entry.seq = next(self._seq)
            self._heap_push(entry, key)
        return True

    def _heap_push(self, entry: Entry, key: int) -> None:
        host = self.host_of(entry.url)
        heap = self._heaps.setdefault(host, [])
        item = (-entry.priority, entry.seq, key)
        heapq.heappush(heap, item)
        if heap[0] is item:
            heapq.heappush(self._hosts, (item[0], item[1], host))

    def _clean(self, heap: list[tuple[float, int, int]]) -> None:
        """Drop stale entries (re-prioritised or already popped) from the top of a host heap."""
        while heap:
            _, seq, key = heap[0]
            entry = self._queued.get(key)
            if entry is not None and entry.seq == seq:
                return
            heapq.heappop(heap)

    def budget(self, pages: int | None) -> None:
        """Set ``cut`` to the priority of the ``pages``-th best queued URL (0 when fewer are
        queued, or ``pages`` is None: no cut)."""
        if pages is None or pages <= 0 or len(self._queued) <= pages:
            self.cut = 0.0
            return
        best = heapq.nlargest(pages, (e.priority for e in self._queued.values()))
        self.cut = best[-1]

    def pop(self, fresh: Callable[[Entry], float] | None = None) -> Entry | None:
        """The best queued URL whose host has a free slot (None if there is none right now).

        ``fresh``: the entry's priority as the strategy sees it now. A best entry whose
        priority has fallen since it was queued (by more than ``STALE``) is queued again at
        the new one and the best is sought again (a lazy update: between re-prioritisations
        of the whole queue, what the crawl learned from the last pages counts before a link
        is fetched, not after a run of links queued on an older view)."""
        deferred: list[tuple[float, int, str]] = []
        found: Entry | None = None
        waits = False  # a better URL waits for its host
        while self._hosts:
            item = heapq.heappop(self._hosts)
            neg, seq, host = item
            if waits and -neg < self.cut:  # this host's best, and every later host's, is short
                deferred.append(item)
                break
            heap = self._heaps.get(host)
            if not heap:
                continue
            self._clean(heap)
            if not heap:
                del self._heaps[host]
                continue
            if heap[0][:2] != (neg, seq):
                heapq.heappush(self._hosts, (heap[0][0], heap[0][1], host))
                continue
            if self._inflight.get(host, 0) >= self.per_host:
                deferred.append(item)
                waits = True
                continue
            if fresh is not None:
                _, _, top = heap[0]
                entry = self._queued[top]
                now = float(fresh(entry))
                if now < entry.priority - STALE:
                    entry.priority = now
                    entry.seq = next(self._seq)
                    heapq.heapreplace(heap, (-now, entry.seq, top))
                    heapq.heappush(self._hosts, (heap[0][0], heap[0][1], host))
                    continue
            _, _, key = heapq.heappop(heap)
            found = self._queued.pop(key)
            self._shrink()
            self._inflight[host] = self._inflight.get(host, 0) + 1
            self._clean(heap)
            if heap:
                heapq.heappush(self._hosts, (heap[0][0], heap[0][1], host))
            else:
                del self._heaps[host]
            break
        for item in deferred:
            heapq.heappush(self._hosts, item)
        return found

    def _shrink(self) -> None:
        """Dicts never give memory back on deletion: rebuild the queue map when it has shrunk
        to a quarter of its peak (amortised O(1) per pop)."""
        size = len(self._queued)
        if size > self._peak:
            self._peak = size
        elif self._peak > 4096 and size * 4 < self._peak:
            self._queued = dict(self._queued)
            self._peak = size

    def done(self, entry: Entry) -> None:
        """Release the host slot taken by ``pop``."""
        host = self.host_of(entry.url)
        left = self._inflight.get(host, 0) - 1
        if left > 0:
            self._inflight[host] = left
        else:
            self._inflight.pop(host, None)

    def reprioritize(self, priority: Callable[[Entry], float]) -> None:
        """Give every queued entry ``priority(entry)`` and rebuild the heaps (O(n)): for a
        strategy whose view of queued links changes as the crawl learns."""
        heaps: dict[str, list[tuple[float, int, int]]] = {}
        for key, entry in self._queued.items():
            entry.priority = float(priority(entry))
            heaps.setdefault(self.host_of(entry.url), []).append((-entry.priority, entry.seq, key))
        for heap in heaps.values():
            heapq.heapify(heap)
        self._heaps = heaps
        self._hosts = [(heap[0][0], heap[0][1], host) for host, heap in heaps.items()]
        heapq.heapify(self._hosts)

    def entries(self) -> list[Entry]:
        """Queued entries, best first."""
        return sorted(self._queued.values(), key=lambda e: (-e.priority, e.seq))

    # -- checkpoint -------------------------------------------------------------------------
    def to_dict(self, requeue: Iterable[Entry] = ()) -> dict[str, Any]:
        """A JSON-able snapshot; ``requeue`` entries (in flight, unfinished) are queued again."""
        back = list(requeue)
        queued = back + self.entries()
        back_keys = {url_key(e.url) for e in back}
        fetched = [k for k in self._seen if k not in self._queued and k not in back_keys]
        return {
            "queued": [[e.url, e.priority, e.depth, e.hops, e.anchor] for e in queued],
            "seen": fetched,
        }

    @classmethod
    def from_dict(
        cls, data: dict[str, Any], *, per_host: int = 2, host_of: Callable[[str], str] = _host
    ) -> Frontier:
        frontier = cls(per_host=per_host, host_of=host_of)
        frontier._seen.update(int(k) for k in data.get("seen", ()))
        for url, priority, depth, hops, *rest in data.get("queued", ()):
            frontier.push(
                url,
                float(priority),
                None if depth is None else int(depth),
                int(hops),
                str(rest[0]) if rest else "",
            )
        return frontier
