"""Webhooks go to public addresses only (SSRF): anyone can set a webhook URL, and the
server POSTs to it, so loopback, private and link-local targets are refused when the URL is
set and again at each delivery (a name may resolve anywhere later)."""

from __future__ import annotations

import socket
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from flask import Flask

from events.accounts import webhook_urls
from events.accounts.profiles import Profiles
from events.accounts.webhook_urls import refused_address
from events.application.meeple import Meeple
from tests.responses import body_of
from tests.workers.helpers import Receiver, caller
from tests.workers.test_smtp_transport import self_signed
from workers.notify import DeliveryFailed, post_signed


@pytest.fixture()
def guarded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEEPLE_WEBHOOK_ALLOW_PRIVATE", raising=False)


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8000/hook", "http://localhost/hook", "http://api.localhost/x",
    "http://10.1.2.3/", "http://192.168.0.1/", "http://172.16.0.1/", "http://169.254.169.254/",
    "http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://[fd00::1]/", "http://0.0.0.0/",
    "http://100.64.0.1/",
    # IPv6 forms that carry a loopback or private IPv4 address (NAT64, 6to4, Teredo,
    # IPv4-compatible), all routed to it by some gateway or tunnel.
    "http://[64:ff9b::7f00:1]/", "http://[64:ff9b::a01:203]/", "http://[64:ff9b:1::c0a8:1]/",
    "http://[2002:7f00:1::]/", "http://[2002:a00:1::1]/",
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "http://[::7f00:1]/", "http://[::a00:1]/",
])
def test_non_public_addresses_are_refused(guarded: None, url: str) -> None:
    assert refused_address(url, resolve=False) is not None
    assert refused_address(url) is not None


