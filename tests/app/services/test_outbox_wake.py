"""The outbox wake-up: at most one sender run per DELAY per process, failures cost only latency."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.services import outbox_wake


@pytest.fixture(autouse=True)
def no_waker() -> Iterator[None]:
    yield
    outbox_wake.set_waker(None)


def test_wake_without_a_waker_does_nothing() -> None:
    outbox_wake.set_waker(None)
    assert outbox_wake.wake() is False


def test_wake_calls_the_waker_once_per_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]
    monkeypatch.setattr(outbox_wake.time, "monotonic", lambda: clock[0])
    calls: list[float] = []
    outbox_wake.set_waker(calls.append)
    assert outbox_wake.wake() is True
    # a burst of commits within DELAY: the run already asked for covers them
    clock[0] += outbox_wake.DELAY / 2
    assert outbox_wake.wake() is False
    clock[0] += outbox_wake.DELAY
    assert outbox_wake.wake() is True
    assert calls == [outbox_wake.DELAY, outbox_wake.DELAY]


def test_a_failing_waker_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    def broken(delay: float) -> None:
        raise ConnectionError("broker down")

    outbox_wake.set_waker(broken)
    assert outbox_wake.wake() is False
    assert "next tick sends" in caplog.text
