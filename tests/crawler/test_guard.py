"""The URL guard refuses every spelling of a non-public address, unless allowlisted."""

from __future__ import annotations

import pytest

from crawler.errors import BlockedURL, ConfigError, NetworkError
from crawler.guard import UrlGuard, ensure_public_url, parse_ip_literal

REFUSED = [
    "http://127.0.0.1/",
    "http://127.0.0.1:8080/admin",
    "http://[::1]/",
    "http://10.0.0.1/",
    "http://10.255.1.2/",
    "http://172.16.0.1/",
    "http://172.31.255.254/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://0.0.0.0/",
    "http://[::]/",
    "http://2130706433/",  # decimal 127.0.0.1
    "http://0x7f000001/",  # hex
    "http://0177.0.0.1/",  # octal
    "http://127.1/",  # short form
    "http://0x7f.1/",
    "http://017700000001/",
    "http://100.64.0.1/",  # CGNAT
    "http://224.0.0.1/",  # multicast
    "http://[::ffff:127.0.0.1]/",  # IPv4-mapped IPv6
    "http://[::ffff:169.254.169.254]/",
    "http://[fe80::1]/",
    "http://[fc00::1]/",
    "http://[2002:a00:1::]/",  # 6to4 of 10.0.0.1
    "http://localhost/",
    "http://LOCALHOST./",
    "http://api.localhost/",
]


@pytest.mark.parametrize("url", REFUSED)
async def test_non_public_addresses_are_refused(url: str):
    with pytest.raises(BlockedURL, match="refused"):
        await UrlGuard().check(url)


@pytest.mark.parametrize(
    "url", ["ftp://example.com/", "file:///etc/passwd", "gopher://x/", "http:///x"]
)
async def test_only_http_and_https_with_a_host(url: str):
    with pytest.raises(BlockedURL):
        await UrlGuard().check(url)


@pytest.mark.parametrize(
    ("spelling", "address"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("10.1", "10.0.0.1"),
        ("[::1]", "::1"),
        ("example.com", None),
        ("1e100.net", None),
    ],
)
def test_ip_literals_in_every_notation(spelling: str, address: str | None):
    parsed = parse_ip_literal(spelling)
    assert (str(parsed) if parsed else None) == address


@pytest.mark.parametrize(
    "host", ["intranet.example", "metadata.example", "loop.example", "v6loop.example"]
)
async def test_hostnames_resolving_to_private_addresses_are_refused(
    fake_dns: dict[str, str], host: str
):
    with pytest.raises(BlockedURL, match=host):
        await UrlGuard().check(f"http://{host}/page")


async def test_public_hostname_passes_and_unknown_is_a_network_error(fake_dns: dict[str, str]):
    await UrlGuard().check("https://public.example/news")
    with pytest.raises(NetworkError, match="resolve"):
        await UrlGuard().check("https://nowhere.example/")


async def test_allowlist_of_hosts_and_cidrs(fake_dns: dict[str, str]):
    guard = UrlGuard(["intranet.example", "127.0.0.0/8", ".corp.example"])
    await guard.check("http://intranet.example/")
    await guard.check("http://127.0.0.1:5000/")
    await guard.check("http://2130706433/")  # same address, another spelling
    await guard.check("http://wiki.corp.example/")  # suffix entry: no resolution needed
    await guard.check("http://loop.example/")  # resolves into the allowed CIDR
    with pytest.raises(BlockedURL):
        await guard.check("http://metadata.example/")
    with pytest.raises(BlockedURL):
        await guard.check("http://169.254.169.254/")
    with pytest.raises(BlockedURL):
        await guard.check("http://[::1]/")


async def test_allow_private_switches_address_checks_off_but_not_the_scheme():
    guard = UrlGuard(allow_private=True)
    await guard.check("http://127.0.0.1/")
    await guard.check("http://169.254.169.254/")
    with pytest.raises(BlockedURL):
        await guard.check("file:///etc/passwd")


async def test_proxy_mode_checks_literals_without_resolving(fake_dns: dict[str, str]):
    guard = UrlGuard(resolve=False)
    await guard.check("http://intranet.example/")  # the proxy resolves it, not us
    await guard.check("http://no-such-name.example/")
    with pytest.raises(BlockedURL):
        await guard.check("http://10.0.0.5/")
    with pytest.raises(BlockedURL):
        await guard.check("http://localhost/")


def test_check_host_ip_for_a_connected_peer():
    guard = UrlGuard(["10.1.0.0/16"])
    guard.check_host_ip("news.example", "93.184.216.34")
    guard.check_host_ip("intranet.example", "10.1.2.3")
    with pytest.raises(BlockedURL, match="private"):
        guard.check_host_ip("news.example", "10.2.0.1")


async def test_ensure_public_url_convenience():
    await ensure_public_url("http://127.0.0.1/", allowlist=["127.0.0.1"])
    with pytest.raises(BlockedURL):
        await ensure_public_url("http://[::ffff:10.0.0.1]/")


def test_bad_allowlist_entry_is_a_config_error():
    with pytest.raises(ConfigError):
        UrlGuard(["10.0.0.0/99"])
