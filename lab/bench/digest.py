"""`timelypush bench digest`: build and send the daily digest for many users to a local SMTP sink.

Seeds a fresh database (SQLite in a temporary directory by default) with N users × M matches
from the last day, starts a minimal SMTP sink on 127.0.0.1 in its own process, then times
``enqueue_due_digests`` and ``process_outbox`` until the outbox is empty. Seeding is not timed.
"""

from __future__ import annotations

import os
import platform
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import typer

SNIPPET = "财政部等四部门发布关于新能源汽车推广应用财政补贴政策的通知，明确补贴标准和技术要求。"


def _serve_sink(port_out: Any, counter: Any, size: Any) -> None:
    """Child process: a minimal SMTP sink on 127.0.0.1 that counts and discards messages.

    It speaks just enough SMTP (EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, QUIT) and reads
    DATA in bulk; aiosmtpd parses line by line and would be the bottleneck of this benchmark.
    """
    import asyncio

    class Sink(asyncio.Protocol):
        def connection_made(self, transport: Any) -> None:
            self.transport = transport
            self.buffer = b""
            self.in_data = False
            transport.write(b"220 sink ESMTP\r\n")

        def data_received(self, data: bytes) -> None:
            self.buffer += data
            while True:
                if self.in_data:
                    end = self.buffer.find(b"\r\n.\r\n")
                    if end < 0:
                        return
                    with counter.get_lock():
                        counter.value += 1
                        size.value += end
                    self.buffer = self.buffer[end + 5 :]
                    self.in_data = False
                    self.transport.write(b"250 OK\r\n")
                    continue
                line, sep, rest = self.buffer.partition(b"\r\n")
                if not sep:
                    return
                self.buffer = rest
                verb = line[:4].upper()
                if verb == b"EHLO":
                    self.transport.write(b"250-sink\r\n250-8BITMIME\r\n250 PIPELINING\r\n")
                elif verb == b"DATA":
                    self.in_data = True
                    self.transport.write(b"354 go ahead\r\n")
                elif verb == b"QUIT":
                    self.transport.write(b"221 bye\r\n")
                    self.transport.close()
                    return
                else:
                    self.transport.write(b"250 OK\r\n")

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(Sink, "127.0.0.1", 0)
        port_out.put(server.sockets[0].getsockname()[1])
        await asyncio.Event().wait()

    asyncio.run(main())


class _Sink:
    """An SMTP sink in its own process (so it does not share the sender's CPU and GIL)."""

    def __init__(self) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        self._count = ctx.Value("q", 0)
        self._bytes = ctx.Value("q", 0)
        ports = ctx.Queue()
        self.process = ctx.Process(
            target=_serve_sink, args=(ports, self._count, self._bytes), daemon=True
        )
        self.process.start()
        self.port: int = ports.get(timeout=30)

    @property
    def count(self) -> int:
        return int(self._count.value)

    @property
    def bytes(self) -> int:
        return int(self._bytes.value)

    def close(self) -> None:
        self.process.terminate()
        self.process.join(10)


def _seed(users: int, matches: int) -> Any:
    """Insert users, concerns, pages and matches in bulk; returns the 'now' the digest is due."""
    from sqlalchemy import insert

    from app.core.db import get_engine
    from app.models import Concern, Match, Page, User, utcnow
    from app.services.delivery_policy import due_digest

    now = utcnow()
    probe = User(email="probe", password_hash="-", timezone="UTC", digest_time="08:00")  # noqa: S106
    _, _, end = due_digest(probe, now)
    engine = get_engine()
    with engine.begin() as conn:
        conn.execute(
            insert(User.__table__),  # type: ignore[attr-defined]
            [
                {
                    "email": f"user{i}@bench.example",
                    "password_hash": "x",
                    "timezone": "UTC",
                    "language": "zh" if i % 2 else "en",
                    "push_mode": "digest",
                    "digest_time": "08:00",
                    "email_enabled": True,
                    "sms_enabled": False,
                    "webhook_enabled": False,
                    "digest_when_empty": False,
                    "is_active": True,
                    "created_at": now,
                }
                for i in range(1, users + 1)
            ],
        )
        conn.execute(
            insert(Concern.__table__),  # type: ignore[attr-defined]
            [
                {
                    "owner_id": i,
                    "seed_url": f"https://site{i % 97}.example.cn/",
                    "keywords": ["新能源", "补贴"],
                    "exclude": [],
                    "synonyms": [],
                    "strategy": "topic-pagerank",
                    "params": {},
                    "scope": "host",
                    "priority": 0,
                    "max_pages": 200,
                    "enabled": True,
                    "learned_terms": {},
                    "created_at": now,
                    "updated_at": now,
                }
                for i in range(1, users + 1)
            ],
        )
        for start in range(0, users, 1000):
            page_rows, match_rows = [], []
            for u in range(start + 1, min(users, start + 1000) + 1):
                for j in range(matches):
                    n = (u - 1) * matches + j + 1
                    url = f"https://site{u % 97}.example.cn/a/{n}"
                    page_rows.append(
                        {
                            "canonical_url": url,
                            "final_url": url,
                            "title": f"新能源汽车补贴政策解读 第{n}期",
                            "meta_keywords": "",
                            "description": "",
                            "excerpt": "",
                            "content_hash": "",
                            "simhash": 0,
                            "status": 200,
                            "first_seen_at": now,
                            "last_seen_at": now,
                        }
                    )
                    match_rows.append(
                        {
                            "concern_id": u,
                            "page_id": n,
                            "user_id": u,
                            "fingerprint": f"fp{n}",
                            "score": 0.5 + (j % 10) / 20,
                            "matched_keywords": ["新能源", "补贴"],
                            "explanation": {},
                            "title": f"新能源汽车补贴政策解读 第{n}期",
                            "url": url,
                            "snippet": SNIPPET,
                            "created_at": end - timedelta(minutes=j + 1),
                        }
                    )
            conn.execute(insert(Page.__table__), page_rows)  # type: ignore[attr-defined]
            conn.execute(insert(Match.__table__), match_rows)  # type: ignore[attr-defined]
    return now


