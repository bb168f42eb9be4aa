"""Why a visit or a test message failed, told to a person in their language.

A crawl run keeps the crawler's error as text (``CrawlRun.error``: the exception's class and
message, e.g. ``NetworkError: http://…/: ConnectError ([Errno 111] Connection refused)``) and a
send keeps the channel's (``DeliveryResult.error``: ``webhook answered HTTP 500``). Both are
English and technical. The pages show instead what happened in one translated sentence, with
the one detail that helps the reader (the address that failed, the HTTP status); the raw text
stays in the database and the logs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from app.core.i18n import N_
from app.web import i18n


@dataclass(frozen=True)
class Failure:
    """A kind of failure: its catalogue message, its parameters and the address it concerns."""

    kind: str
    key: str
    params: dict[str, str] = field(default_factory=dict)
    where: str | None = None

    def text(self, lang: str) -> str:
        return i18n.translate(lang, self.key, **self.params)


_VISIT = {
    "network": N_("The site could not be reached."),
    "timeout": N_("The site took too long to answer."),
    "http_status": N_("The site answered with an error (HTTP %(status)s)."),
    "http": N_("The site answered with an error."),
    "blocked": N_("The address is not allowed: it leads to a private or local network."),
    "robots": N_("The site's robots.txt does not allow it to be read."),
    "redirects": N_("The site redirected too many times."),
    "too_large": N_("The page is too large to read."),
    "unsupported": N_("The address is not a web page or a feed."),
    "config": N_("The crawler's settings are wrong; the operator has to fix them."),
    "other": N_("The visit failed."),
}

# the crawler's error classes (crawler.errors) and the words of the transport errors under them
_VISIT_KINDS = (
    ("timeout", re.compile(r"FetchTimeout|Timeout|timed out|\btimeout\b", re.I)),
    ("http_status", re.compile(r"HTTPStatusError|HTTP status \d{3}")),
    ("blocked", re.compile(r"BlockedURL|GuardRefused")),
    ("robots", re.compile(r"RobotsDisallowed|robots\.txt")),
    ("redirects", re.compile(r"TooManyRedirects|redirect", re.I)),
    ("too_large", re.compile(r"TooLarge")),
    ("unsupported", re.compile(r"UnsupportedContent")),
    ("config", re.compile(r"ConfigError")),
    (
        "network",
        re.compile(
            r"NetworkError|ConnectError|Connection (?:refused|reset)|Name or service|"
            r"getaddrinfo|nodename|DNS|SSL|TLS|certificate|RemoteProtocolError|unreachable",
            re.I,
        ),
    ),
)
_URL = re.compile(r"https?://[^\s()\[\]]+")
_PATH = re.compile(r"(?<![\w/:])/[\w./%~-]+")
_STATUS = re.compile(r"\bHTTP(?: status)? (\d{3})\b")


def _where(error: str) -> str | None:
    """The address an error names, if any (a URL, or the path of a page on the site)."""
    found = _URL.search(error) or _PATH.search(error)
    return found.group(0).rstrip(":,;.") if found else None


def _read(
    error: str | None, kinds: tuple[tuple[str, re.Pattern[str]], ...]
) -> tuple[str, str, str | None]:
    """An error's text, its kind (the first of ``kinds`` whose pattern it matches, else
    ``other``) and the HTTP status it names, if any."""
    text = error or ""
    kind = next((k for k, pattern in kinds if pattern.search(text)), "other")
    status = _STATUS.search(text)
    return text, kind, status.group(1) if status else None


def visit_failure(error: str | None) -> Failure:
    """What a failed visit's (or page's) error text means for the reader."""
    text, kind, status = _read(error, _VISIT_KINDS)
    if kind == "http_status" and status is None:
        kind = "http"
    params = {"status": status} if kind == "http_status" and status else {}
    return Failure(kind, _VISIT[kind], params, _where(text))


def visit_text(lang: str, error: str | None) -> str:
    return visit_failure(error).text(lang)


_SEND = {
    "no_address": N_("There is no address for this channel in your profile."),
    "unverified": N_("Confirm this address first."),
    "not_configured": N_("This channel is not set up on this server."),
    "refused": N_("The address is not allowed or not valid."),
    "http_status": N_("The receiver answered with an error (HTTP %(status)s)."),
    "timeout": N_("The receiver took too long to answer."),
    "unreachable": N_("The receiver could not be reached."),
    "login": N_("The mail server refused this server's login; the operator has to fix it."),
    "rejected": N_("The receiving service did not accept the message."),
    "other": N_("The message could not be delivered."),
}

_SEND_KINDS = (
    ("no_address", re.compile(r"^no \w+ address")),
    ("unverified", re.compile(r"^verify the")),
    ("not_configured", re.compile(r"not configured|needs TIMELYPUSH_|turned off")),
    (
        "refused",
        re.compile(r"(?:target|recipient) refused|not an http\(s\) URL|not an email address"),
    ),
    ("http_status", re.compile(r"\bHTTP \d{3}\b")),
    ("timeout", re.compile(r"Timeout|timed out", re.I)),
    ("login", re.compile(r"authentication failed")),
    ("unreachable", re.compile(r"unreachable|unavailable|ConnectError|Connection", re.I)),
    ("rejected", re.compile(r"did not accept|could not deliver")),
)


def send_failure(error: str | None) -> Failure:
    """What a failed send's error text means for the reader."""
    _, kind, status = _read(error, _SEND_KINDS)
    params = {"status": status or "?"} if kind == "http_status" else {}
    return Failure(kind, _SEND[kind], params)


def send_text(lang: str, error: str | None) -> str:
    return send_failure(error).text(lang)