def test_public_addresses_pass_and_the_operator_may_allow_private(
    guarded: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert refused_address("https://93.184.215.14/hook") is None
    assert refused_address("https://hooks.example.org/x", resolve=False) is None
    # The same IPv6 forms are fine when what they carry is public (8.8.8.8, 93.184.215.14).
    for public in ("64:ff9b::808:808", "2002:808:808::1", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"):
        assert refused_address(f"https://[{public}]/hook", resolve=False) is None, public
    monkeypatch.setenv("MEEPLE_WEBHOOK_ALLOW_PRIVATE", "1")
    assert refused_address("http://127.0.0.1/hook") is None


def test_a_name_that_resolves_to_a_private_address_is_refused(guarded: None) -> None:
    # This machine's own name resolves to one of its addresses, never a public one here.
    name = socket.gethostname()
    assert refused_address(f"http://{name}/hook", resolve=False) is None  # a name, as typed
    reason = refused_address(f"http://{name}/hook")
    # One reason for a private address and for no address: which it was, or the address,
    # would tell a player about the server's private DNS.
    assert reason == f"{name.lower()} does not resolve to a public address"
    unknown = refused_address("http://no-such-host.invalid/hook")
    assert unknown == "no-such-host.invalid does not resolve to a public address"


@pytest.mark.parametrize("url", [
    f"http://{socket.gethostname()}:6379/",  # resolves to this machine's address
    "http://2130706433/", "http://0x7f000001/", "http://127.1:6379/", "http://0177.0.0.1/",
    "http://0x7f.0.0.1/", "http://1.2.3.4.5/", "http://１２７.０.０.１/",
    "http://ｌｏｃａｌｈｏｓｔ/",  # full-width letters: IDNA makes it `localhost`
])
def test_a_loopback_or_numeric_target_is_refused_when_set(
    guarded: None, flask_app: Flask, url: str
) -> None:
    """Set-time checks cover what resolvers read as an address (decimal, hex, octal or
    short forms: refused whatever they would mean) and what a name resolves to now."""
    who, _, _ = caller(flask_app, "alice")
    answer = who.client.patch("/v1/players/me", json={"webhook_url": url}, headers=who.headers)
    assert answer.status_code == 422, (answer.status_code, answer.json)
    errors = str(body_of(answer)["errors"])
    assert "public addresses only" in errors
    if socket.gethostname() in url:
        assert "does not resolve to a public address" in errors and "127.0.0.1" not in errors


def test_a_slow_lookup_when_set_is_given_up(
    guarded: None, flask_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name is resolved when set, in the request: at most RESOLVE_TIMEOUT_SECONDS."""
    real = socket.getaddrinfo

    def slow(host: str, *args: Any, **kwargs: Any) -> Any:
        if host == "slow.example.org":
            time.sleep(3)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(webhook_urls, "RESOLVE_TIMEOUT_SECONDS", 0.5)
    who, _, _ = caller(flask_app, "alice")
    monkeypatch.setattr(socket, "getaddrinfo", slow)
    start = time.monotonic()
    answer = who.client.patch("/v1/players/me", json={"webhook_url": "http://slow.example.org/"},
                              headers=who.headers)
    assert time.monotonic() - start < 2
    assert answer.status_code == 422
    assert "slow.example.org does not resolve to a public address" in str(body_of(answer))


@pytest.mark.parametrize("private", [True, False])
def test_a_url_with_credentials_is_refused_when_set(
    flask_app: Flask, receiver: Receiver, monkeypatch: pytest.MonkeyPatch, private: bool
) -> None:
    """user:password@ in a webhook URL would go to every log on the way; deliveries never
    send it (tests/workers/test_webhook_delivery.py), so it is refused, whatever the
    operator allows."""
    if not private:
        monkeypatch.delenv("MEEPLE_WEBHOOK_ALLOW_PRIVATE", raising=False)
    who, _, _ = caller(flask_app, "alice")
    for url in (receiver.url.replace("http://", "http://user:s3cret@"),
                "https://user@hooks.example.org/x"):
        answer = who.client.patch("/v1/players/me", json={"webhook_url": url},
                                  headers=who.headers)
        assert answer.status_code == 422, answer.json
        assert "may not carry a user name or password" in str(body_of(answer)["errors"])
    assert who.get("/v1/players/me").json["webhook_url"] is None


def test_the_disabled_reason_names_no_address(
    flask_app: Flask, meeple: Meeple, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Set while allowed, then refused at each delivery: what GET /v1/players/me shows of
    it names no address the name resolved to (an oracle on the server's private DNS)."""
    internal = socket.gethostname()
    address = socket.getaddrinfo(internal, None)[0][4][0]
    who, alice, _ = caller(flask_app, "alice", webhook_url=f"http://{internal}/hook",
                           notify="webhook")
    monkeypatch.delenv("MEEPLE_WEBHOOK_ALLOW_PRIVATE")
    profiles = Profiles(meeple.redis)
    for _ in range(5):
        with pytest.raises(DeliveryFailed):
            post_signed(profiles, profiles.get(alice.id), {"event": "t"}, "notify-x-1-y")
    reason = who.get("/v1/players/me").json["webhook_disabled_reason"]
    assert reason.startswith(f"refused: {internal.lower()} does not resolve to a public address")
    assert address not in reason


def test_setting_a_private_webhook_is_a_422(guarded: None, flask_app: Flask) -> None:
    who, _, _ = caller(flask_app, "alice")
    answer = who.client.patch("/v1/players/me", json={"webhook_url": "http://10.0.0.7/hook"},
                              headers=who.headers)
    assert answer.status_code == 422
    assert "public addresses only" in str(body_of(answer)["errors"])
    assert who.get("/v1/players/me").json["webhook_url"] is None


def test_a_delivery_to_a_private_address_is_never_made(
    flask_app: Flask, meeple: Meeple, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Set while allowed (e.g. before the operator turned the guard on), delivered after.
    _, alice, _ = caller(flask_app, "alice", webhook_url=receiver.url, notify="webhook")
    monkeypatch.delenv("MEEPLE_WEBHOOK_ALLOW_PRIVATE")
    profiles = Profiles(meeple.redis)
    with pytest.raises(DeliveryFailed, match="not a public address"):
        post_signed(profiles, profiles.get(alice.id), {"event": "test"}, "notify-x-1-y")
    assert receiver.requests == []
    assert profiles.get(alice.id).webhook_failures == 1


class TlsReceiver(BaseHTTPRequestHandler):
    seen: ClassVar[list[tuple[str, bytes]]] = []

    def do_POST(self) -> None:  # noqa: N802 (the http.server API)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        TlsReceiver.seen.append((self.headers["Host"], body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        return None


def test_a_delivery_connects_to_the_address_it_checked_and_verifies_the_name(
    flask_app: Flask, meeple: Meeple, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The name is resolved once, checked, and that address is the one connected to (no
    second lookup for DNS rebinding to answer differently); TLS still checks the name."""
    cert, key = self_signed(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    server = ThreadingHTTPServer(("127.0.0.1", 0), TlsReceiver)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        _, alice, _ = caller(flask_app, "alice", notify="webhook",
                             webhook_url=f"https://localhost:{port}/hook")
        profiles = Profiles(meeple.redis)
        resolved: list[str] = []
        real_getaddrinfo = socket.getaddrinfo

        def recording_getaddrinfo(host: str, *args: Any, **kwargs: Any) -> Any:
            resolved.append(host)
            return real_getaddrinfo(host, *args, **kwargs)

        monkeypatch.setattr(socket, "getaddrinfo", recording_getaddrinfo)
        post_signed(profiles, profiles.get(alice.id), {"event": "test"}, "notify-x-1-y")
        # The name once, by the check; then the connection to its answer (a literal address,
        # which getaddrinfo only parses).
        assert resolved == ["localhost", "127.0.0.1"]
        assert TlsReceiver.seen == [(f"localhost:{port}", b'{"event":"test"}')]
    finally:
        server.shutdown()
        server.server_close()
