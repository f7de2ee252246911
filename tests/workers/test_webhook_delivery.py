"""One webhook delivery attempt: bounded in time whatever the receiver does, every way it
can fail counted, to the right host and port (IPv6, internationalised names), never sending
credentials, signed with a timestamp a receiver can check for freshness, and carrying what
each event says (README, "Webhooks")."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
import time
from typing import Any

import pytest
from flask import Flask
from rq import Queue

from events.accounts.players import Player
from events.accounts.profiles import Profiles
from events.application.dispatch import NOTICE_JOB_TIMEOUT, NOTIFY_PLAYER
from events.application.meeple import Meeple
from events.domain.table import Status
from games.rng import Rng
from tests.workers.helpers import Receiver, caller, one_move
from workers import notify
from workers.notify import DeliveryFailed, notify_player, post_signed

RP = "res-publica-2230ad"


def _drip_server(total_seconds: float) -> tuple[socket.socket, int]:
    """Accepts one connection, reads the request, then answers one byte a second for
    `total_seconds` (each gap well under any per-read timeout)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def serve() -> None:
        conn, _ = server.accept()
        conn.recv(65536)
        start = time.monotonic()
        for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 1000:
            if time.monotonic() - start > total_seconds:
                break
            try:
                conn.sendall(bytes([byte]))
            except OSError:
                return
            time.sleep(1)
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    return server, server.getsockname()[1]


def _webhook_player(flask_app: Flask, meeple: Meeple, url: str) -> tuple[Profiles, str]:
    _, alice, _ = caller(flask_app, "alice", webhook_url=url, notify="webhook")
    return Profiles(meeple.redis), alice.id


def test_a_receiver_answering_a_byte_a_second_is_cut_at_the_attempts_deadline(
    flask_app: Flask, meeple: Meeple
) -> None:
    """The timeout bounds the attempt (connection to the last header), not each read: a
    receiver dripping its answer cannot hold the notify worker, and it is a failure."""
    server, port = _drip_server(total_seconds=20)
    try:
        profiles, alice = _webhook_player(flask_app, meeple, f"http://127.0.0.1:{port}/hook")
        start = time.monotonic()
        with pytest.raises(DeliveryFailed, match="connection error"):
            post_signed(profiles, profiles.get(alice), {"event": "test"}, "notify-x-1-y")
        took = time.monotonic() - start
        assert took < notify.WEBHOOK_TIMEOUT_SECONDS + 2, f"the attempt took {took:.0f} s"
        assert profiles.get(alice).webhook_failures == 1
    finally:
        server.close()


def test_an_attempt_cut_by_rqs_job_timeout_is_a_counted_failure(
    flask_app: Flask, meeple: Meeple
) -> None:
    """RQ ends a job past its time limit by raising JobTimeoutException inside it: that
    attempt failed too, and is counted (else a receiver could fail for ever unnoticed)."""
    from rq.timeouts import JobTimeoutException, UnixSignalDeathPenalty

    server, port = _drip_server(total_seconds=20)
    try:
        profiles, alice = _webhook_player(flask_app, meeple, f"http://127.0.0.1:{port}/hook")
        with pytest.raises(JobTimeoutException), \
                UnixSignalDeathPenalty(2, JobTimeoutException, job_id="notify-x-1-y"):
            post_signed(profiles, profiles.get(alice), {"event": "t"}, "notify-x-1-y")
        assert profiles.get(alice).webhook_failures == 1
    finally:
        server.close()


