"""Fetching and parsing in a child process, so that a crawl uses a second core.

``ProcessFetcher`` is a drop-in ``PageFetcher``: ``fetch(url, etag=, last_modified=)`` returns
the same ``Page`` or raises the same ``FetchError`` as ``crawler.fetch.Fetcher`` — because a
``Fetcher`` does the work, in a child Python process (``python -m crawler.fetchproc``). The
child owns everything below the page: the URL guard, robots.txt, politeness, the HTTP client,
decoding and HTML parsing. The calling process keeps the crawl itself (frontier, judgment,
link ranking), so the two halves of the per-page work run on two cores at once.

The two processes speak over the child's stdin and stdout: each message is a 4-byte length
and a pickle. Parent → child: the ``FetchConfig`` first, then ``(id, url, etag,
last_modified)`` per request; closing stdin asks the child to stop. Child → parent: ``(id,
True, page)`` or ``(id, False, error)`` per request, and at the end ``(-1, True, stats)``.

Nothing is lost when the child cannot run or dies: its unanswered requests, and every later
one, are fetched in this process by an ordinary ``Fetcher``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import signal
import struct
import sys
import types
from collections import Counter
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from crawler.errors import FetchError
from crawler.fetchconfig import FetchConfig
from crawler.types import Page

if TYPE_CHECKING:
    from crawler.fetch import Fetcher

__all__ = ["ProcessFetcher", "available_cpus"]

logger = logging.getLogger(__name__)

_HEADER = struct.Struct(">I")
_STATS = -1
"""The id of the child's last message: its fetcher's counters."""


def available_cpus() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _frame(message: object) -> bytes:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(data)) + data


async def _receive(reader: asyncio.StreamReader) -> Any:
    """The next message, or None at the end of the stream."""
    try:
        header = await reader.readexactly(_HEADER.size)
        (size,) = _HEADER.unpack(header)
        # the other end is this crawl's own process, over a pipe only the two of them hold
        return pickle.loads(await reader.readexactly(size))  # noqa: S301
    except asyncio.IncompleteReadError:
        return None


def _error_state(exc: BaseException) -> tuple[type[BaseException], tuple[Any, ...], dict[str, Any]]:
    """What rebuilds ``exc`` in the parent: its class, args and attributes."""
    state = (type(exc), exc.args, dict(getattr(exc, "__dict__", {})))
    try:
        pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return FetchError, (f"{type(exc).__name__}: {exc}",), {"message": f"{exc}", "url": ""}
    return state


def _rebuild(state: tuple[type[BaseException], tuple[Any, ...], dict[str, Any]]) -> BaseException:
    cls, args, attrs = state
    exc = cls.__new__(cls)
    exc.args = args
    exc.__dict__.update(attrs)
    return exc


class _ChildGone(Exception):
    """The child process ended before it answered."""


class ProcessFetcher:
    """A ``PageFetcher`` whose ``Fetcher`` runs in a child process (see the module doc).

    Use as an async context manager. ``stats`` holds the child's ``Fetcher.stats`` once
    closed (and the in-process fetcher's, if one had to take over).
    """

    def __init__(self, config: FetchConfig | None = None) -> None:
        self.config = config or FetchConfig()
        self.stats: Counter[str] = Counter()
        self._proc: asyncio.subprocess.Process | None = None
        """The child while it answers (None once it cannot)."""
        self._child: asyncio.subprocess.Process | None = None
        """The child until it is stopped, answering or not."""
        self._reader: asyncio.Task[None] | None = None
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self._next = 0
        self._local: Fetcher | None = None
        self._closed = False

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def start(self) -> None:
        """Start the child (if it cannot start, this process fetches instead)."""
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "crawler.fetchproc",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                env=env,
            )
        except OSError as exc:
            logger.warning("fetching in this process: the fetch process did not start (%s)", exc)
            return
        assert proc.stdin is not None and proc.stdout is not None
        self._proc = self._child = proc
        level = logging.getLogger("crawler").getEffectiveLevel()
        proc.stdin.write(_frame((self.config, level)))
        self._reader = asyncio.create_task(self._read(proc.stdout))

    async def fetch(
        self, url: str, *, etag: str | None = None, last_modified: str | None = None
    ) -> Page:
        """Fetch and parse ``url`` (see ``Fetcher.fetch``)."""
        proc = self._proc
        if proc is not None and proc.stdin is not None and not proc.stdin.is_closing():
            self._next += 1
            ident = self._next
            waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._waiting[ident] = waiter
            try:
                proc.stdin.write(_frame((ident, url, etag, last_modified)))
                return await waiter  # type: ignore[no-any-return]
            except (_ChildGone, ConnectionError):
                pass
            finally:
                self._waiting.pop(ident, None)
        return await self._fallback().fetch(url, etag=etag, last_modified=last_modified)

    def _fallback(self) -> Fetcher:
        if self._local is None:
            from crawler.fetch import Fetcher  # the HTTP stack only when this process fetches

            self._local = Fetcher(self.config)
        return self._local

    async def _read(self, stdout: asyncio.StreamReader) -> None:
        """Hand each answer to its waiting ``fetch``; when the child ends, release the rest."""
        try:
            while (message := await _receive(stdout)) is not None:
                ident, ok, value = message
                if ident == _STATS:
                    self.stats.update(value)
                    continue
                waiter = self._waiting.get(ident)
                if waiter is None or waiter.done():
                    continue
                if ok:
                    waiter.set_result(value)
                else:
                    waiter.set_exception(_rebuild(value))
        except Exception as exc:  # an answer that cannot be read: stop using the child
            logger.warning("an answer of the fetch process could not be read (%r)", exc)
        finally:
            self._proc_gone()

    def _proc_gone(self) -> None:
        if not self._closed and self._proc is not None:
            logger.warning("the fetch process ended early; fetching in this process from now on")
        self._proc = None
        for waiter in self._waiting.values():
            if not waiter.done():
                waiter.set_exception(_ChildGone())

    async def aclose(self) -> None:
        """Stop the child (it cancels what it still fetches) and collect its counters."""
        self._closed = True
        proc = self._child
        if proc is not None and proc.stdin is not None:
            with contextlib.suppress(ConnectionError):
                proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), timeout=10)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        if self._local is not None:
            await self._local.aclose()
            self.stats.update(self._local.stats)


# --- the child ----------------------------------------------------------------------------


async def _answer(
    fetcher: Fetcher, writer: asyncio.StreamWriter, request: tuple[int, str, str | None, str | None]
) -> None:
    ident, url, etag, last_modified = request
    try:
        page = await fetcher.fetch(url, etag=etag, last_modified=last_modified)
    except Exception as exc:  # every failure goes back to the crawl, which reports it
        writer.write(_frame((ident, False, _error_state(exc))))
    else:
        writer.write(_frame((ident, True, page)))


async def _serve() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**20)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, sys.stdout.buffer
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    first = await _receive(reader)
    if first is None:
        return
    config, level = first
    from crawler.fetch import Fetcher

    logging.basicConfig(level=level, format="%(levelname)s %(name)s (fetch process): %(message)s")
    tasks: set[asyncio.Task[None]] = set()
    async with Fetcher(config) as fetcher:
        while (request := await _receive(reader)) is not None:
            task = asyncio.create_task(_answer(fetcher, writer, request))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        writer.write(_frame((_STATS, True, dict(fetcher.stats))))
    with contextlib.suppress(ConnectionError):  # the crawl's process is gone: nobody to tell
        await writer.drain()
    writer.close()


def _without_httpx_cli() -> None:
    """Keep httpx from importing its command-line client (``httpx._main``: click and rich, a
    seventh of a second of this process's start, which the crawl waits for). httpx imports it
    only to offer ``httpx.main``, which this process never calls; a stand-in that says so
    takes its place, unless something imported the real one already."""
    if "httpx" in sys.modules or "httpx._main" in sys.modules:
        return
    stand_in = types.ModuleType("httpx._main")

    def main(*args: object, **kwargs: object) -> None:
        raise RuntimeError("httpx's command-line client is not loaded in the fetch process")

    stand_in.main = main  # type: ignore[attr-defined]
    sys.modules["httpx._main"] = stand_in


def main() -> None:
    """The child's entry point (``python -m crawler.fetchproc``). Ctrl-C in a terminal reaches
    the whole process group: the crawl's process handles it and closes the child's stdin,
    which stops the child; the child ignores the signal itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _without_httpx_cli()
    asyncio.run(_serve())


if __name__ == "__main__":
    main()
