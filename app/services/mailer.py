"""Account emails (verification and password-reset links), sent directly, not via the outbox.

With SMTP configured the mail goes out at once; without it nothing is sent and only the fact is
logged: the message itself (a verification or reset link) is never written to the log. For
development, point ``TIMELYPUSH_SMTP_HOST`` at a local mail catcher.
"""

from __future__ import annotations

import logging
import secrets

from app.core.config import Settings
from app.services.channels import renderer, run_sync, smtp_config
from push import EmailChannel, Message

logger = logging.getLogger(__name__)


def send_account_email(
    settings: Settings, to: str, subject: str, text: str, html: str | None = None
) -> bool:
    """Send one account email; True when SMTP accepted it, False when only logged or failed."""
    config = smtp_config(settings)
    if config is None:
        logger.warning("SMTP is not configured; an account email was not sent")
        return False
    message = Message(subject=subject, text=text, html=html, id="acct_" + secrets.token_hex(16))
    result = run_sync(EmailChannel(config).send(message, to))
    if not result.ok:
        logger.error("account email to %s failed: %s", to, result.error)
    return result.ok


def render_account_email(
    template: str, lang: str | None, **context: object
) -> tuple[str, str, str | None]:
    """``(subject, text, html)`` of an account email template: ``verify`` or ``reset``.

    ``verify`` takes ``email`` and ``link``; ``reset`` takes ``email``, ``link`` and ``hours``.
    """
    rendered = renderer().render(template, lang, **context)
    return rendered.subject, rendered.text, rendered.html
