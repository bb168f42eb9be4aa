"""Content fingerprints: an exact hash and a 64-bit simhash for near-duplicates.

``content_hash`` recognises the same article served twice (whitespace, case and full-width
differences ignored); ``simhash`` recognises a reprinted or mirrored article with small edits
(another header, a changed sentence): two simhashes within 3 bits of each other
(``near_duplicate``) are the same text for our purposes (Manku et al., WWW 2007).

Simhash features are shingles: for a string, overlapping 4-grams of "units", where a unit is
one CJK character or one Latin word/number (so Chinese needs no tokenizer); for a token list
(e.g. from ``crawler.text.tokenize``), overlapping 3-grams of tokens; at most 20,000 units
count. Shingle hashes are 64-bit (CRC-32 per unit, combined and mixed with numpy), stable
across processes and machines. The simhash is returned as a signed int64 so it fits a
BIGINT column.
"""

from __future__ import annotations

import hashlib
import operator
import re
import zlib
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from crawler.fold import fold

__all__ = [
    "content_hash",
    "fingerprints",
    "hamming",
    "near_duplicate",
    "normalize_for_hash",
    "simhash",
]

_UNITS = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]|[^\W_]+")
_MASK64 = (1 << 64) - 1
_MAX_UNITS = 20_000
_UTF8 = operator.methodcaller("encode", "utf-8", "surrogatepass")
_CRC_CACHE_LIMIT = 200_000
_TEXT_SHINGLE = 4
_TOKEN_SHINGLE = 3


def normalize_for_hash(text: str) -> str:
    """NFKC (full-width → half-width), lower case, whitespace collapsed and trimmed."""
    # str.split() and the pattern \s+ agree on what is whitespace (str.isspace); the split is
    # three times faster on a page's text
    return " ".join(fold(text).split())


def _hex_digest(folded: str) -> str:
    data = " ".join(folded.split()).encode("utf-8")
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def content_hash(text: str) -> str:
    """Exact fingerprint of the normalised text: 40 hex digits (blake2b-160)."""
    return _hex_digest(fold(text))


def fingerprints(text: str) -> tuple[str, int]:
    """``(content_hash(text), simhash(text))``, normalising the text once for both."""
    folded = fold(text)
    head = folded if len(text) <= _MAX_UNITS * 4 else fold(text[: _MAX_UNITS * 4])
    return _hex_digest(folded), _text_simhash(head)


_PRIME = np.uint64(0x100000001B3)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


class _CrcTable(dict[str, int]):
    """CRC-32 of each unit's UTF-8, remembered: pages repeat the same characters and words."""

    def __missing__(self, unit: str) -> int:
        value = self[unit] = zlib.crc32(_UTF8(unit))
        return value


_CRCS = _CrcTable()


def _shingle_hashes(units: Sequence[str], width: int) -> npt.NDArray[np.uint64]:
    """64-bit hashes of the overlapping ``width``-grams of ``units``, vectorised.

    Each unit gets a CRC-32 (remembered per unit, looked up in C via map); a shingle's hash
    is the polynomial of its units' CRCs, finished with the splitmix64 mixer so every bit is
    well spread.
    """
    if len(_CRCS) > _CRC_CACHE_LIMIT:
        _CRCS.clear()
    ids = np.fromiter(map(_CRCS.__getitem__, units), dtype=np.uint64, count=len(units))
    count = max(1, len(ids) - width + 1)
    h = np.zeros(count, dtype=np.uint64)
    for k in range(min(width, len(ids))):
        h = h * _PRIME + ids[k : k + count]
    h ^= h >> np.uint64(30)
    h *= _MIX1
    h ^= h >> np.uint64(27)
    h *= _MIX2
    h ^= h >> np.uint64(31)
    return h


def simhash(text_or_tokens: str | Iterable[str]) -> int:
    """64-bit simhash of a text or a token sequence, as a signed int64 (0 for no content)."""
    if isinstance(text_or_tokens, str):
        return _text_simhash(fold(text_or_tokens[: _MAX_UNITS * 4]))
    units = [t.lower() for t in text_or_tokens if t and not t.isspace()][:_MAX_UNITS]
    return _units_simhash(units, _TOKEN_SHINGLE)


def _text_simhash(folded: str) -> int:
    units: list[str] = _UNITS.findall(folded)[:_MAX_UNITS]
    return _units_simhash(units, _TEXT_SHINGLE)


def _units_simhash(units: list[str], width: int) -> int:
    if not units:
        return 0
    hashes = _shingle_hashes(units, width)
    bits = np.unpackbits(hashes.astype("<u8").view(np.uint8), bitorder="little")
    ones = bits.reshape(-1, 64).sum(axis=0, dtype=np.int64)
    value = 0
    for bit in np.flatnonzero(ones * 2 > len(hashes)).tolist():
        value |= 1 << bit
    return value - (1 << 64) if value >= 1 << 63 else value


def hamming(a: int, b: int) -> int:
    """Number of differing bits between two 64-bit fingerprints (signed or unsigned)."""
    return ((a ^ b) & _MASK64).bit_count()


def near_duplicate(a: int, b: int, bits: int = 3) -> bool:
    """Whether two simhashes are within ``bits`` differing bits (0 means "no fingerprint")."""
    if a == 0 or b == 0:
        return False
    return hamming(a, b) <= bits
