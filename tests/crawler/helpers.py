"""Helpers of the crawler tests (plain functions; the fixtures live in conftest.py)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from crawler.fetch import FetchConfig

_SOURCE = re.compile(r"\s*<!--\s*(https?://\S+?)\s*-->")


def with_(config: FetchConfig, **changes: object) -> FetchConfig:
    """``config`` with some fields changed."""
    return dataclasses.replace(config, **changes)  # type: ignore[arg-type]


def source_url(path: Path, text: str) -> str | None:
    """The page's source URL from its first-line comment, if it has one."""
    match = _SOURCE.match(text)
    return match.group(1) if match else None
