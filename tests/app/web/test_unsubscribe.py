"""The unsubscribe link in every mail works without logging in, in the user's language,
including the RFC 8058 one-click POST a mail client sends by itself."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from app.core.config import get_settings
from app.models import User
from app.services.delivery_compose import unsubscribe_url
from tests.app.web.forms import new_client
from tests.factories import make_account


def _path(user: User) -> str:
    url = unsubscribe_url(get_settings(), user.id)  # type: ignore[arg-type]
    return url[url.index("/unsubscribe/") :]


def _email_enabled(db: Session, user: User) -> bool:
    db.expire_all()
    fresh = db.get(User, user.id)
    assert fresh is not None
    return fresh.email_enabled


def test_link_from_the_mail_asks_then_unsubscribes_then_offers_resubscribe(
    app: Any, db: Session
) -> None:
    user = make_account(db, "lin@example.com", language="zh")
    client = new_client(app)  # a stranger's browser: no session
    path = _path(user)

    page = client.get(path)
    assert page.status_code == 200
    assert "退订通知邮件" in page.text and 'id="unsubscribe-confirm"' in page.text
    assert _email_enabled(db, user), "opening the link alone must not unsubscribe"

    pressed = client.post(path)  # the button: post/redirect/get
    assert pressed.status_code == 303 and pressed.headers["location"] == path
    assert not _email_enabled(db, user)
    done = client.get(path)
    assert done.status_code == 200
    assert "您已退订" in done.text and "lin@example.com" in done.text
    assert 'id="resubscribe"' in done.text

    pressed = client.post(path + "/resubscribe")
    assert pressed.status_code == 303
    again = client.get(pressed.headers["location"])
    assert again.status_code == 200 and "已重新订阅" in again.text
    assert _email_enabled(db, user)


def test_one_click_post_from_a_mail_client(app: Any, db: Session) -> None:
    """RFC 8058: the client POSTs ``List-Unsubscribe=One-Click`` with no cookie, no token."""
    user = make_account(db, "sam@example.com", language="en")
    client = new_client(app)
    response = client.post(
        _path(user),
        content="List-Unsubscribe=One-Click",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 200
    assert "You are unsubscribed" in response.text  # the user's language, not the visitor's
    assert not _email_enabled(db, user)


def test_a_forged_link_changes_nothing(app: Any, db: Session) -> None:
    user = make_account(db, "kim@example.com")
    client = new_client(app, headers={"Accept-Language": "en"})
    forged = _path(user)[:-3] + "xyz"
    assert client.get(forged).status_code == 400
    response = client.post(forged)
    assert response.status_code == 400
    assert "invalid or expired" in response.text
    assert _email_enabled(db, user)


def test_an_old_link_does_not_unsubscribe_the_account_that_took_its_id(session: Session) -> None:
    """A deleted account's id may be handed to a new one (SQLite): the link names the old
    account, which the new one, made after the link, is not."""
    from datetime import timedelta

    from app.models import utcnow
    from app.services import delivery_actions
    from app.services.delivery_compose import unsubscribe_token

    settings = get_settings()
    dave = User(email="dave@example.com", password_hash="x", email_enabled=True)
    session.add(dave)
    session.commit()
    assert dave.id is not None
    token = unsubscribe_token(settings.effective_secret_key(), dave.id)
    assert delivery_actions.unsubscribe_user(session, settings, token) == dave
    reused = dave.id
    session.delete(dave)
    session.commit()
    erin = User(
        id=reused,
        email="erin@example.com",
        password_hash="x",
        email_enabled=True,
        created_at=utcnow() + timedelta(seconds=30),
    )
    session.add(erin)
    session.commit()
    assert delivery_actions.unsubscribe(session, settings, token) is None
    session.refresh(erin)
    assert erin.email_enabled