def _drain(batch: int, now: Any) -> int:
    """Process the outbox until nothing is due (one worker; also runs in child processes)."""
    from app.core.config import get_settings
    from app.core.db import get_engine
    from app.services.delivery import process_outbox

    get_settings.cache_clear()
    get_engine.cache_clear()
    processed = 0
    for _ in range(1_000_000):
        n = process_outbox(limit=batch, now=now)
        processed += n
        if n == 0:
            break
    return processed


def register(bench_cli: typer.Typer) -> None:
    """Add `bench digest` to the bench group."""

    @bench_cli.command("digest")
    def digest(
        users: int = typer.Option(10_000, help="Users, each with one digest."),
        matches: int = typer.Option(20, help="New matches per user."),
        batch: int = typer.Option(500, help="Deliveries claimed per process_outbox call."),
        workers: int = typer.Option(1, help="Worker processes draining the outbox together."),
        database_url: str = typer.Option(
            "", help="Database URL (must be empty and migrated); default: temporary SQLite."
        ),
    ) -> None:
        """Time building and sending the daily digest to a local SMTP sink (goal: < 60 s)."""
        from app.core.config import get_settings
        from app.core.db import get_engine
        from app.core.migrate import upgrade

        tmp = Path(tempfile.mkdtemp(prefix="tp-bench-digest-"))
        url = database_url or f"sqlite:///{tmp / 'bench.db'}"
        sink = _Sink()
        os.environ.update(
            {
                "TIMELYPUSH_DATABASE_URL": url,
                "TIMELYPUSH_VAR_DIR": str(tmp),
                "TIMELYPUSH_SMTP_HOST": "127.0.0.1",
                "TIMELYPUSH_SMTP_PORT": str(sink.port),
                "TIMELYPUSH_SMTP_SECURITY": "none",
                "TIMELYPUSH_SECRET_KEY": "bench",
            }
        )
        get_settings.cache_clear()
        get_engine.cache_clear()
        if not database_url:
            upgrade(url)
        t = time.perf_counter()
        now = _seed(users, matches)
        typer.echo(f"seeded {users} users × {matches} matches in {time.perf_counter() - t:.1f} s")

        from app.services.delivery import enqueue_due_digests

        t0 = time.perf_counter()
        cpu0 = time.process_time()
        queued = enqueue_due_digests(now)
        t1 = time.perf_counter()
        if workers <= 1:
            processed = _drain(batch, now)
        else:
            import multiprocessing

            ctx = multiprocessing.get_context("spawn")
            with ctx.Pool(workers) as pool:
                processed = sum(pool.starmap(_drain, [(batch, now)] * workers))
        t2 = time.perf_counter()
        cpu = time.process_time() - cpu0
        sink.close()
        total = t2 - t0
        typer.echo(
            f"machine: {platform.platform()}, {os.cpu_count()} CPUs, {platform.python_version()}"
        )
        typer.echo(
            f"database: {'sqlite (temporary file)' if not database_url else url.split('@')[-1]}"
        )
        typer.echo(f"enqueue_due_digests: {queued} digests in {t1 - t0:.2f} s")
        typer.echo(f"workers: {workers}; CPU time of the main process: {cpu:.1f} s")
        typer.echo(
            f"process_outbox: {processed} sent, {sink.count} received "
            f"({sink.bytes / 1e6:.1f} MB) in {t2 - t1:.2f} s"
        )
        typer.echo(
            f"total: {total:.2f} s, {sink.count / total:.0f} digests/s "
            f"(goal < 60 s: {'met' if total < 60 and sink.count == users else 'NOT met'})"
        )
        if sink.count != users:
            raise typer.Exit(1)
