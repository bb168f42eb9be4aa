"""Accounts: registration, throttled login, verification, reset by link and SMS, tokens."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from sqlmodel import Session

from app.core.config import get_settings
from app.models import ApiToken, ProfileUpdate, utcnow
from app.services import account_messages, auth, password_reset, profile, tokens, verification
from app.services.errors import (
    Conflict,
    Invalid,
    NotFound,
    Throttled,
    Unauthorized,
    WrongPassword,
)
from tests.factories import PASSWORD, make_account


def test_register_normalises_email_and_refuses_duplicates(session: Session) -> None:
    user = auth.register_user(session, email=" Alice@Example.COM ", password="long enough")
    assert user.email == "alice@example.com"
    assert user.password_hash != "long enough"
    assert user.email_verified_at is None
    with pytest.raises(Conflict):
        auth.register_user(session, email="ALICE@example.com", password="another one")
    with pytest.raises(Invalid):
        auth.register_user(session, email="not-an-email", password="long enough")
    with pytest.raises(Invalid, match="at least 8"):
        auth.register_user(session, email="bob@example.com", password="short")


@pytest.mark.real_argon2
def test_passwords_are_hashed_with_argon2id_at_the_recommended_cost(session: Session) -> None:
    from argon2 import extract_parameters, profiles

    user = auth.register_user(session, email="alice@example.com", password="long enough")
    params = extract_parameters(user.password_hash)
    assert user.password_hash.startswith("$argon2id$")
    recommended = profiles.RFC_9106_LOW_MEMORY  # argon2-cffi's default
    assert params.memory_cost >= recommended.memory_cost
    assert params.time_cost >= recommended.time_cost
    # a hash made at a lower cost (the tests' own) is made again at this one at the next login
    cheap = auth.register_user(session, email="bob@example.com", password="long enough")
    cheap.password_hash = _cheap_hash("long enough")
    session.add(cheap)
    session.commit()
    auth.authenticate(session, email="bob@example.com", password="long enough", ip="10.0.0.2")
    session.refresh(cheap)
    assert extract_parameters(cheap.password_hash).memory_cost == params.memory_cost


def _cheap_hash(password: str) -> str:
    from argon2 import PasswordHasher, profiles

    return PasswordHasher.from_parameters(profiles.CHEAPEST).hash(password)


def test_login_succeeds_and_fails_without_saying_which_part_was_wrong(session: Session) -> None:
    make_account(session)
    assert (
        auth.authenticate(
            session, email="ALICE@example.com", password=PASSWORD, ip="10.0.0.1"
        ).email
        == "alice@example.com"
    )
    with pytest.raises(Unauthorized) as wrong:
        auth.authenticate(session, email="alice@example.com", password="nope", ip="10.0.0.1")
    with pytest.raises(Unauthorized) as unknown:
        auth.authenticate(session, email="who@example.com", password="nope", ip="10.0.0.1")
    assert wrong.value.message == unknown.value.message


def test_account_wide_ceiling_holds_across_ips(
    session: Session, slow_backoff: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIMELYPUSH_RATE_LIMITS", "login_account=3/1h")
    get_settings.cache_clear()
    make_account(session)
    for i in range(4):  # 3 free, 1 let through by the back-off
        with pytest.raises(Unauthorized):
            auth.authenticate(session, email="alice@example.com", password="bad", ip=f"10.0.0.{i}")
    with pytest.raises(Throttled) as exc:
        auth.authenticate(session, email="alice@example.com", password=PASSWORD, ip="10.9.9.9")
    assert 0 < exc.value.retry_after <= 5 * 60  # a back-off, never a long lock


def test_login_is_throttled_per_ip_across_accounts(session: Session, slow_backoff: None) -> None:
    from app.services.throttle import DEFAULTS

    for i in range(DEFAULTS["login_ip"].attempts + 1):
        with pytest.raises(Unauthorized):
            auth.authenticate(session, email=f"u{i}@example.com", password="x", ip="1.2.3.4")
    make_account(session, "fresh@example.com")
    with pytest.raises(Throttled):
        auth.authenticate(session, email="fresh@example.com", password=PASSWORD, ip="1.2.3.4")
    # another address is not affected
    assert auth.authenticate(session, email="fresh@example.com", password=PASSWORD, ip="5.6.7.8")


def test_successful_login_clears_account_failures(session: Session, slow_backoff: None) -> None:
    from app.services.throttle import DEFAULTS

    make_account(session)
    free = DEFAULTS["login"].attempts
    for _ in range(free - 1):
        with pytest.raises(Unauthorized):
            auth.authenticate(session, email="alice@example.com", password="bad", ip="9.9.9.9")
    auth.authenticate(session, email="alice@example.com", password=PASSWORD, ip="9.9.9.9")
    for _ in range(free):
        with pytest.raises(Unauthorized):
            auth.authenticate(session, email="alice@example.com", password="bad", ip="9.9.9.9")


def _token_from(text: str) -> str:
    found = re.search(r"token=([\w.\-%]+)", text)
    assert found, text
    from urllib.parse import unquote

    return unquote(found.group(1))


def test_email_verification_link(session: Session, outbox: list) -> None:
    user = make_account(session)
    settings = get_settings()
    verification.send_verification_email(settings, user)
    assert outbox[0]["to"] == "alice@example.com"
    token = _token_from(outbox[0]["text"])
    assert verification.verify_email(session, settings, token).email_verified_at is not None
    with pytest.raises(Invalid):
        verification.verify_email(session, settings, token + "x")


def test_password_reset_link_is_single_use(session: Session, outbox: list) -> None:
    make_account(session)
    settings = get_settings()
    password_reset.request_password_reset(session, settings, email="nobody@example.com")
    assert outbox == []  # no account: silent, nothing sent
    password_reset.request_password_reset(session, settings, email="alice@example.com")
    token = _token_from(outbox[0]["text"])
    password_reset.reset_password(session, settings, token=token, new_password="brand new pass")
    session.commit()
    assert auth.authenticate(
        session, email="alice@example.com", password="brand new pass", ip="1.1.1.1"
    )
    with pytest.raises(Invalid, match="already used"):
        password_reset.reset_password(session, settings, token=token, new_password="third password")


def _verify_phone(session: Session, user: object) -> None:
    """Confirm the phone number the way the user does: the texted code."""
    settings = get_settings()
    sent: list[str] = []
    original = account_messages.send_sms
    account_messages.send_sms = lambda s, phone, text: sent.append(text)  # type: ignore[assignment]
    try:
        verification.send_phone_code(session, settings, user)  # type: ignore[arg-type]
    finally:
        account_messages.send_sms = original  # type: ignore[assignment]
    code = re.search(r"\d{6}", sent[-1]).group(0)  # type: ignore[union-attr]
    verification.confirm_phone(session, settings, user, code)  # type: ignore[arg-type]
    session.commit()


def test_sms_reset_goes_only_to_a_verified_phone(session: Session, outbox: list) -> None:
    user = make_account(session)
    profile.update_profile(session, user, ProfileUpdate(phone="+8613800138000"))
    session.commit()
    password_reset.request_sms_reset(session, get_settings(), email="alice@example.com")
    assert outbox == []  # the number was never confirmed
    _verify_phone(session, user)
    assert user.phone_verified_at is not None
    password_reset.request_sms_reset(session, get_settings(), email="alice@example.com")
    assert outbox[-1]["to"] == "+8613800138000"
    profile.update_profile(session, user, ProfileUpdate(phone="+8613900139000"))
    assert user.phone_verified_at is None  # a new number is confirmed again


def test_sms_reset_code_is_hashed_limited_and_single_use(session: Session, outbox: list) -> None:
    user = make_account(session)
    profile.update_profile(session, user, ProfileUpdate(phone="+86 138 0013 8000"))
    session.commit()
    _verify_phone(session, user)
    settings = get_settings()
    password_reset.request_sms_reset(session, settings, email="alice@example.com")
    assert outbox[-1]["to"] == "+8613800138000"
    code = re.search(r"\d{6}", outbox[-1]["text"]).group(0)  # type: ignore[union-attr]
    from sqlmodel import select

    from app.models import ResetCode

    stored = session.exec(select(ResetCode).where(ResetCode.purpose == "reset")).one()
    assert code not in stored.code_hash
    wrong = "000000" if code != "000000" else "111111"
    with pytest.raises(Invalid):
        password_reset.reset_password_with_code(
            session, settings, email="alice@example.com", code=wrong, new_password="new password"
        )
    password_reset.reset_password_with_code(
        session, settings, email="alice@example.com", code=code, new_password="new password"
    )
    session.commit()
    with pytest.raises(Invalid):
        password_reset.reset_password_with_code(
            session, settings, email="alice@example.com", code=code, new_password="again again"
        )


def test_sms_code_stops_after_too_many_wrong_attempts(session: Session, outbox: list) -> None:
    user = make_account(session)
    profile.update_profile(session, user, ProfileUpdate(phone="+8613800138000"))
    session.commit()
    _verify_phone(session, user)
    settings = get_settings()
    password_reset.request_sms_reset(session, settings, email="alice@example.com")
    code = re.search(r"\d{6}", outbox[-1]["text"]).group(0)  # type: ignore[union-attr]
    wrong = "000000" if code != "000000" else "111111"
    for _ in range(account_messages.SMS_CODE_ATTEMPTS):
        with pytest.raises(Invalid):
            password_reset.reset_password_with_code(
                session, settings, email="alice@example.com", code=wrong, new_password="x" * 9
            )
    with pytest.raises(Invalid):  # even the right code is dead now
        password_reset.reset_password_with_code(
            session, settings, email="alice@example.com", code=code, new_password="x" * 9
        )


def test_profile_validation(session: Session, allow_test_hosts: None) -> None:
    user = make_account(session)
    updated = profile.update_profile(
        session,
        user,
        ProfileUpdate(
            timezone="Europe/Berlin",
            language="en",
            push_mode="digest",
            digest_time="7:5",
            quiet_start="22:00",
            quiet_end="07:00",
            webhook_url="hooks.example.com/tp",
        ),
    )
    assert updated.timezone == "Europe/Berlin"
    assert updated.digest_time == "07:05"
    assert updated.webhook_url == "https://hooks.example.com/tp"
    for bad in (
        ProfileUpdate(timezone="Mars/Olympus"),
        ProfileUpdate(language="fr"),
        ProfileUpdate(push_mode="sometimes"),
        ProfileUpdate(digest_time="25:00"),
        ProfileUpdate(phone="call me"),
        ProfileUpdate(webhook_url="http://10.0.0.1/hook"),
        ProfileUpdate(webhook_url="ftp://hooks.example.com/"),
        ProfileUpdate(sms_enabled=True),
    ):
        with pytest.raises(Invalid):
            profile.update_profile(session, user, bad)
        session.rollback()


def test_changing_email_takes_the_password_and_verification_again(session: Session) -> None:
    user = make_account(session)
    make_account(session, "bob@example.com")
    user.email_verified_at = utcnow()
    session.commit()
    # a stolen session or token alone cannot move the account to another address
    with pytest.raises(Invalid) as missing:
        profile.update_profile(session, user, ProfileUpdate(email="mallory@example.com"))
    assert missing.value.code == "password_required"
    session.rollback()
    with pytest.raises(WrongPassword):
        profile.update_profile(
            session, user, ProfileUpdate(email="mallory@example.com", current_password="guess")
        )
    session.rollback()
    session.refresh(user)
    assert user.email == "alice@example.com" and user.email_verified_at is not None
    # the same address (any case) and other fields need no password
    profile.update_profile(session, user, ProfileUpdate(email="ALICE@example.com", timezone="UTC"))
    session.commit()  # as the request does (the password's throttle writes on its own)
    with pytest.raises(Conflict):
        profile.update_profile(
            session, user, ProfileUpdate(email="BOB@example.com", current_password=PASSWORD)
        )
    session.rollback()
    updated = profile.update_profile(
        session, user, ProfileUpdate(email="alice2@example.com", current_password=PASSWORD)
    )
    assert updated.email == "alice2@example.com"
    assert updated.email_verified_at is None


def test_webhook_secret_rotates(session: Session) -> None:
    user = make_account(session)
    first = profile.rotate_webhook_secret(session, user)
    second = profile.rotate_webhook_secret(session, user)
    assert first != second and user.webhook_secret == second


def test_change_password(session: Session) -> None:
    user = make_account(session)
    with pytest.raises(WrongPassword):
        auth.change_password(
            session, user, current_password="wrong pass", new_password="new password"
        )
    auth.change_password(session, user, current_password=PASSWORD, new_password="new password")
    session.commit()
    assert auth.authenticate(session, email="alice@example.com", password="new password", ip=None)


def test_api_tokens_are_hashed_listable_and_revocable(session: Session) -> None:
    alice = make_account(session)
    bob = make_account(session, "bob@example.com")
    plaintext, row = tokens.issue_token(session, alice, name="Pixel 8")
    assert plaintext not in row.token_hash
    assert tokens.user_for_token(session, plaintext).id == alice.id  # type: ignore[union-attr]
    touched = session.get(ApiToken, row.id).last_used_at  # type: ignore[union-attr]
    assert touched is not None
    tokens.user_for_token(session, plaintext)  # within a minute: not written again
    assert session.get(ApiToken, row.id).last_used_at == touched  # type: ignore[union-attr]
    assert [t.name for t in tokens.list_tokens(session, alice)] == ["Pixel 8"]
    assert tokens.list_tokens(session, bob) == []
    with pytest.raises(NotFound):
        tokens.revoke_token(session, bob, row.id)  # type: ignore[arg-type]
    tokens.revoke_token(session, alice, row.id)  # type: ignore[arg-type]
    assert tokens.user_for_token(session, plaintext) is None
    assert tokens.user_for_token(session, "tp_unknown") is None
    assert tokens.list_tokens(session, alice) == []


def test_expired_token_is_refused(session: Session) -> None:
    alice = make_account(session)
    plaintext, row = tokens.issue_token(session, alice, name="old")
    row.expires_at = utcnow() - timedelta(seconds=1)
    session.add(row)
    session.commit()
    assert tokens.user_for_token(session, plaintext) is None
