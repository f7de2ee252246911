"""Notifications on the `notify` queue, run by a real RQ worker: emails into a maildir,
webhooks to a real HTTP server, retries, and disabling a failing webhook."""

from __future__ import annotations

import socketserver
import threading
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from rq import Queue

from events.accounts.players import Player
from events.accounts.profiles import Profiles
from events.application.meeple import Meeple
from events.domain.table import Status, Table
from games.rng import Rng
from tests.responses import body_of
from tests.service.conftest import Caller
from tests.workers.helpers import (
    Receiver,
    caller,
    emails,
    html_of,
    newly_actors,
    of_game,
    one_move,
    run_worker,
    sections,
    text_of,
)
from workers import notify
from workers.notify import notify_player

RP = "res-publica-2230ad"


def test_the_other_player_hears_once_per_turn_change_and_at_the_end(
    flask_app: Flask, meeple: Meeple, maildir: Path, receiver: Receiver
) -> None:
    _, alice, _ = caller(flask_app, "alice", email="alice@example.org", notify="email")
    bob_caller, bob, bob_profile = caller(flask_app, "bob", webhook_url=receiver.url,
                                          notify="webhook")
    secret = bob_profile["webhook_secret"]
    expected = {alice.id: 0, bob.id: 0}
    opened = meeple.create_game(alice, RP, 2)
    table = meeple.join_game(bob, opened.id)
    for player_id in newly_actors(opened, table, bob.id):
        expected[player_id] += 1
    players = {s.seat: Player(s.player_id, s.name) for s in table.seats}
    rng = Rng(b"notify-test", 0)
    run_worker(meeple)
    # Phase 1: the worker runs after every move, so every notification is current.
    for _ in range(25):
        seat = table.actors()[0]
        mover = players[seat].id
        after = one_move(meeple, table, seat, players, rng)
        for player_id in newly_actors(table, after, mover):
            expected[player_id] += 1
        table = after
        run_worker(meeple)
        assert len(emails(maildir)) == expected[alice.id]
        assert len(receiver.delivered()) == expected[bob.id]
    assert expected[alice.id] > 0 and expected[bob.id] > 0
    receiver.check_signatures(secret)
    # Every email names the game, lists the moves with codes and says how to answer.
    message = emails(maildir)[-1]
    assert message["X-Meeple-Game"] == opened.id and message["X-Meeple-Event"] == "your_turn"
    assert f"our turn in {table.game.title} #{opened.id[:6]}" in message["Subject"]
    body = text_of(message)
    assert f"game {opened.id} (version " in body.splitlines()[0]
    assert sections(body)["Your moves"][0].startswith("1. ")
    assert "Reply with the codes of your moves" in body
    assert "Reply with the codes of your moves" in html_of(message)
    payload = receiver.delivered()[-1]
    assert payload["event"] == "your_turn" and payload["game_id"] == opened.id
    assert [m["code"] for m in payload["moves"]] == list(range(1, len(payload["moves"]) + 1))
    assert payload["seat"] == table.seats_of(bob.id)[0]
    # Phase 2: play to the end with no worker; the turn notices are stale by then and
    # dropped, and each player hears of the end once, the one who made the last move too
    # (outside audit: a webhook client that ended the game never got its score sheet).
    while table.status is not Status.ENDED:
        table = one_move(meeple, table, table.actors()[0], players, rng)
    run_worker(meeple)
    expected[alice.id] += 1
    expected[bob.id] += 1
    assert len(emails(maildir)) == expected[alice.id]
    assert len(receiver.delivered()) == expected[bob.id]
    receiver.check_signatures(secret)
    events = [p["event"] for p in receiver.delivered()]
    ended = of_game(emails(maildir), opened.id, "game_ended")
    assert all(f"#{opened.id[:6]} has ended" in m["Subject"] for m in ended)
    assert events.count("game_ended") == len(ended) == 1
    deliveries = [h["X-Meeple-Delivery"] for h, _, _ in receiver.requests]
    assert len(deliveries) == len(set(deliveries))
    assert bob_caller.get("/v1/players/me").json["webhook_disabled_reason"] is None


