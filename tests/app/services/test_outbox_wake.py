"""The outbox wake-up: at most one sender run per DELAY per process, nothing held back is
forgotten, and a failing waker costs only latency."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.services import outbox_wake


@pytest.fixture(autouse=True)
def no_waker() -> Iterator[None]:
    yield
    outbox_wake.set_waker(None)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [100.0]
    monkeypatch.setattr(outbox_wake.time, "monotonic", lambda: now[0])
    return now


def test_wake_without_a_waker_does_nothing() -> None:
    assert outbox_wake.wake() is False
    assert outbox_wake.flush() is False


def test_a_burst_is_one_run_and_held_back_rows_go_with_the_next_call(clock: list[float]) -> None:
    runs: list[float] = []
    outbox_wake.set_waker(lambda: runs.append(clock[0]))
    assert outbox_wake.wake() is True  # rows committed: the sender starts at once
    clock[0] += outbox_wake.DELAY / 2
    assert outbox_wake.wake() is False  # more rows within DELAY: held back, pending
    assert outbox_wake.wake(new=False) is False  # another page, still within DELAY
    clock[0] += outbox_wake.DELAY
    assert outbox_wake.wake(new=False) is True  # a later page sends what was held back
    assert outbox_wake.wake(new=False) is False  # nothing pending: nothing to do
    assert runs == [100.0, 100.0 + 1.5 * outbox_wake.DELAY]


def test_flush_sends_pending_rows_at_once(clock: list[float]) -> None:
    runs: list[float] = []
    outbox_wake.set_waker(lambda: runs.append(clock[0]))
    outbox_wake.wake()
    outbox_wake.wake()  # held back
    assert outbox_wake.flush() is True  # the crawl ended: no later page will come
    assert outbox_wake.flush() is False
    assert len(runs) == 2


def test_a_failing_waker_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    def broken() -> None:
        raise ConnectionError("broker down")

    outbox_wake.set_waker(broken)
    assert outbox_wake.wake() is False
    assert "next tick sends" in caplog.text
