"""Push: messages, delivery channels (email, webhook, SMS) and digest rendering.

A library: no application, no database, no environment variables.
"""

from push.channels import (
    SCHEMA_VERSION,
    AppriseSms,
    ConsoleSms,
    EmailChannel,
    SmtpConfig,
    TwilioSms,
    WebhookChannel,
    encode_email,
    envelope,
    fit_sms,
    is_gsm7,
    new_secret,
    sign,
    sms_length,
)
from push.digest import DEFAULT_CAP, Digest, DigestGroup, DigestItem, build_digest, shorten, why
from push.errors import ConfigError, PushError, RenderError
from push.message import Channel, DeliveryResult, Message, stable_id
from push.render import Rendered, Renderer, language
from push.titles import clean_title, site_suffixes, summary

__all__ = [
    "DEFAULT_CAP",
    "SCHEMA_VERSION",
    "AppriseSms",
    "Channel",
    "ConfigError",
    "ConsoleSms",
    "DeliveryResult",
    "Digest",
    "DigestGroup",
    "DigestItem",
    "EmailChannel",
    "Message",
    "PushError",
    "RenderError",
    "Rendered",
    "Renderer",
    "SmtpConfig",
    "TwilioSms",
    "WebhookChannel",
    "build_digest",
    "clean_title",
    "encode_email",
    "envelope",
    "fit_sms",
    "is_gsm7",
    "language",
    "new_secret",
    "shorten",
    "sign",
    "site_suffixes",
    "sms_length",
    "stable_id",
    "summary",
    "why",
]
