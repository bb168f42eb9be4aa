"""Fixtures for push tests: loopback SMTP sink and HTTP receiver."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.push.servers import HttpReceiver, SmtpSink


@pytest.fixture
def smtp_sink() -> Iterator[SmtpSink]:
    sink = SmtpSink().start()
    yield sink
    sink.close()


@pytest.fixture
def receiver() -> Iterator[HttpReceiver]:
    server = HttpReceiver()
    yield server
    server.close()