def test_any_exception_of_an_attempt_is_a_counted_failure(
    flask_app: Flask, meeple: Meeple, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    profiles, alice = _webhook_player(flask_app, meeple, receiver.url)

    def broken(*args: Any) -> None:
        raise RuntimeError("a bug of ours")

    monkeypatch.setattr(notify, "_post", broken)
    with pytest.raises(DeliveryFailed, match="RuntimeError"):
        post_signed(profiles, profiles.get(alice), {"event": "t"}, "notify-x-1-y")
    assert profiles.get(alice).webhook_failures == 1


def test_notice_jobs_have_a_short_time_limit(flask_app: Flask, meeple: Meeple,
                                             receiver: Receiver) -> None:
    """RQ's default is 180 s; the notify worker also runs the turns' deadlines."""
    _, bob, _ = caller(flask_app, "bob", webhook_url=receiver.url, notify="webhook")
    _, alice, _ = caller(flask_app, "alice", webhook_url=receiver.url, notify="webhook")
    opened = meeple.create_game(alice, RP, 2)
    meeple.join_game(bob, opened.id)
    jobs = [job for job in Queue("webhooks", connection=meeple.redis).jobs
            if job.func_name == NOTIFY_PLAYER]
    assert jobs
    assert {job.timeout for job in jobs} == {NOTICE_JOB_TIMEOUT}
    assert NOTICE_JOB_TIMEOUT <= 60


def test_credentials_in_a_stored_url_are_never_sent(
    flask_app: Flask, meeple: Meeple, receiver: Receiver
) -> None:
    """A URL with user:password@ set before they were refused (tests/workers/
    test_webhook_urls.py): the Host header is the host and port only."""
    profiles, alice = _webhook_player(flask_app, meeple, receiver.url)
    profiles.update(alice, {"webhook_url": receiver.url.replace("http://", "http://u:s3cret@")})
    post_signed(profiles, profiles.get(alice), {"event": "test"}, "notify-x-1-y")
    headers = receiver.requests[0][0]
    assert headers["Host"] == receiver.url.split("/")[2]
    assert "s3cret" not in json.dumps(headers)


V6 = "2606:2800:21f:cb07:6820:80da:af6b:8b2c"  # a public address


@pytest.mark.parametrize(("url", "port"), [
    ("http://hooks.example.org/hook", 80), ("http://hooks.example.org:8080/hook", 8080),
    (f"http://[{V6}]/hook", 80),
])
def test_plain_http_to_an_ipv6_address_connects_to_it_on_the_urls_port(
    flask_app: Flask, meeple: Meeple, monkeypatch: pytest.MonkeyPatch, url: str, port: int
) -> None:
    """http.client given a bare IPv6 address and no port reads its last group as the port;
    the delivery names the port, and connects to the checked address (like HTTPS)."""
    real = socket.getaddrinfo
    tried: list[tuple[Any, ...]] = []

    def fake_getaddrinfo(host: str, *args: Any, **kwargs: Any) -> Any:
        if host == "hooks.example.org":
            return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", (V6, 0, 0, 0))]
        return real(host, *args, **kwargs)

    def fake_create_connection(address: tuple[Any, ...], *args: Any, **kwargs: Any) -> Any:
        tried.append(address)
        raise ConnectionRefusedError("test: refused")

    profiles, alice = _webhook_player(flask_app, meeple, "http://127.0.0.1/")
    profiles.update(alice, {"webhook_url": url})
    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    monkeypatch.setattr(socket, "create_connection", fake_create_connection)
    with pytest.raises(DeliveryFailed, match="refused"):
        post_signed(profiles, profiles.get(alice), {"event": "test"}, "notify-x-1-y")
    assert [address[:2] for address in tried] == [(V6, port)]
    assert profiles.get(alice).webhook_failures == 1


def test_the_host_header_of_an_ipv6_address_has_brackets(
    flask_app: Flask, meeple: Meeple, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over ::1: the Host header is `[::1]:port`, as RFC 9110 writes an IPv6 host."""
    seen: list[bytes] = []
    server = socket.socket(socket.AF_INET6)
    server.bind(("::1", 0))  # this machine and CI's have an IPv6 loopback
    server.listen()
    port = server.getsockname()[1]

    def serve() -> None:
        conn, _ = server.accept()
        seen.append(conn.recv(65536))
        conn.sendall(b"HTTP/1.1 204 No Content\r\n\r\n")
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    try:
        profiles, alice = _webhook_player(flask_app, meeple, f"http://[::1]:{port}/hook")
        post_signed(profiles, profiles.get(alice), {"event": "test"}, "notify-x-1-y")
        assert f"\r\nHost: [::1]:{port}\r\n".encode() in seen[0]
    finally:
        server.close()


def test_an_internationalised_host_name_is_delivered_to_its_idna_form(
    flask_app: Flask, meeple: Meeple, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`пример.example` is resolved and sent in the Host header as `xn--e1afmkfd.example`
    (http.client would fail to encode it, a crash of every attempt)."""
    port = int(receiver.url.split(":")[2].split("/")[0])
    real = socket.getaddrinfo
    asked: list[str] = []

    def fake(host: str, *args: Any, **kwargs: Any) -> Any:
        asked.append(host)
        if host == "xn--e1afmkfd.example":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", 0))]
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    profiles, alice = _webhook_player(flask_app, meeple, f"http://пример.example:{port}/hook")
    post_signed(profiles, profiles.get(alice), {"event": "t"}, "notify-x-1-y")
    assert "xn--e1afmkfd.example" in asked and "пример.example" not in asked
    assert receiver.requests[0][0]["Host"] == f"xn--e1afmkfd.example:{port}"
    assert profiles.get(alice).webhook_failures == 0


def test_a_delivery_carries_a_timestamp_signed_with_its_id_and_body(
    flask_app: Flask, meeple: Meeple, receiver: Receiver
) -> None:
    """X-Meeple-Signature is unchanged (the body's HMAC); X-Meeple-Signature-V2 signs
    `{delivery}.{timestamp}.{body}`, so a receiver can refuse a stale or replayed request."""
    _, alice, answer = caller(flask_app, "alice", webhook_url=receiver.url, notify="webhook")
    secret = answer["webhook_secret"]
    profiles = Profiles(meeple.redis)
    post_signed(profiles, profiles.get(alice.id), {"event": "test"}, "notify-x-1-y")
    headers, body, _ = receiver.requests[0]
    receiver.check_signatures(secret)  # the first signature, as receivers check it
    timestamp = headers["X-Meeple-Timestamp"]
    assert abs(int(timestamp) - time.time()) < 5
    signed = f"notify-x-1-y.{timestamp}.".encode() + body
    expected = "sha256=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(headers["X-Meeple-Signature-V2"], expected)


def test_the_game_ended_webhook_carries_the_result(
    flask_app: Flask, meeple: Meeple, receiver: Receiver
) -> None:
    """The same score sheet as the player stream's `game_ended` (and the email)."""
    _, bob, _ = caller(flask_app, "bob", webhook_url=receiver.url, notify="webhook")
    _, alice, _ = caller(flask_app, "alice")
    table = meeple.join_game(bob, meeple.create_game(alice, RP, 2).id)
    players = {s.seat: Player(s.player_id, s.name) for s in table.seats}
    rng = Rng(b"game-ended-webhook", 0)
    while table.status is not Status.ENDED:
        seat = table.actors()[0]
        table = one_move(meeple, table, seat, players, rng)
    ended = next(e for e in meeple.events(table.id, 1, table.version) if e["type"] == "GameEnded")
    assert notify_player(table.id, ended["v"], bob.id, "game_ended") == "sent"
    payload = json.loads(receiver.requests[-1][1])
    assert payload["event"] == "game_ended"
    assert payload["result"] == ended["data"]["scores"]
