"""URL canonicalization, scope rules and crawler-trap guards.

``canonicalize`` turns every spelling of a URL into one string so that the frontier, the
"seen" set and the database agree on identity:

- scheme and host lower-cased, the host IDNA-encoded (``例子.中国`` → ``xn--fsqu00a.xn--fiqs8s``),
  a trailing dot dropped, the default port (80 / 443) dropped, user:password removed;
- dot segments (``/a/./b/../c``) removed, an empty path becomes ``/``;
- percent-encoding normalised: unreserved characters decoded, other escapes upper-cased,
  unsafe and non-ASCII characters encoded as UTF-8;
- the fragment removed; query parameters sorted (stable, order of equal keys kept);
- tracking and session parameters dropped: ``utm_*``, ``fbclid``, ``gclid``, ``spm``, ``from``,
  ``jsessionid`` / ``phpsessid`` / ``sid`` and ``;jsessionid=`` path parameters.

The functions are pure and never touch the network (``registered_domain`` uses the public
suffix snapshot bundled with tldextract).
"""

from __future__ import annotations

import datetime as dt
import functools
import ipaddress
import operator
import posixpath
import re
from collections.abc import Iterable
from typing import Any, Literal
from urllib.parse import quote, urljoin, urlsplit

__all__ = [
    "MAX_PATH_DEPTH",
    "MAX_QUERY_PARAMS",
    "MAX_URL_LENGTH",
    "TRACKING_PARAMS",
    "Scope",
    "canonicalize",
    "directories",
    "host_of",
    "host_site",
    "in_scope",
    "registered_domain",
    "trap_reason",
]

Scope = Literal["host", "domain", "any"]

MAX_URL_LENGTH = 2048
MAX_PATH_DEPTH = 16
MAX_QUERY_PARAMS = 10
MAX_SEGMENT_REPEATS = 3

TRACKING_PARAMS = frozenset(
    {
        "fbclid",
        "gclid",
        "dclid",
        "msclkid",
        "yclid",
        "igshid",
        "mc_cid",
        "mc_eid",
        "_hsenc",
        "_hsmi",
        "spm",
        "from",
        "jsessionid",
        "phpsessid",
        "sid",
        "sessionid",
        "aspsessionid",
    }
)
"""Query parameter names (lower-case) dropped by ``canonicalize``; ``utm_*`` too."""

_DEFAULT_PORTS = {"http": 80, "https": 443}
_PCT = re.compile(r"%([0-9A-Fa-f]{2})")
_PCT_TO_CHANGE = re.compile(
    r"%(?:[0-9A-Fa-f][a-f]|[a-f][0-9A-F]|2[DE]|3[0-9]|[46][1-9A-F]|[57][0-9A]|5F|7E)"
)
"""An escape ``_unescape_unreserved`` changes: lower-case hex digits, or an unreserved
character (``-``, ``.``, digits, letters, ``_``, ``~``)."""
_LONE_PCT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PATH_SAFE = "/:@!$&'()*+,;=-._~%"
_QUERY_SAFE = "/:@!$'()*+,;=?-._~%"
_SESSION_PATH_PARAM = re.compile(r";(?:jsessionid|phpsessid|sid|sessionid)=[^/?#;]*", re.I)
# Possessive repeats (*+, ++) in the patterns below: a string that does not match fails at
# once instead of giving characters back one by one to try the end again.
_SIMPLE = re.compile(r"[A-Za-z0-9\-._~/]*+\Z")
_SAFE_QUERY = re.compile(r"[A-Za-z0-9\-._~=&,/:@!$'()*+;?%]*+\Z")
"""A query of characters ``_norm_pct`` keeps in keys and values (``&`` separates them)."""
_KEY_SAFE = _QUERY_SAFE.replace("=", "")
_HOST_OK = re.compile(r"[a-z0-9\-._]++\Z")


def _unescape_unreserved(match: re.Match[str]) -> str:
    char = chr(int(match.group(1), 16))
    return char if char in _UNRESERVED else "%" + match.group(1).upper()


def _norm_pct(part: str, safe: str) -> str:
    """Normalise percent-encoding of one URL component (never decodes reserved characters)."""
    if _SIMPLE.match(part):
        return part
    if "%" in part:
        part = _LONE_PCT.sub("%25", part)
        if _PCT_TO_CHANGE.search(part):  # most escapes are upper-case and stay as they are
            part = _PCT.sub(_unescape_unreserved, part)
    return quote(part, safe=safe)


def _norm_host(host: str) -> str | None:
    host = host.strip().rstrip(".").lower()
    if not host:
        return None
    if ":" in host:  # IPv6 literal (urlsplit's hostname drops the brackets)
        try:
            return f"[{ipaddress.IPv6Address(host.strip('[]')).compressed}]"
        except ValueError:
            return None
    if _HOST_OK.match(host):
        return host
    try:
        encoded = host.encode("idna").decode("ascii")
    except UnicodeError:
        return None
    return encoded.lower() if _HOST_OK.match(encoded.lower()) else None


