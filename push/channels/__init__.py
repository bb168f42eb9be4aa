"""Delivery channels: email (SMTP), webhook (signed HTTP POST), SMS (adapters), Apprise."""

from push.channels.apprise import AppriseChannel, AppriseTarget, inspect_url
from push.channels.email import EmailChannel, SmtpConfig, encode_email
from push.channels.sms import AppriseSms, ConsoleSms, TwilioSms, fit_sms, is_gsm7, sms_length
from push.channels.webhook import SCHEMA_VERSION, WebhookChannel, envelope, new_secret, sign

__all__ = [
    "SCHEMA_VERSION",
    "AppriseChannel",
    "AppriseSms",
    "AppriseTarget",
    "ConsoleSms",
    "EmailChannel",
    "SmtpConfig",
    "TwilioSms",
    "WebhookChannel",
    "encode_email",
    "envelope",
    "fit_sms",
    "inspect_url",
    "is_gsm7",
    "new_secret",
    "sign",
    "sms_length",
]
