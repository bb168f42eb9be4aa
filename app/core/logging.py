"""Logging setup, called only from entry points."""

from __future__ import annotations

import json
import logging
import re
import sys


class JsonFormatter(logging.Formatter):
    """One JSON object per log record (time, level, logger, message, exception)."""

    def format(self, record: logging.LogRecord) -> str:
        data = {
            "ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S%z"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False)


CHATTY = ("apscheduler.scheduler", "apscheduler.executors.default", "celery.beat")
"""Loggers that say something at INFO on every scheduler tick ("Running job …")."""


class TickToDebug(logging.Filter):
    """Demote a chatty logger's INFO records to DEBUG (shown only when DEBUG is on)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.INFO:
            return True
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger().isEnabledFor(logging.DEBUG)


_TICK_FILTER = TickToDebug()

QUIET = ("jieba", "httpx", "httpcore", "urllib3", "apprise", "requests")
"""Loggers kept at WARNING whatever the level: HTTP clients log each request's full URL (a
webhook's secret path and query, an Apprise channel's token) at INFO or DEBUG."""

_LINK_SECRETS = (
    re.compile(r"(/(?:feed|unsubscribe|feedback)/)[^/?#\s\"]+"),
    re.compile(r"([?&#](?:token|key|code|sig|signature|secret)=)[^&#\s\"]+", re.I),
)
"""The secrets a request's path carries: a feed's, an unsubscribe and a feedback link's
token, and a token in the query (``/verify-email?token=…``)."""


def redact(text: str) -> str:
    """``text`` with the secrets of signed links and token parameters replaced by ``…``."""
    for pattern in _LINK_SECRETS:
        text = pattern.sub(r"\1…", text)
    return text


class RedactLinks(logging.Filter):
    """Take the secrets out of an access log line's path (uvicorn logs every request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.msg, str):
            record.msg = redact(record.msg)
        return True


_REDACT_FILTER = RedactLinks()


def protect_secrets() -> None:
    """Quiet the HTTP clients and redact the access log (each server process calls it: the
    server configures its own loggers after the command line configured ours)."""
    for name in QUIET:
        logging.getLogger(name).setLevel(logging.WARNING)
    access = logging.getLogger("uvicorn.access")
    access.removeFilter(_REDACT_FILTER)
    access.addFilter(_REDACT_FILTER)


def configure_logging(level: str = "INFO", *, json_logs: bool = False) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JsonFormatter()
        if json_logs
        else logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    protect_secrets()
    for name in CHATTY:
        chatty = logging.getLogger(name)
        chatty.removeFilter(_TICK_FILTER)
        chatty.addFilter(_TICK_FILTER)
