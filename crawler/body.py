"""Response bodies: what we accept (HTML, XHTML, RSS/Atom) and how much of it (size limits).

``content_kind`` decides from the ``Content-Type`` header, falling back to the URL extension
when the header is missing or generic (SkyReach's rule) and to sniffing the first bytes.
``read_limited`` streams the *raw* body and inflates gzip/deflate itself in bounded steps, so
both the bytes on the wire and the decoded bytes are counted against ``max_bytes`` while they
arrive: a 10 KB gzip bomb that would inflate to gigabytes stops at the limit.
"""

from __future__ import annotations

import posixpath
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Literal
from urllib.parse import unquote, urlsplit

from crawler.errors import TooLarge, UnsupportedContent

__all__ = ["ACCEPT", "ACCEPT_ENCODING", "content_kind", "read_limited"]

Kind = Literal["html", "feed", "unknown"]

ACCEPT = (
    "text/html,application/xhtml+xml;q=0.9,application/rss+xml;q=0.8,"
    "application/atom+xml;q=0.8,application/xml;q=0.5,*/*;q=0.1"
)
ACCEPT_ENCODING = "gzip, deflate"
"""Only encodings we inflate ourselves with a bound (see ``read_limited``)."""

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml", "application/vnd.wap.xhtml+xml"})
_FEED_TYPES = frozenset(
    {"application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/rss"}
)
_XML_TYPES = frozenset({"application/xml", "text/xml"})
_GENERIC_TYPES = frozenset({"", "application/octet-stream", "text/plain", "binary/octet-stream"})
_HTML_EXTENSIONS = frozenset(
    {
        *(".html", ".htm", ".shtml", ".shtm", ".xhtml", ".xht", ".php", ".php3", ".asp"),
        *(".aspx", ".jsp", ".jspx", ".cgi", ".pl", ".do", ".action", ".cfm"),
    }
)
_FEED_EXTENSIONS = frozenset({".rss", ".atom", ".xml", ".rdf"})
_CHUNK = 65_536


def _media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def _extension(url: str) -> str:
    path = unquote(urlsplit(url).path)
    return posixpath.splitext(path)[1].lower()


def content_kind(content_type: str | None, url: str) -> Kind:
    """What a response is from its headers alone: "html", "feed" or "unknown" (sniff it).

    Raises UnsupportedContent for a declared non-HTML type (image, PDF, JSON, …) or, when
    the type is missing or generic, for a URL whose extension names a non-HTML file.
    """
    media = _media_type(content_type)
    if media in _HTML_TYPES:
        return "html"
    if media in _FEED_TYPES:
        return "feed"
    if media in _XML_TYPES:
        return "unknown"  # an XML document: a feed, XHTML, or something else (sniffed)
    if media not in _GENERIC_TYPES:
        raise UnsupportedContent(f"{url}: content type {media!r} is not HTML or a feed", url=url)
    ext = _extension(url)
    if ext in _HTML_EXTENSIONS or not ext or ext.startswith((".htm", ".php", ".asp")):
        return "html" if ext else "unknown"
    if ext in _FEED_EXTENSIONS:
        return "feed"
    shown = media or "no content type"
    raise UnsupportedContent(f"{url}: {shown} and the extension {ext!r} is not a web page", url=url)


def sniff_markup(head: bytes, url: str) -> None:
    """Raise UnsupportedContent unless the first bytes look like text markup."""
    sample = head[:1024]
    if b"\x00" in sample and not sample.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise UnsupportedContent(f"{url}: binary content (not HTML)", url=url)
    stripped = sample.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped and not stripped.startswith(b"<"):
        lowered = sample.lower()
        if b"<html" not in lowered and b"<body" not in lowered and b"<!doctype" not in lowered:
            raise UnsupportedContent(f"{url}: the content is not markup (not HTML)", url=url)


class _Inflater:
    """Bounded gzip / deflate decoding: never produces more than one chunk per step."""

    def __init__(self, encoding: str, url: str) -> None:
        names = [e.strip().lower() for e in encoding.split(",") if e.strip()]
        names = [n for n in names if n != "identity"]
        if len(names) > 1 or (names and names[0] not in ("gzip", "x-gzip", "deflate")):
            raise UnsupportedContent(f"{url}: unsupported content encoding {encoding!r}", url=url)
        self.kind = names[0] if names else ""
        self._z: zlib._Decompress | None = None
        if self.kind in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        if not self.kind:
            yield data
            return
        if self._z is None:  # deflate: zlib-wrapped (RFC) or raw (what IIS sends)
            wrapped = len(data) >= 2 and data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0
            self._z = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        while data:
            try:
                out = self._z.decompress(data, _CHUNK)
            except zlib.error:
                return  # corrupt tail: keep what was decoded
            yield out
            data = self._z.unconsumed_tail
            if not out:
                return


async def read_limited(
    chunks: AsyncIterator[bytes],
    *,
    content_encoding: str,
    max_bytes: int,
    url: str,
) -> bytes:
    """Read a raw body stream, inflate it, and enforce ``max_bytes`` on both sizes."""
    inflater = _Inflater(content_encoding, url)
    raw_size = 0
    out: list[bytes] = []
    size = 0
    async for chunk in chunks:
        raw_size += len(chunk)
        if raw_size > max_bytes:
            raise TooLarge(f"{url}: body larger than {max_bytes} bytes", url=url)
        for piece in inflater.feed(chunk):
            size += len(piece)
            if size > max_bytes:
                raise TooLarge(
                    f"{url}: body inflates beyond {max_bytes} bytes (compression bomb?)", url=url
                )
            out.append(piece)
    return b"".join(out)
