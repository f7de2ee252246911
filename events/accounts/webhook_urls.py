"""Where a webhook may point. Anyone with an account can set a webhook URL, and the server
then POSTs to it: without this check a player could make the server call its own Redis,
a cloud metadata endpoint or anything else on the private network (SSRF).

Loopback, private, link-local and other reserved addresses are refused, unless the operator
allows them with MEEPLE_WEBHOOK_ALLOW_PRIVATE=1 (`make run` and the tests do, to deliver to
a receiver on this machine). What is checked when:

- when the URL is set (`malformed`, then `refused_when_set`): the URL's own form (no
  user name or password, a valid host name and port), a literal address, `localhost`, a
  host that only looks like a number (`2130706433`, `0x7f000001`, `127.1`, `0177.0.0.1`:
  resolvers read these as addresses), and what the name resolves to now (one lookup, at
  most RESOLVE_TIMEOUT_SECONDS; no answer in time is a refusal too);
- at each delivery (`checked_address`): where it points, again, and the delivery connects
  to the very address it checked (a name may resolve elsewhere later).

A refusal never names the addresses a name resolves to: shown to the player, that would
answer questions about the server's private DNS (the detail goes to the server log).
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
import threading
import time
from typing import Any
from urllib.parse import SplitResult, urlsplit

import structlog

log = structlog.get_logger()

# One lookup of a webhook's name, when it is set (in a request) and at each delivery.
RESOLVE_TIMEOUT_SECONDS = 3.0
# Lookups running at once in one process; a slow resolver holds a thread each until the
# system's own timeout, so their number is bounded (a lookup that finds none free fails).
_LOOKUPS = threading.BoundedSemaphore(8)


def private_allowed() -> bool:
    return os.environ.get("MEEPLE_WEBHOOK_ALLOW_PRIVATE", "").lower() in ("1", "true", "yes")


# NAT64 prefixes (RFC 6052 well-known, RFC 8215 local use): the last 32 bits are an IPv4
# address, which a NAT64 gateway will connect to.
_NAT64 = (ipaddress.IPv6Network("64:ff9b::/96"), ipaddress.IPv6Network("64:ff9b:1::/48"))
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")  # deprecated ::a.b.c.d (RFC 4291)
# A last label that inet_aton, browsers (WHATWG URL) and curl read as a number: decimal,
# octal (leading 0) or hex (0x). Such a host is an address, never a name.
_NUMERIC_LABEL = re.compile(r"(0x[0-9a-f]*|[0-9]+)", re.IGNORECASE)


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


def ascii_host(url: str | SplitResult) -> str:
    """The URL's host as it goes to the resolver and into the Host header: an IPv6 address
    without brackets, else lower case, IDNA-encoded (`пример.example` ->
    `xn--e1afmkfd.example`), without a trailing dot. ValueError if it is none of these."""
    parts = urlsplit(url) if isinstance(url, str) else url
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal (urlsplit took the brackets off)
        ipaddress.IPv6Address(host.split("%", 1)[0])
        return host
    if not host:
        raise ValueError("the URL has no host")
    try:
        # IDNA 2003 (the codec of the standard library): also maps full-width letters and
        # dots, so `ｌｏｃａｌｈｏｓｔ` is checked as the `localhost` it is.
        encoded = host.encode("idna").decode("ascii").lower().rstrip(".")
    except UnicodeError as err:
        raise ValueError(f"{host!r} is not a valid host name") from err
    if not encoded:
        raise ValueError("the URL has no host")
    return encoded


def malformed(url: str) -> str | None:
    """What is wrong with the form of a webhook URL, or None: a user name or password in
    it (it would travel in logs, and deliveries never send it), a host that is no valid
    name, a port out of range."""
    parts = urlsplit(url)
    if parts.username is not None or parts.password is not None:
        return "a webhook URL may not carry a user name or password (user:password@)"
    try:
        parts.port  # noqa: B018 (raises ValueError when out of range)
        ascii_host(parts)
    except ValueError as err:
        return f"not a valid webhook URL: {err}"
    return None


def refused_when_set(url: str) -> str | None:
    """Why `url` may not be set as a webhook, or None: unless the operator allows private
    targets, where it points, the name resolved once (see the module's docstring)."""
    return None if private_allowed() else refused_address(url)


def refused_address(url: str, resolve: bool = True) -> str | None:
    """Why `url` may not receive webhooks, or None. Without `resolve`, only what the URL
    itself says is checked (a literal address, `localhost`, a number): for quick checks."""
    if not resolve:
        return _refused_by_name(url)
    return checked_address(url)[1]


def checked_address(url: str) -> tuple[str | None, str | None]:
    """(the address to connect to, None) or (None, why not). Deliveries connect to exactly
    this address: resolving the name a second time could give another (DNS rebinding).
    The reason never names what the name resolved to (see the module's docstring)."""
    reason = _refused_by_name(url)
    if reason is not None:
        return None, reason
    try:
        host = ascii_host(url)
    except ValueError as err:
        return None, str(err)
    try:
        addresses = resolve(host)
    except OSError as err:
        log.info("webhook host does not resolve", host=host, error=str(err))
        return None, _unresolved(host)
    bad = sorted({a for a in addresses if _not_public(a)})
    if bad and not private_allowed():
        log.info("webhook host resolves to a non-public address", host=host, addresses=bad)
        return None, _unresolved(host)
    return addresses[0], None


def _unresolved(host: str) -> str:
    # One reason for "no such name", "no answer in time" and "a private address": which of
    # them it was would tell a player about the server's network.
    return f"{host} does not resolve to a public address"


def resolve(host: str, timeout: float | None = None) -> list[str]:
    """The addresses of `host` (getaddrinfo's order), or OSError; a lookup that takes more
    than `timeout` seconds (RESOLVE_TIMEOUT_SECONDS) is given up (its thread ends when the
    system's resolver does)."""
    timeout = RESOLVE_TIMEOUT_SECONDS if timeout is None else timeout
    deadline = time.monotonic() + timeout
    if not _LOOKUPS.acquire(timeout=timeout):
        raise TimeoutError("too many lookups at once")
    found: dict[str, Any] = {}
    lookup = socket.getaddrinfo  # as it is now (tests replace it)

    def run() -> None:
        try:
            found["infos"] = lookup(host, None, proto=socket.IPPROTO_TCP)
        except OSError as err:
            found["error"] = err
        except Exception as err:  # noqa: BLE001 (UnicodeError and the like: no answer)
            found["error"] = OSError(str(err))
        finally:
            _LOOKUPS.release()

    thread = threading.Thread(target=run, name="webhook-lookup", daemon=True)
    thread.start()
    thread.join(max(0.0, deadline - time.monotonic()))
    if "infos" in found:
        addresses = [str(info[4][0]) for info in found["infos"]]
        if addresses:
            return addresses
        raise OSError("no address")
    if "error" in found:
        raise found["error"]
    raise TimeoutError(f"no answer in {timeout:g} s")


def _refused_by_name(url: str) -> str | None:
    if private_allowed():
        return None
    try:
        host = ascii_host(url)
    except ValueError as err:
        return str(err)
    if host == "localhost" or host.endswith(".localhost"):
        return f"{host} is this server itself"
    try:
        return f"{host} is not a public address" if _not_public(host) else None
    except ValueError:
        pass  # not an address in the canonical form
    if _NUMERIC_LABEL.fullmatch(host.rsplit(".", 1)[-1]):
        return (f"{host} is an address in a form resolvers read differently: write an "
                "IPv4 address as four decimal numbers (1.2.3.4)")
    return None  # a name: see checked_address
