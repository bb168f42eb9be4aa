"""Fault injection: mail server down, webhook failing, workers dying — nothing lost, no dupes."""

from __future__ import annotations

import re
import threading
from collections import Counter
from datetime import timedelta

from sqlalchemy import update
from sqlmodel import Session

from app.core.config import get_settings
from app.models import Delivery, utcnow
from app.services import channels, delivery
from app.services.delivery_policy import MAX_ATTEMPTS
from tests.factories import add_concern, make_matches, make_user
from tests.push import fixtures
from tests.push.fixtures import drain, rows
from tests.push.servers import HttpReceiver, SmtpSink

sink, hook, push_env = fixtures.sink, fixtures.hook, fixtures.push_env
URL = re.compile(r"https://news\.example\.cn/article/\d+")


def _mailed_urls(sink: SmtpSink) -> Counter[tuple[str, str]]:
    """(recipient, match URL) pairs over distinct Message-IDs (what a mailbox shows)."""
    seen: dict[str, tuple[str, str]] = {}
    for msg in sink.messages:
        text = msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
        seen[msg["Message-ID"]] = (msg["To"], text)
    return Counter((to, url) for to, text in seen.values() for url in set(URL.findall(text)))


def test_outage_retries_and_a_killed_worker_lose_nothing(
    session: Session, push_env: SmtpSink, hook: HttpReceiver
) -> None:
    a = make_user(session, webhook_enabled=True, webhook_url=hook.url)
    b = make_user(session)
    matches = make_matches(session, add_concern(session, a), 4)
    matches += make_matches(session, add_concern(session, b), 3)
    delivery.enqueue_for_matches(session, matches)
    session.commit()
    port = push_env.port

    push_env.stop()  # the mail server is down
    hook.statuses = [500, 500, 503]  # and the webhook fails at first
    t0 = utcnow()
    assert drain(t0) == 6  # 4 webhooks + one merged mail per user (4 + 3 matches)
    assert {r.status for r in rows(session) if r.next_attempt_at < t0 + delivery.PARK} <= {
        "failed",
        "sent",
    }
    assert push_env.messages == []

    t1 = t0 + timedelta(days=1)
    abandoned = delivery._claim(2, t1)  # a worker claims two rows, then dies
    assert len(abandoned) == 2
    push_env.start(port)  # the mail server is back
    drain(t1)
    assert {r.status for r in rows(session) if r.id in {x.id for x in abandoned}} == {"sending"}
    drain(t1 + delivery.LEASE + timedelta(seconds=1))  # the lease expired: re-claimed

    assert {r.status for r in rows(session)} == {"sent"}
    wanted = Counter(
        {(u.email, m.url): 1 for u, ms in ((a, matches[:4]), (b, matches[4:])) for m in ms}
    )
    assert _mailed_urls(push_env) == wanted
    accepted = [r.json()["data"]["match_id"] for r in hook.requests if r.status == 200]
    assert sorted(accepted) == sorted(m.id for m in matches[:4])


def test_crash_between_send_and_record_resends_with_same_ids(
    session: Session, push_env: SmtpSink, hook: HttpReceiver
) -> None:
    user = make_user(session, webhook_enabled=True, webhook_url=hook.url)
    delivery.enqueue_for_matches(session, make_matches(session, add_concern(session, user), 1))
    session.commit()
    now = utcnow()
    claimed = delivery._claim(10, now)
    jobs, dropped = delivery._compose(get_settings(), claimed)
    assert dropped == {}
    results = channels.run_sync(delivery._send_all(get_settings(), jobs))
    assert all(r.ok for r in results.values())
    # ... the worker dies here, before recording the outcome
    assert drain(now) == 0
    assert drain(now + delivery.LEASE + timedelta(seconds=1)) == 2
    assert [(r.status, r.attempts) for r in rows(session)] == [("sent", 2), ("sent", 2)]
    first, second = push_env.messages
    assert first["Message-ID"] == second["Message-ID"]
    assert hook.requests[0].headers["webhook-id"] == hook.requests[1].headers["webhook-id"]
    assert hook.requests[0].json() == hook.requests[1].json()


def test_concurrent_workers_claim_disjoint_rows(session: Session, push_env: SmtpSink) -> None:
    for _ in range(4):
        user = make_user(
            session, email_enabled=False, webhook_enabled=True, webhook_url="http://127.0.0.1:9/"
        )
        delivery.enqueue_for_matches(session, make_matches(session, add_concern(session, user), 10))
    session.commit()
    now = utcnow()
    start = threading.Barrier(3)
    claimed: list[list[int]] = []

    def worker() -> None:
        start.wait(10)
        got = delivery._claim(40, now)
        claimed.append([r.id for r in got if r.id is not None])

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    ids = [i for batch in claimed for i in batch]
    assert len(claimed) == 3
    assert len(ids) == len(set(ids)) == 40


def test_too_many_failures_end_dead(
    session: Session, push_env: SmtpSink, hook: HttpReceiver
) -> None:
    hook.default = 500
    user = make_user(session, email_enabled=False, webhook_enabled=True, webhook_url=hook.url)
    delivery.enqueue_for_matches(session, make_matches(session, add_concern(session, user), 1))
    session.execute(update(Delivery).values(attempts=MAX_ATTEMPTS - 1))  # type: ignore[call-overload]
    session.commit()
    assert drain() == 1
    [row] = rows(session)
    assert (row.status, row.attempts, row.last_error) == (
        "dead",
        MAX_ATTEMPTS,
        "webhook answered HTTP 500",
    )