def _norm_path(path: str) -> str:
    if ";" in path:
        path = _SESSION_PATH_PARAM.sub("", path)
    if not path:
        return "/"
    if "/." in path or path.startswith("."):
        trailing = path.endswith(("/", "/.", "/.."))
        path = posixpath.normpath("/" + path.lstrip("/"))
        if path.startswith("//"):
            path = "/" + path.lstrip("/")
        if trailing and path != "/":
            path += "/"
    elif not path.startswith("/"):
        path = "/" + path
    return _norm_pct(path, _PATH_SAFE)


_KEY = operator.itemgetter(0)


def _as_is(query: str) -> bool:
    """Whether ``_norm_pct`` leaves every key and value of a query as it is: characters it
    keeps, and escapes already in normal form."""
    if _SAFE_QUERY.match(query) is None:
        return False
    return "%" not in query or not (_LONE_PCT.search(query) or _PCT_TO_CHANGE.search(query))


def _norm_query(query: str) -> str:
    if not query:
        return ""
    plain = _as_is(query)  # nothing to re-encode
    pairs: list[tuple[str, str]] = []
    for piece in query.split("&"):
        if not piece:
            continue
        key, sep, value = piece.partition("=")
        low = key.lower()
        if low in TRACKING_PARAMS or low.startswith("utm_"):  # tracking
            continue
        if plain:
            pairs.append((key, sep + value))
            continue
        key = _norm_pct(key, _KEY_SAFE)
        pairs.append((key, sep + _norm_pct(value, _QUERY_SAFE) if sep else ""))
    pairs.sort(key=_KEY)
    return "&".join([k + v for k, v in pairs])


_FAST_SPLIT = re.compile(
    r"(https?)://([A-Za-z0-9.\-]+)(?::([0-9]{1,5}))?(/[^?#]*)?(?:\?([^#]*))?(?:#.*)?\Z",
    re.I | re.S,
)


def _split(url: str) -> tuple[str, str | None, int | None, str, str] | None:
    """(scheme, host, port, path, query) — a regex for plain URLs, ``urlsplit`` otherwise."""
    fast = _FAST_SPLIT.match(url)
    if fast is not None:
        scheme, host, port, path, query = fast.groups()
        number = int(port) if port else None
        if number is not None and number > 65535:
            return None
        return scheme.lower(), _norm_host(host), number, path or "", query or ""
    try:
        parts = urlsplit(url)
        return (
            parts.scheme.lower(),
            _norm_host(parts.hostname or ""),
            parts.port,
            parts.path,
            parts.query,
        )
    except ValueError:
        return None


_PLAIN_URL = re.compile(
    r"(https?)://([a-z0-9\-_]++(?:\.[a-z0-9\-_]++)*+)(/[A-Za-z0-9\-._~/]*+)?+"
    r"(?:\?([A-Za-z0-9\-._~=&,]*+))?+(?:#.*)?\Z",
    re.S,
)
"""A URL already in canonical form but for its query's order and tracking parameters and its
fragment: lower-case scheme and host, no port, nothing to re-encode (dot segments, checked
apart, still need the general path). Possessive repeats: no part can give characters back to
the next (each ends where a character it does not take begins the next), so a URL that is not
plain fails at once instead of after trying every shorter path and query."""


@functools.lru_cache(maxsize=65536)
def _canonical_absolute(url: str) -> str | None:
    plain = _PLAIN_URL.match(url)
    if plain is not None and "/." not in url:
        if plain.end(3) == len(url):  # a path and nothing after it: the URL as it is
            return url
        scheme, host, path, raw_query = plain.groups()
        query = _norm_query(raw_query) if raw_query else ""
        base = f"{scheme}://{host}{path or '/'}"
        return f"{base}?{query}" if query else base
    return _canonical_general(url)


def _canonical_general(url: str) -> str | None:
    split = _split(url)
    if split is None:
        return None
    scheme, host, port, raw_path, raw_query = split
    if scheme not in _DEFAULT_PORTS or host is None:
        return None
    netloc = host
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        netloc = f"{host}:{port}"
    path = _norm_path(raw_path)
    query = _norm_query(raw_query)
    return f"{scheme}://{netloc}{path}?{query}" if query else f"{scheme}://{netloc}{path}"


@functools.lru_cache(maxsize=256)
def _origin(base: str) -> tuple[str, str]:
    """(scheme, scheme://netloc) of a base URL."""
    parts = urlsplit(base)
    return parts.scheme, f"{parts.scheme}://{parts.netloc}"


