"""The URL guard: refuse URLs that would make the crawler reach a non-public address (SSRF).

Every user-supplied URL (a concern's seed, every redirect hop, a webhook target) goes through
``UrlGuard.check`` before a connection is opened. A URL is refused when

- its scheme is not ``http`` or ``https``, or it has no host;
- its host is an IP literal in any notation — dotted, decimal ``2130706433``, hex
  ``0x7f000001``, octal ``0177.0.0.1``, short ``127.1`` (``socket.inet_aton`` semantics),
  IPv6, IPv4-mapped IPv6 — that is not a public unicast address;
- its host is ``localhost`` or ends in ``.localhost``;
- its host name resolves (``loop.getaddrinfo``) to any non-public address.

Non-public means loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local
(169.254/16 — cloud metadata — and fe80::/10), multicast, reserved, unspecified (0.0.0.0, ::),
CGNAT 100.64/10, and any IPv6 address embedding an IPv4 address (IPv4-mapped, 6to4, Teredo,
NAT64) whose IPv4 part is not public.

The allowlist names hosts (``intranet.example``, or ``.example`` for every subdomain) and
IP addresses / CIDRs (``10.1.2.0/24``) that may be reached anyway; ``allow_private=True``
switches the address checks off entirely (for tests only).

DNS rebinding: the name is resolved here, before connecting. A client that resolves it again
when it connects leaves a window: a hostile DNS server answering a public address to us and a
private one a moment later (TTL 0). ``checked_addresses`` returns the checked addresses so
the caller can connect to one of them. ``crawler.pinning.GuardedBackend`` opens every
connection of an httpx client that way, http and https alike: ``pinned_transport`` for
webhooks and seed probes, and the ``Fetcher``'s own client, which hands it the addresses its
own check of the URL returned (``crawler.pinning.connect_to``). What is left: a client
injected into the Fetcher and callers using only ``check`` resolve again; ``check_host_ip``
lets a transport that knows the connected peer address re-check it.

With an HTTP proxy (``resolve=False``) target hosts need no local DNS: the guard then checks
only the scheme, IP-literal hosts, ``localhost`` names and the allowlist; the proxy resolves
names, so the proxy itself must refuse private destinations.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
import socket
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from crawler.errors import BlockedURL, ConfigError, NetworkError

__all__ = ["UrlGuard", "ensure_public_url", "parse_ip_literal"]

logger = logging.getLogger(__name__)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NUMERIC_HOST = re.compile(r"[0-9a-fA-FxX.]+\Z")


def parse_ip_literal(host: str) -> IPAddress | None:
    """The IP address a host string denotes, in any notation the C library accepts, or None.

    ``2130706433``, ``0x7f000001``, ``0177.0.0.1`` and ``127.1`` all denote 127.0.0.1.
    """
    host = host.strip().strip("[]").rstrip(".")
    if not host:
        return None
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        pass
    if _NUMERIC_HOST.match(host) and any(c.isdigit() for c in host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def non_public_reason(ip: IPAddress) -> str | None:
    """Why ``ip`` is not a public unicast address, or None when it is."""
    if isinstance(ip, ipaddress.IPv6Address):
        inner = _embedded_ipv4(ip)
        if ip.ipv4_mapped is not None:
            return f"IPv4-mapped IPv6 address (of {inner})"
        if inner is not None:
            why = non_public_reason(inner)
            if why:
                return f"IPv6 address embedding {inner}: {why}"
    checks = (
        (ip.is_unspecified, "unspecified address"),
        (ip.is_loopback, "loopback address"),
        (ip.is_link_local, "link-local address (cloud metadata lives here)"),
        (ip.is_multicast, "multicast address"),
        (isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT, "carrier-grade NAT address"),
        (ip.is_private, "private network address"),
        (ip.is_reserved, "reserved address"),
        (not ip.is_global, "non-global address"),
    )
    for hit, reason in checks:
        if hit:
            return reason
    return None


class UrlGuard:
    """Checks URLs and resolved addresses against the SSRF policy (see the module docstring)."""

    def __init__(
        self,
        allowlist: Iterable[str] = (),
        allow_private: bool = False,
        *,
        resolve: bool = True,
    ) -> None:
        self.allow_private = allow_private
        self.resolve = resolve
        self._hosts: set[str] = set()
        self._suffixes: list[str] = []
        self._networks: list[IPNetwork] = []
        for raw in allowlist:
            entry = raw.strip().lower()
            if not entry:
                continue
            if "/" in entry or parse_ip_literal(entry) is not None:
                ip = parse_ip_literal(entry)
                try:
                    net = ipaddress.ip_network(str(ip) if ip else entry.strip("[]"), strict=False)
                except ValueError as exc:
                    raise ConfigError(f"invalid allowlist entry {raw!r}: {exc}") from exc
                self._networks.append(net)
            elif entry.startswith(("*.", ".")):
                self._suffixes.append("." + entry.lstrip("*."))
            else:
                self._hosts.add(entry.rstrip("."))

    def host_allowed(self, host: str) -> bool:
        """Whether the host name itself is on the allowlist."""
        host = host.lower().rstrip(".")
        return host in self._hosts or any(host.endswith(s) for s in self._suffixes)

    def ip_allowed(self, ip: IPAddress) -> bool:
        """Whether the address is inside an allowlisted network."""
        return any(ip.version == net.version and ip in net for net in self._networks)

    def check_host_ip(self, host: str, ip: str | IPAddress, *, url: str = "") -> None:
        """Raise BlockedURL unless ``host`` may be reached at address ``ip``."""
        if self.allow_private or self.host_allowed(host):
            return
        addr = parse_ip_literal(ip) if isinstance(ip, str) else ip
        if addr is None:
            raise BlockedURL(f"refused {url or host}: {ip!r} is not an IP address", url=url)
        if self.ip_allowed(addr):
            return
        why = non_public_reason(addr)
        if why:
            shown = host if host == str(addr) else f"{host} ({addr})"
            raise BlockedURL(
                f"refused {url or host}: {shown} is not a public address ({why}); "
                "add it to the URL allowlist to crawl it on purpose",
                url=url,
            )

    def _split(self, url: str) -> tuple[str, int]:
        try:
            parts = urlsplit(url.strip())
            scheme = parts.scheme.lower()
            host = (parts.hostname or "").rstrip(".").lower()
            port = parts.port or (443 if scheme == "https" else 80)
        except ValueError as exc:
            raise BlockedURL(f"refused {url!r}: invalid URL ({exc})", url=url) from exc
        if scheme not in ("http", "https"):
            raise BlockedURL(f"refused {url!r}: only http and https URLs are crawled", url=url)
        if not host:
            raise BlockedURL(f"refused {url!r}: the URL has no host", url=url)
        return host, port

    async def check(self, url: str) -> None:
        """Raise BlockedURL if ``url`` may not be fetched (resolving its host name)."""
        await self.checked_addresses(url)

    async def checked_addresses(self, url: str) -> list[str]:
        """Like ``check``; returns the addresses the host name resolved to and passed.

        Empty when nothing was resolved (an IP literal, an allowlisted name, proxy mode,
        ``allow_private``). A client that connects to one of these addresses instead of
        resolving the name again leaves no DNS-rebinding window (see ``Fetcher``).
        """
        host, port = self._split(url)
        if not self._to_resolve(host, url):
            return []
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            raise NetworkError(f"cannot resolve {host}: {exc}", url=url) from exc
        return self._passed(host, url, infos)

    def checked_addresses_blocking(self, host: str, port: int) -> list[str]:
        """``checked_addresses`` for a host and port, resolving in this thread (for a client
        that is not async: ``crawler.pinning.guarded_sockets``)."""
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{port}/"
        host = host.rstrip(".").lower()
        if not self._to_resolve(host, url):
            return []
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            raise NetworkError(f"cannot resolve {host}: {exc}", url=url) from exc
        return self._passed(host, url, infos)

    def _to_resolve(self, host: str, url: str) -> bool:
        """Whether ``host`` is to be resolved and its addresses checked; False when it is
        settled without (allowlisted, an IP literal that passed, proxy mode). Raises
        BlockedURL for a refused literal or a loopback name."""
        if self.host_allowed(host) or self.allow_private:
            return False
        literal = parse_ip_literal(host)
        if literal is not None:
            self.check_host_ip(host, literal, url=url)
            return False
        if host == "localhost" or host.endswith(".localhost"):
            raise BlockedURL(f"refused {url}: {host} is a loopback name", url=url)
        return self.resolve

    def _passed(self, host: str, url: str, infos: list[Any]) -> list[str]:
        """The resolved addresses, each checked (BlockedURL for the first refused)."""
        if not infos:
            raise NetworkError(f"cannot resolve {host}: no addresses", url=url)
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        for address in addresses:
            self.check_host_ip(host, address, url=url)
        logger.debug("guard: %s resolves to %s", host, addresses)
        return addresses


async def ensure_public_url(url: str, allowlist: Iterable[str] = ()) -> None:
    """Raise BlockedURL unless ``url`` is http(s) and its host is public (or allowlisted)."""
    await UrlGuard(allowlist).check(url)
