"""Turning response bytes into text: the charset of a page, decided the way a browser would.

Candidates, in order: a byte-order mark (unambiguous; browsers let it override the header),
the HTTP ``Content-Type`` charset, ``<meta charset>``
or ``<meta http-equiv="Content-Type" content="…; charset=…">`` in the first 4 KB, and
``charset_normalizer`` detection. The first candidate that decodes the whole body without
errors wins; a declared charset with only a few bad bytes (≤ 0.5 %) is kept with
replacement characters; otherwise detection decides, so undecodable bytes never stop a
crawl. GB2312 and GBK are read as their superset GB18030 (real Chinese pages labelled GB2312
use GBK characters), and Latin-1 / ASCII labels as windows-1252, as browsers do.

A ``<meta>`` label is a weaker signal than a header: saved or re-encoded pages often keep a
stale ``charset=gb2312`` while the bytes are UTF-8. When the only declaration is a ``<meta>``
non-UTF-8 label and the body is valid, non-ASCII UTF-8, UTF-8 is used. A body that declares
nothing and is valid UTF-8 is read as UTF-8 without detection (text in a legacy encoding almost
never is valid UTF-8, and detection reads 64 KB to say so: 5 ms for a large page).
"""

from __future__ import annotations

import codecs
import re

import charset_normalizer

__all__ = ["decode_body", "decode_with_source", "normalize_charset", "sniff_meta_charset"]

_ALIASES = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "gb_2312-80": "gb18030",
    "cp936": "gb18030",
    "chinese": "gb18030",
    "csgb2312": "gb18030",
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "ascii": "cp1252",
    "us-ascii": "cp1252",
    "big5": "big5hkscs",
    "x-sjis": "shift_jis",
    "utf8": "utf-8",
}
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?\s*([\w.:\-]+)", re.I)
_META_CHARSET = re.compile(rb"<meta[^>]*?charset\s*=\s*[\"']?\s*([\w.:\-]+)", re.I)
_XML_ENCODING = re.compile(rb"<\?xml[^>]*encoding\s*=\s*[\"']([\w.:\-]+)", re.I)
_DETECT_BYTES = 65_536


def normalize_charset(label: str | None) -> str | None:
    """Python codec name for a charset label (GBK/GB2312 → gb18030), or None if unknown."""
    if not label:
        return None
    label = label.strip().strip("\"'").lower()
    label = _ALIASES.get(label, label)
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    return _ALIASES.get(name, name)


def sniff_meta_charset(head: bytes) -> str | None:
    """Charset declared by ``<meta>`` (or an XML declaration) in the first bytes of a page."""
    chunk = head[:4096]
    match = _META_CHARSET.search(chunk) or _XML_ENCODING.search(chunk)
    return normalize_charset(match.group(1).decode("ascii", "replace")) if match else None


def _bom(body: bytes) -> str | None:
    for mark, name in _BOMS:
        if body.startswith(mark):
            return name
    return None


def _detect(body: bytes) -> str | None:
    best = charset_normalizer.from_bytes(body[:_DETECT_BYTES]).best()
    return normalize_charset(best.encoding) if best is not None else None


def _strict(body: bytes, encoding: str) -> str | None:
    try:
        return body.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None


def decode_body(body: bytes, content_type: str | None) -> tuple[str, str]:
    """Decode a response body; returns ``(text, encoding)`` and never raises on bad bytes."""
    text, encoding, _ = decode_with_source(body, content_type)
    return text, encoding


def decode_with_source(body: bytes, content_type: str | None) -> tuple[str, str, bytes | None]:
    """``decode_body``, plus the body's bytes (after any byte-order mark) when the text is
    their exact UTF-8 decoding (else None): an HTML parser reads those without the text being
    encoded again."""
    header = None
    if content_type:
        match = _HEADER_CHARSET.search(content_type)
        header = normalize_charset(match.group(1)) if match else None
    bom = _bom(body)
    if bom is not None:
        body = body[len(next(m for m, n in _BOMS if n == bom)) :]
    meta = sniff_meta_charset(body) if header is None and bom is None else None
    declared = [c for c in (bom, header, meta) if c]
    candidates = list(declared)
    if (meta is not None and meta != "utf-8") or not declared:
        # a stale <meta> label on a UTF-8 body, or no label at all (see docstring)
        candidates.insert(0, "utf-8")
    for encoding in dict.fromkeys(candidates):
        text = _strict(body, encoding)
        if text is not None:
            return text, encoding, body if encoding == "utf-8" else None
    if declared:  # a few bad bytes in a declared charset: keep it, mark the damage
        text = body.decode(declared[0], errors="replace")
        if text.count("\ufffd") <= max(8, len(text) // 200):
            return text, declared[0], None
    detected = _detect(body) if body else None
    if detected is not None:
        text = _strict(body, detected)
        if text is not None:
            return text, detected, body if detected == "utf-8" else None
    encoding = declared[0] if declared else detected or "utf-8"
    return body.decode(encoding, errors="replace"), encoding, None