@functools.lru_cache(maxsize=256)
def _directory(base: str) -> str | None:
    """scheme://netloc/path/ of a base URL: its path up to the last slash; None when
    ``urljoin`` would also rewrite the base's path (empty or dot segments, parameters)."""
    if not _HTTP_BASE.match(base):
        return None
    parts = urlsplit(base)
    path = parts.path if parts.path.startswith("/") else "/" + parts.path
    directory = path[: path.rfind("/") + 1]
    if "//" in directory or "/." in directory:
        return None
    return f"{parts.scheme}://{parts.netloc}{directory}"


_PLAIN_RELATIVE = re.compile(r"[A-Za-z0-9\-_~][A-Za-z0-9\-._~/]*+\Z")
"""A path relative to the base's directory with nothing ``urljoin`` would treat apart (no
scheme, query, fragment or backslash; dot and empty segments are checked apart)."""


_OTHER_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+\-.]*:")
"""A reference with a scheme of its own, as ``urlsplit`` reads one (``javascript:``,
``mailto:``, ``tel:`` …): ``urljoin`` returns it as it is, and only http(s) is crawlable."""


def _join(base: str, ref: str) -> str | None:
    """``urljoin`` with fast paths for the common absolute, root-relative and plain relative
    references; None for a reference with another scheme than http(s)."""
    head = ref[:8].lower()
    if head.startswith(("http://", "https://")):
        return ref
    scheme = _OTHER_SCHEME.match(ref)
    if scheme is not None and scheme.group().lower() not in ("http:", "https:"):
        return None
    try:
        if ref.startswith("//"):
            return f"{_origin(base)[0]}:{ref}"
        if ref.startswith("/") and ":" not in head and "\\" not in ref:
            return _origin(base)[1] + ref
        if _PLAIN_RELATIVE.match(ref) and "/." not in ref and "//" not in ref:
            directory = _directory(base)
            if directory is not None:
                return directory + ref
        return urljoin(base, ref)
    except ValueError:
        return None


_HTTP_BASE = re.compile(r"https?://[^/?#\\]*(?:/[^?#;\\]*)?(?:[?#].*)?\Z", re.S)
"""A base ``urljoin`` reads like ``_directory`` does: http(s), no path parameters."""


def canonicalize(url: str, base: str | None = None) -> str | None:
    """The canonical absolute form of ``url`` (resolved against ``base``), or None.

    None means "not a crawlable http(s) URL": ``javascript:``, ``mailto:``, an empty or
    fragment-only reference without a base, an invalid host or port.
    """
    if not url:
        if base is None:
            return None
        url = base
    url = url.strip()
    if "\n" in url or "\t" in url or "\r" in url:
        url = url.replace("\n", "").replace("\t", "").replace("\r", "")
    if base is not None:
        joined = _join(base, url)
        if joined is None:
            return None
        url = joined
    if len(url) > 4 * MAX_URL_LENGTH:
        return None
    return _canonical_absolute(url)


@functools.lru_cache(maxsize=16384)
def host_of(url: str) -> str:
    """The lower-case host name (no port, no brackets for IPv6) of a URL; "" if none.
    Remembered: the frontier, politeness and link ranking ask it of the same URLs."""
    try:
        return (urlsplit(url.strip()).hostname or "").rstrip(".").lower()
    except ValueError:
        return ""


@functools.cache
def _extractor() -> Any:
    """tldextract's public suffix matcher, built on first use: importing tldextract imports
    ``requests`` too (a tenth of a second), which a fetch process that never asks for a
    registered domain (no cookies, no domain scope) does not need."""
    import tldextract

    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


@functools.lru_cache(maxsize=8192)
def _split_host(host: str) -> tuple[str, str, str]:
    """(host cleaned up, domain label, public suffix) as the public suffix list reads the host;
    the last two may be "" (an IP address, ``localhost``, a suffix the list does not know)."""
    host = host.strip().rstrip(".").lower()
    if host.startswith("["):
        return host, "", ""
    parts = _extractor()(host)
    return host, str(parts.domain), str(parts.suffix)


def registered_domain(host: str) -> str:
    """The registrable domain of a host (``news.sina.com.cn`` → ``sina.com.cn``).

    Uses the public suffix list snapshot bundled with tldextract; never fetches it. IP
    addresses, ``localhost`` and other single-label hosts are returned unchanged.
    """
    host, domain, suffix = _split_host(host)
    return f"{domain}.{suffix}" if suffix and domain else host


