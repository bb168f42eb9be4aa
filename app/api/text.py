"""Refuse text no database or page can hold, before anything is validated or saved.

A JSON body can carry a lone surrogate (``"\\ud800"``) or a NUL (``"\\u0000"``) as an
escape. Saved, such text breaks every response and page that shows it later (PostgreSQL
refuses NUL outright). ``SoundText`` answers 422 ``invalid_text`` for such a body on
``/api/`` before the request reaches a route.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

_NO_BODY = ("GET", "HEAD", "OPTIONS", "DELETE")


def unsound(value: object, where: str = "") -> str | None:
    """The JSON path of the first string that is not valid Unicode text, or None."""
    if isinstance(value, str):
        if "\x00" in value:
            return where or "body"
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate
            return where or "body"
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            found = unsound(key, where) or unsound(item, f"{where}.{key}" if where else str(key))
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = unsound(item, f"{where}[{index}]")
            if found:
                return found
    return None


class SoundText:
    """ASGI middleware: 422 for a JSON body on /api/ holding a lone surrogate or a NUL."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] in _NO_BODY
            or not scope["path"].startswith("/api/")
        ):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        field = _check(body)
        if field is not None:
            response = JSONResponse(
                {
                    "error": {
                        "code": "invalid_text",
                        "message": f"{field}: the text contains characters that are not valid "
                        "Unicode (a lone surrogate) or a NUL character.",
                        "details": {"field": field},
                    }
                },
                status_code=422,
            )
            await response(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _check(body: bytes) -> str | None:
    if b"\\u" not in body:  # only a \u escape can carry either into a JSON string
        return None
    try:
        data: Any = json.loads(body)
    except ValueError:
        return None  # not JSON: the framework reports that itself
    return unsound(data)
