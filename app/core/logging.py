"""Logging setup, called only from entry points."""

from __future__ import annotations

import json
import logging
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
    logging.getLogger("jieba").setLevel(logging.WARNING)
    for name in CHATTY:
        chatty = logging.getLogger(name)
        chatty.removeFilter(_TICK_FILTER)
        chatty.addFilter(_TICK_FILTER)