def test_bots_are_never_notified_and_a_bot_move_notifies_the_human(
    flask_app: Flask, meeple: Meeple, maildir: Path, receiver: Receiver
) -> None:
    _, alice, _ = caller(flask_app, "alice", email="alice@example.org", notify="email")
    # Even a profile under the bots' id gets nothing.
    Profiles(meeple.redis).update("bot:random", {"webhook_url": receiver.url,
                                                 "notify": "webhook"})
    table = meeple.create_game(alice, RP, 2, bots=[1])
    players = {0: alice}
    rng = Rng(b"bot-test", 0)
    # Each time the bot must act, alice hears once when it is her turn again (or the end);
    # and once at the start, whoever acts first: the creation that fills the table with
    # bots starts the game, and alice is told when she is to act.
    turns = 1
    run_worker(meeple)
    for _ in range(15):
        table = meeple.load(table.id)
        if table.status is Status.ENDED:
            break
        assert 0 in table.actors()  # the worker played the bot's turns
        table = one_move(meeple, table, 0, players, rng)
        if 0 not in table.actors():
            turns += 1
        run_worker(meeple)
    assert receiver.requests == []
    assert len(emails(maildir)) == turns > 0


def test_a_duplicate_enqueue_or_job_sends_once(
    flask_app: Flask, meeple: Meeple, maildir: Path
) -> None:
    _, alice, _ = caller(flask_app, "alice", email="alice@example.org", notify="email")
    _, bob, _ = caller(flask_app, "bob")
    before, table, mover = until_notified(meeple, alice, bob, alice)
    queue = Queue("notify", connection=meeple.redis)
    queued = queue.count
    assert queued >= 1
    # The same commit reported again queues nothing new: the job id is the same.
    meeple.dispatcher.after_commit(table, before, mover)
    meeple.dispatcher.after_commit(table, before, mover)
    assert queue.count == queued
    run_worker(meeple)
    sent = len(emails(maildir))
    assert sent >= 1
    # The job itself, run again (as after its record expired), sends nothing either.
    assert notify_player(table.id, table.version, alice.id, "your_turn") == "already sent"
    meeple.dispatcher.after_commit(table, before, mover)
    run_worker(meeple)
    assert len(emails(maildir)) == sent


def until_notified(meeple: Meeple, host: Player, guest: Player,
                   who: Player) -> tuple[Table | None, Table, str]:
    """`host` opens a game, `guest` joins, and they play until a commit makes `who` an
    actor by the other's action: (the table before it, after it, the mover)."""
    opened = meeple.create_game(host, RP, 2)
    table = meeple.join_game(guest, opened.id)
    if who.id in newly_actors(opened, table, guest.id):
        return opened, table, guest.id
    players = {s.seat: Player(s.player_id, s.name) for s in table.seats}
    rng = Rng(b"until-notified", 0)
    for _ in range(1000):
        seat = table.actors()[0]
        after = one_move(meeple, table, seat, players, rng)
        if who.id in newly_actors(table, after, players[seat].id):
            return table, after, players[seat].id
        table = after
    raise AssertionError(f"{who.name} never became an actor")


def _webhook_game(flask_app: Flask, meeple: Meeple, url: str) -> tuple[Caller, str]:
    """Bob (webhook) and Alice (no notifications) play until one notice for Bob is queued;
    returns Bob and his webhook secret."""
    bob_caller, bob, answer = caller(flask_app, "bob", webhook_url=url, notify="webhook")
    _, alice, _ = caller(flask_app, "alice")
    until_notified(meeple, bob, alice, bob)
    return bob_caller, answer["webhook_secret"]


def test_a_failing_webhook_is_retried_until_delivered_once(
    flask_app: Flask, meeple: Meeple
) -> None:
    receiver = Receiver(script=[500, 503])
    try:
        bob, secret = _webhook_game(flask_app, meeple, receiver.url)
        run_worker(meeple)
        assert [status for _, _, status in receiver.requests] == [500, 503, 200]
        assert len({h["X-Meeple-Delivery"] for h, _, _ in receiver.requests}) == 1
        assert len(receiver.delivered()) == 1
        receiver.check_signatures(secret)
        assert bob.get("/v1/players/me").json["webhook_disabled_reason"] is None
        assert Profiles(meeple.redis).get(bob.id).webhook_failures == 0
    finally:
        receiver.close()


