"""Where a webhook may point. Anyone with an account can set a webhook URL, and the server
then POSTs to it: without this check a player could make the server call its own Redis,
a cloud metadata endpoint or anything else on the private network (SSRF).

Loopback, private, link-local and other reserved addresses are refused, unless the operator
allows them with MEEPLE_WEBHOOK_ALLOW_PRIVATE=1 (`make run` and the tests do, to deliver to
a receiver on this machine).
"""

from __future__ import annotations

import ipaddress
import os
import socket
from urllib.parse import urlsplit


def private_allowed() -> bool:
    return os.environ.get("MEEPLE_WEBHOOK_ALLOW_PRIVATE", "").lower() in ("1", "true", "yes")


# NAT64 prefixes (RFC 6052 well-known, RFC 8215 local use): the last 32 bits are an IPv4
# address, which a NAT64 gateway will connect to.
_NAT64 = (ipaddress.IPv6Network("64:ff9b::/96"), ipaddress.IPv6Network("64:ff9b:1::/48"))
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")  # deprecated ::a.b.c.d (RFC 4291)


def _not_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone
    candidates: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = [ip]
    if isinstance(ip, ipaddress.IPv6Address):
        candidates += embedded_ipv4(ip)
    return any(not each.is_global or each.is_multicast for each in candidates)


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """Every IPv4 address that this IPv6 address carries and that some router or tunnel
    would reach: IPv4-mapped, IPv4-compatible, 6to4, Teredo (server and client), NAT64."""
    found = [ip.ipv4_mapped, ip.sixtofour, *(ip.teredo or ())]
    last32 = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if any(ip in prefix for prefix in _NAT64):
        found.append(last32)
    if ip in _IPV4_COMPATIBLE and int(ip) > 1:  # not :: nor ::1, which are v6 themselves
        found.append(last32)
    return [each for each in found if each is not None]


def refused_address(url: str, resolve: bool = True) -> str | None:
    """Why `url` may not receive webhooks, or None. Without `resolve`, only what the URL
    itself says is checked (a literal address, `localhost`): for quick checks on input."""
    if not resolve:
        return _refused_by_name(url)
    return checked_address(url)[1]


def checked_address(url: str) -> tuple[str | None, str | None]:
    """(the address to connect to, None) or (None, why not). Deliveries connect to exactly
    this address: resolving the name a second time could give another (DNS rebinding)."""
    reason = _refused_by_name(url)
    if reason is not None:
        return None, reason
    host = (urlsplit(url).hostname or "").rstrip(".")
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except OSError as err:
        return None, f"{host} does not resolve ({err})"
    addresses = [str(info[4][0]) for info in infos]
    bad = sorted({a for a in addresses if _not_public(a)})
    if bad and not private_allowed():
        return None, f"{host} resolves to a non-public address ({', '.join(bad)})"
    return addresses[0], None


def _refused_by_name(url: str) -> str | None:
    if private_allowed():
        return None
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if not host:
        return "the URL has no host"
    if host == "localhost" or host.endswith(".localhost"):
        return f"{host} is this server itself"
    try:
        return f"{host} is not a public address" if _not_public(host) else None
    except ValueError:
        return None  # a name, not an address: see checked_address