def host_site(host: str) -> str:
    """The site a host belongs to: its registrable domain (``news.sina.com.cn`` →
    ``sina.com.cn``); where the public suffix list does not know the suffix (an intranet's
    ``.internal`` or ``.corp``, ``.test``), its last two labels; an IP address or a single
    label, the host itself."""
    host, domain, suffix = _split_host(host)
    if suffix:  # the public list knows it: as ``registered_domain`` reads it
        return f"{domain}.{suffix}" if domain else host
    labels = host.split(".")
    if ":" in host or labels[-1].isdigit() or len(labels) < 2:
        return host
    return ".".join(labels[-2:])


_DIRECTORY = re.compile(r"^[a-z][a-z0-9_-]*$")


def directories(url: str) -> tuple[str, list[str]]:
    """``(host, directories)`` of a URL: the host without ``www.``, and the path segments
    that name a directory (letters first, no dot, not the last segment) — ``sport`` and
    ``football`` of ``/sport/football/2019/story-1.html``; dates, ids and the page's own name
    are left out."""
    parts = urlsplit(url)
    host = (parts.hostname or "").removeprefix("www.")
    segments = [s for s in parts.path.lower().split("/") if s]
    return host, [s for s in segments[:-1] if _DIRECTORY.match(s)]


def public_suffix(host: str) -> str:
    """The host's public suffix (``com.cn`` of ``news.sina.com.cn``), "" when the public suffix
    list does not know it (``lab.test``, an IP address, ``localhost``)."""
    return _split_host(host)[2]


def _strip_www(host: str) -> str:
    return host[4:] if host.startswith("www.") else host


def in_scope(url: str, seed: str, scope: str, *, allow: Iterable[str] = ()) -> bool:
    """Whether ``url`` may be crawled from ``seed`` under ``scope``.

    ``"host"``: the same host as the seed (``www.`` ignored, so ``example.com`` and
    ``www.example.com`` are one site); ``"domain"``: the same site (``host_site``: the
    registered domain, any subdomain; on an intranet's or the lab's own suffix, the last two
    labels); ``"any"``: any http(s) URL. ``allow`` lists extra hosts (or registered
    domains) that are always in scope (the allow-list scope).
    """
    host = host_of(url)
    if not host or urlsplit(url).scheme.lower() not in _DEFAULT_PORTS:
        return False
    extra = {h.strip().lower() for h in allow if h.strip()}
    if extra and (host in extra or registered_domain(host) in extra):
        return True
    if scope == "any":
        return True
    seed_host = host_of(seed)
    if scope == "host":
        return _strip_www(host) == _strip_www(seed_host)
    if scope == "domain":
        return host_site(host) == host_site(seed_host)
    raise ValueError(f"unknown scope {scope!r}; expected 'host', 'domain' or 'any'")


_CALENDAR_WORD = re.compile(r"calendar|kalender|agenda|(?<![a-z])cal(?![a-z])|日历|日程", re.I)
_YEAR = re.compile(r"(?<!\d)(1[0-9]{3}|2[0-9]{3})(?!\d)")
_DATE_LIKE = re.compile(r"(?<![\w.])([1-3]\d{3})[-/_.](0?[1-9]|1[0-2])(?!\d)")


def _calendar_reason(path: str, query: str) -> str | None:
    text = f"{path}?{query}"
    if _YEAR.search(text) and _CALENDAR_WORD.search(text):
        return "calendar-like URL (a date in a calendar page: an infinite link space)"
    this_year = dt.date.today().year
    years = [int(m.group(1)) for m in _DATE_LIKE.finditer(text)]
    if any(y < 1990 or y > this_year + 2 for y in years):
        return "date far in the past or future (calendar-like infinite pattern)"
    return None


def trap_reason(url: str) -> str | None:
    """Why ``url`` looks like a crawler trap, or None when it looks like a normal page.

    Checks: length over 2048, path depth over 16, one path segment repeated 3 or more
    times (``/a/b/a/b/a/``), more than 10 query parameters, and calendar-like infinite
    patterns (dated calendar pages, years far in the past or future).
    """
    if len(url) > MAX_URL_LENGTH:
        return f"URL longer than {MAX_URL_LENGTH} characters"
    try:
        parts = urlsplit(url)
    except ValueError:
        return "unparseable URL"
    segments = [s for s in parts.path.split("/") if s]
    if len(segments) > MAX_PATH_DEPTH:
        return f"path deeper than {MAX_PATH_DEPTH} segments"
    counts: dict[str, int] = {}
    for seg in segments:
        counts[seg] = counts.get(seg, 0) + 1
        if counts[seg] >= MAX_SEGMENT_REPEATS:
            return f"path segment {seg!r} repeated {MAX_SEGMENT_REPEATS} or more times"
    if parts.query and parts.query.count("&") + 1 > MAX_QUERY_PARAMS:
        params = [p for p in parts.query.split("&") if p]
        if len(params) > MAX_QUERY_PARAMS:
            return f"more than {MAX_QUERY_PARAMS} query parameters"
    return _calendar_reason(parts.path, parts.query)