def test_five_failures_in_a_row_disable_the_webhook(flask_app: Flask, meeple: Meeple) -> None:
    receiver = Receiver(script=[500] * 10)
    try:
        bob, _ = _webhook_game(flask_app, meeple, receiver.url)
        run_worker(meeple)
        assert len(receiver.requests) == 5  # the sixth attempt finds the webhook disabled
        me = bob.get("/v1/players/me").json
        assert me["webhook_disabled_reason"].startswith("HTTP 500")
        assert "after 5 failed deliveries" in me["webhook_disabled_reason"]
        # Setting the URL again re-enables it, with a new secret.
        again = bob.client.patch("/v1/players/me", json={"webhook_url": receiver.url},
                                 headers=bob.headers)
        profile = body_of(again)
        assert profile["webhook_disabled_reason"] is None and profile["webhook_secret"]
    finally:
        receiver.close()


def test_an_unreachable_webhook_counts_as_a_failure(flask_app: Flask, meeple: Meeple) -> None:
    receiver = Receiver()
    url = receiver.url
    receiver.close()  # nothing listens there any more
    bob, _ = _webhook_game(flask_app, meeple, url)
    run_worker(meeple)
    reason = bob.get("/v1/players/me").json["webhook_disabled_reason"]
    assert reason.startswith("connection error")


class SmtpSink(socketserver.StreamRequestHandler):
    """Just enough SMTP for smtplib: accepts every message into `received`."""

    received: list[bytes] = []

    def handle(self) -> None:
        self.wfile.write(b"220 sink ready\r\n")
        while line := self.rfile.readline():
            verb = line[:4].upper()
            if verb == b"DATA":
                self.wfile.write(b"354 go on\r\n")
                data = b""
                while (chunk := self.rfile.readline()) not in (b".\r\n", b""):
                    data += chunk
                self.received.append(data)
                self.wfile.write(b"250 queued\r\n")
            elif verb == b"QUIT":
                self.wfile.write(b"221 bye\r\n")
                return
            else:  # EHLO, MAIL, RCPT, RSET, NOOP
                self.wfile.write(b"250 ok\r\n")


def test_email_goes_over_smtp_when_configured(
    flask_app: Flask, meeple: Meeple, maildir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    SmtpSink.received = []
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), SmtpSink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        _, alice, _ = caller(flask_app, "alice", email="alice@example.org", notify="email")
        _, bob, _ = caller(flask_app, "bob")
        monkeypatch.setenv("MEEPLE_SMTP_URL", f"smtp://127.0.0.1:{server.server_address[1]}")
        _, table, _ = until_notified(meeple, alice, bob, alice)
        run_worker(meeple)
        assert len(SmtpSink.received) == 1
        sent = SmtpSink.received[0].decode()
        assert "To: alice@example.org" in sent and table.id in sent
        assert emails(maildir) == []
    finally:
        server.shutdown()
        server.server_close()


def test_a_notice_reads_a_bounded_stretch_of_a_long_log(
    flask_app: Flask, meeple: Meeple, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn notice read the game's whole log to say what happened since the seat's last
    turn (outside audit: 2 s a notice at 23,906 events, on the worker that runs the
    deadlines): it reads the last NOTICE_LOG_WINDOW events at most."""
    monkeypatch.setattr(notify, "NOTICE_LOG_WINDOW", 5)
    _, alice, _ = caller(flask_app, "alice")
    _, bob, _ = caller(flask_app, "bob")
    table = meeple.join_game(bob, meeple.create_game(alice, RP, 2).id)
    players = {s.seat: Player(s.player_id, s.name) for s in table.seats}
    for n in range(12):
        table = one_move(meeple, table, table.actors()[0], players, Rng(b"window", n))
    read: list[tuple[int, int | None]] = []
    real = Meeple.events

    def counted(self: Meeple, game_id: str, start: int = 1, end: int | None = None) -> Any:
        read.append((start, end))
        return real(self, game_id, start, end)

    monkeypatch.setattr(Meeple, "events", counted)
    player = players[table.actors()[0]].id
    message = notify._message(table, player, "your_turn", meeple)
    assert message is not None  # its "since" from that stretch alone
    assert read == [(table.version - 4, table.version)]
