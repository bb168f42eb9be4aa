"""Login throttling and rate limits: atomic, per account × IP, and no lock-out of the owner.

Run against both stores: the database row with compare-and-set, and Redis.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.core.config import get_settings
from app.services import auth, throttle
from app.services.errors import Throttled, Unauthorized, WrongPassword
from tests.factories import PASSWORD, make_account

ATTACKER, OWNER = "203.0.113.66", "198.51.100.7"


@pytest.fixture(params=["database", "redis"])
def store(
    request: pytest.FixtureRequest, settings_env: None, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    if request.param == "redis":
        monkeypatch.setenv("TIMELYPUSH_REDIS_URL", request.getfixturevalue("redis_url"))
        get_settings.cache_clear()
    yield request.param
    get_settings.cache_clear()


def _try_login(engine: Engine, password: str, ip: str) -> str:
    with Session(engine, expire_on_commit=False) as s:
        try:
            auth.authenticate(s, email="alice@example.com", password=password, ip=ip)
        except Throttled:
            return "throttled"
        except Unauthorized:
            return "wrong"
        return "ok"


def test_parallel_wrong_passwords_are_each_counted(
    store: str, engine: Engine, session: Session, slow_backoff: None
) -> None:
    make_account(session)
    free = throttle.DEFAULTS["login"].attempts
    with ThreadPoolExecutor(max_workers=30) as pool:
        outcomes = list(pool.map(lambda _: _try_login(engine, "wrong", ATTACKER), range(30)))
    assert len(outcomes) == 30
    # every attempt was checked and recorded in one step: only the free attempts and the one
    # the back-off lets through reached the password check, the rest were refused
    assert outcomes.count("wrong") <= free + 1
    assert outcomes.count("throttled") >= 30 - free - 1


def test_owner_logs_in_during_an_attack_from_another_ip(
    store: str, engine: Engine, session: Session, slow_backoff: None
) -> None:
    make_account(session)
    outcomes = [_try_login(engine, f"guess {i}", ATTACKER) for i in range(60)]
    assert outcomes.count("wrong") <= throttle.DEFAULTS["login"].attempts + 1
    assert _try_login(engine, PASSWORD, OWNER) == "ok"


def test_back_off_doubles_instead_of_locking() -> None:
    """The rule itself, on a simulated clock: 5 free attempts, then 1 s, 2 s, 4 s … waits."""
    limit = throttle.DEFAULTS["login"]
    state, now = None, 1000.0
    for _ in range(limit.attempts):
        state, wait = throttle.step(state, now, limit)
        assert wait == 0
    waits = []
    for _ in range(5):
        state, wait = throttle.step(state, now, limit)
        assert wait == 0  # allowed once the previous delay is over …
        assert state.next_at > now
        waits.append(state.next_at - now)
        _, refused = throttle.step(state, now, limit)
        assert refused > 0  # … and refused before that
        now = state.next_at
    assert waits == [1.0, 2.0, 4.0, 8.0, 16.0]
    before = now
    for _ in range(30):
        before = state.next_at
        state, wait = throttle.step(state, before, limit)
        assert wait == 0
    assert state.next_at - before == limit.max_delay.total_seconds() == 900.0  # the ceiling


def test_a_plain_limit_refuses_until_the_window_ends() -> None:
    limit = throttle.Limit(2, timedelta(hours=1))
    state, wait = throttle.step(None, 0.0, limit)
    state, wait = throttle.step(state, 10.0, limit)
    assert wait == 0
    state, wait = throttle.step(state, 20.0, limit)
    assert wait == 3600.0 - 20.0
    _, wait = throttle.step(state, 3600.0, limit)
    assert wait == 0


def test_overrides_are_parsed_and_checked() -> None:
    limits = throttle.parse_overrides("login=3/10m, reset_email=1/1d")
    assert (limits["login"].attempts, limits["login"].window) == (3, timedelta(minutes=10))
    assert limits["login"].backoff
    assert limits["reset_email"].window == timedelta(days=1)
    with pytest.raises(ValueError, match="name=N/period"):
        throttle.parse_overrides("logins=3/10m")


def test_current_password_checks_are_throttled(
    store: str, engine: Engine, session: Session, slow_backoff: None
) -> None:
    user = make_account(session)
    results = []
    for _ in range(10):
        try:
            auth.change_password(
                session, user, current_password="wrong!", new_password="new password", ip=OWNER
            )
            results.append("ok")
        except Throttled:
            results.append("throttled")
        except WrongPassword:
            results.append("wrong")
    # the free attempts, then the one the back-off lets through
    assert results.count("wrong") == throttle.DEFAULTS["login"].attempts + 1
    assert "throttled" in results and "ok" not in results
