"""Push: messages, delivery channels (email, webhook, SMS, Apprise) and digest rendering.

A library: no application, no database, no environment variables.
"""

from push.channels import (
    SCHEMA_VERSION,
    AppriseChannel,
    AppriseSms,
    AppriseTarget,
    ConsoleSms,
    EmailChannel,
    SmtpConfig,
    TwilioSms,
    WebhookChannel,
    encode_email,
    envelope,
    fit_sms,
    inspect_url,
    is_gsm7,
    new_secret,
    sign,
    sms_length,
)
from push.digest import DEFAULT_CAP, Digest, DigestGroup, DigestItem, build_digest, shorten, why
from push.errors import ConfigError, PushError, RenderError
from push.explain import explain_why, keyword_fields, own_and_learned, site_area
from push.message import Channel, DeliveryResult, Message, stable_id
from push.render import Rendered, Renderer, language
from push.titles import clean_title, site_suffixes, summary

__all__ = [
    "DEFAULT_CAP",
    "SCHEMA_VERSION",
    "AppriseChannel",
    "AppriseSms",
    "AppriseTarget",
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
    "explain_why",
    "fit_sms",
    "inspect_url",
    "is_gsm7",
    "keyword_fields",
    "language",
    "new_secret",
    "own_and_learned",
    "shorten",
    "sign",
    "site_area",
    "site_suffixes",
    "sms_length",
    "stable_id",
    "summary",
    "why",
]
