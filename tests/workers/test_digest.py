"""Issue 5, point 1: "notification preferences (email, webhook, none; a daily digest or one
message per turn)". A `daily` player's notices are held and one digest a day carries them,
scheduled on RQ's scheduler; run here by a real RQ worker into a maildir and a real
webhook server."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from rq import Queue
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from events.accounts.players import Player
from events.application.digests import MAX_HELD, Digests, next_digest_at
from events.application.meeple import Meeple
from events.domain.table import Table
from events.mail import reply_tokens
from games.rng import Rng
from games.text import named
from tests.conftest import free_port
from tests.workers.helpers import (
    Receiver,
    caller,
    emails,
    html_of,
    one_move,
    run_worker,
    sections,
    text_of,
)
from workers.digest import send_digest, where_you_stand
from workers.notify import DeliveryFailed

RP = "res-publica-2230ad"


def test_the_digest_goes_out_at_the_next_digest_hour() -> None:
    morning = datetime(2026, 11, 30, 6, 59, tzinfo=UTC)
    assert next_digest_at(morning, 7) == datetime(2026, 11, 30, 7, tzinfo=UTC)
    assert next_digest_at(morning.replace(hour=7, minute=0), 7) == datetime(2026, 12, 1, 7,
                                                                            tzinfo=UTC)
    assert next_digest_at(morning.replace(hour=23), 0) == datetime(2026, 12, 1, 0, tzinfo=UTC)


def play_until_alice_waits(meeple: Meeple, table: Table, players: dict[int, Player],
                           alice: Player, rng: Rng, turns: int) -> Table:
    """Play random moves (running the worker after each) until alice has become an actor
    `turns` more times."""
    seen = 0
    while seen < turns:
        seat = table.actors()[0]
        was_waiting = alice.id in {players[s].id for s in table.actors()}
        table = one_move(meeple, table, seat, players, rng)
        run_worker(meeple)
        if not was_waiting and alice.id in {players[s].id for s in table.actors()}:
            seen += 1
    return table


def scheduled_digest(meeple: Meeple, player_id: str) -> Job:
    registry = ScheduledJobRegistry(queue=Queue("notify", connection=meeple.redis))
    ids = [i for i in registry.get_job_ids() if i.startswith(f"digest-{player_id}-")]
    assert len(ids) == 1, ids
    return Job.fetch(ids[0], connection=meeple.redis)


def test_a_daily_player_gets_one_digest_instead_of_a_message_per_turn(
    flask_app: Flask, meeple: Meeple, maildir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEEPLE_DIGEST_HOUR", "5")
    _, alice, _ = caller(flask_app, "alice", email="alice@example.org", notify="email",
                         digest="daily")
    _, bob, _ = caller(flask_app, "bob", email="bob@example.org", notify="email")
    table = meeple.create_game(alice, RP, 2)
    table = meeple.join_game(bob, table.id)
    players = {s.seat: Player(s.player_id, s.name) for s in table.seats}
    run_worker(meeple)
    table = play_until_alice_waits(meeple, table, players, alice, Rng(b"digest", 0), 3)
    meeple.post_message(bob, table.id, "Your move, Alice.")
    run_worker(meeple)
    # Bob (one message per turn) got his; alice got nothing yet.
    assert emails(maildir) and all(m["To"] == "bob@example.org" for m in emails(maildir))
    held = Digests(meeple.redis).held(alice.id)
    assert [h["event"] for h in held].count("message") == 1
    assert [h["event"] for h in held].count("your_turn") >= 3
    # One digest job, at the next 05:00 UTC, whatever the number of notices held.
    job = scheduled_digest(meeple, alice.id)
    registry = ScheduledJobRegistry(queue=Queue("notify", connection=meeple.redis))
    at = registry.get_scheduled_time(job)
    assert at == next_digest_at(datetime.now(UTC), 5)
    # The scheduler's moment comes: the job runs as scheduled, on a real worker.
    Queue("notify", connection=meeple.redis).enqueue_job(job)
    run_worker(meeple)
    digests = [m for m in emails(maildir) if m["To"] == "alice@example.org"]
    assert len(digests) == 1
    body = sections(text_of(digests[0]))
    awaiting = alice.id in {players[s].id for s in meeple.load(table.id).actors()}
    assert ("1 game awaits your move" in digests[0]["Subject"]) == awaiting
    assert any(f"(game {table.id})" in line for line in body.get("Awaiting your move", [])) \
        == awaiting
    game = f"{table.game.title} #{table.id[:6]}"
    assert body["Table talk"] == [f"{game}: bob: \u201cYour move, Alice.\u201d"]
    assert "Your move, Alice." in html_of(digests[0])
    assert Digests(meeple.redis).held(alice.id) == []
    # Sent once: the same day's job again sends nothing.
    assert send_digest(alice.id, job.args[1]) == "already sent"


def test_a_digest_reaches_a_webhook_signed(
    flask_app: Flask, meeple: Meeple, receiver: Receiver
) -> None:
    _, alice, profile = caller(flask_app, "alice", webhook_url=receiver.url, notify="webhook",
                               digest="daily")
    _, bob, _ = caller(flask_app, "bob")
    table = meeple.create_game(bob, RP, 2)
    table = meeple.join_game(alice, table.id)
    meeple.post_message(bob, table.id, "hello")
    run_worker(meeple)
    assert receiver.requests == []
    day = scheduled_digest(meeple, alice.id).args[1]
    assert send_digest(alice.id, day) == "sent"
    receiver.check_signatures(profile["webhook_secret"])
    (payload,) = receiver.delivered()
    assert payload["event"] == "digest" and payload["day"] == day
    assert [m["text"] for m in payload["messages"]] == ["hello"]
    awaiting = alice.id in {s.player_id for s in table.seats if s.seat in table.actors()}
    assert [g["game_id"] for g in payload["awaiting"]] == ([table.id] if awaiting else [])


def test_a_failed_digest_keeps_what_it_carries(
    flask_app: Flask, meeple: Meeple, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, alice, _ = caller(flask_app, "alice", email="alice@example.org", notify="email",
                         digest="daily")
    _, bob, _ = caller(flask_app, "bob")
    table = meeple.create_game(bob, RP, 2)
    meeple.join_game(alice, table.id)
    meeple.post_message(bob, table.id, "first")
    run_worker(meeple)
    day = scheduled_digest(meeple, alice.id).args[1]
    monkeypatch.setenv("MEEPLE_SMTP_URL", f"smtp://127.0.0.1:{free_port()}")  # nobody there
    with pytest.raises(DeliveryFailed):
        send_digest(alice.id, day)
    held = Digests(meeple.redis).held(alice.id)
    assert json.dumps(held).count("first") == 1  # kept for the retry


def test_the_digest_email_can_be_unsubscribed_like_every_email(
    flask_app: Flask, meeple: Meeple, maildir: Path
) -> None:
    """README: "Every email carries `List-Unsubscribe: <mailto:stop+<token>@…>`" (outside
    audit: the digest had none); the address stops that player's emails."""
    _, alice, _ = caller(flask_app, "alice", email="alice@example.org", notify="email",
                         digest="daily")
    _, bob, _ = caller(flask_app, "bob", email="bob@example.org", notify="email")
    table = meeple.join_game(alice, meeple.create_game(bob, RP, 2).id)
    meeple.post_message(bob, table.id, "hello alice")
    run_worker(meeple)
    assert send_digest(alice.id, "2026-12-06") == "sent"
    [digest] = [m for m in emails(maildir) if m["To"] == "alice@example.org"]
    assert digest["X-Meeple-Event"] == "digest"
    header = str(digest["List-Unsubscribe"])
    assert header.startswith("<mailto:stop+"), dict(digest)
    found = reply_tokens.address_in([header[len("<"):].split("?")[0].removeprefix("mailto:")])
    assert found is not None and found[0] == "stop"
    token = reply_tokens.read(reply_tokens.default_secret(), found[1], "stop")
    assert token is not None and token.game_id == table.id
    placed = table.seat_of(token.seat)
    assert placed is not None and placed.player_id == alice.id


def test_a_digest_holds_the_latest_notices_and_counts_the_rest(
    flask_app: Flask, meeple: Meeple, maildir: Path
) -> None:
    """Busy tables' talk made one digest of any size (outside audit: 57,600 items a day, a
    69 MB email no mail server takes, retried for ever): the latest MAX_HELD are kept."""
    _, alice, _ = caller(flask_app, "alice", email="alice@example.org", notify="email",
                         digest="daily")
    digests = Digests(meeple.redis)
    for n in range(MAX_HELD + 50):
        digests.hold(alice.id, {"event": "message", "game_id": "g1", "version": n, "seat": 0,
                                "title": "Trajan", "from_seat": 1, "from_name": "bob",
                                "text": f"message {n}"})
    held = digests.held(alice.id)
    assert len(held) == MAX_HELD and held[0]["text"] == "message 50"
    assert digests.dropped(alice.id) == 50
    assert send_digest(alice.id, "2026-12-06") == "sent"
    [mail] = [m for m in emails(maildir) if m["To"] == "alice@example.org"]
    talk = sections(text_of(mail))["Table talk"]
    assert talk[0].startswith("... 50 earlier notices were not kept")
    assert len(talk) == MAX_HELD + 1
    assert digests.held(alice.id) == [] and digests.dropped(alice.id) == 0


def test_notices_held_while_a_full_digest_is_sent_stay_for_the_next(meeple: Meeple) -> None:
    """On a full list each new notice pushes the oldest out: releasing the digest's count of
    the oldest then dropped notices it never carried (outside audit)."""
    digests = Digests(meeple.redis)

    def talk(n: int) -> dict[str, Any]:
        return {"event": "message", "game_id": "g1", "version": n, "text": f"m{n}"}

    for n in range(MAX_HELD):
        digests.hold("p_alice", talk(n))
    carried = digests.held("p_alice")
    for n in range(MAX_HELD, MAX_HELD + 5):  # posted while the digest was being sent
        digests.hold("p_alice", talk(n))
    digests.release("p_alice", carried)
    assert [item["text"] for item in digests.held("p_alice")] == [
        f"m{n}" for n in range(MAX_HELD, MAX_HELD + 5)]


def test_a_hot_seat_player_is_told_of_the_seat_that_must_act(meeple: Meeple) -> None:
    """README: "if you hold several seats, each seat that comes to act gets its own turn
    email"; the digest's "Awaiting your move" showed the first seat's prompt and hand even
    when only the second had to act (left by session 37, fixed in session 38)."""
    carol = Player("p_carol", "carol")
    table = meeple.create_game(carol, RP, 2)
    table = meeple.join_game(carol, table.id)
    players = {0: carol, 1: carol}
    rng = Rng(b"hot seat digest", 0)
    while table.actors() != [1]:
        table = one_move(meeple, table, table.actors()[0], players, rng)
    assert table.state is not None
    stand = where_you_stand(meeple, table.id, carol.id)
    assert stand["seat"] == 1
    prompts = [named(table.game.view(table.state, seat)["prompt"], table.names())
               for seat in (0, 1)]
    assert stand["prompt"] == prompts[1] != prompts[0]


def test_no_digest_when_the_turns_it_held_are_over(
        flask_app: Flask, meeple: Meeple, maildir: Path) -> None:
    """"Only if there is something to say": a held turn notice whose turn the player played
    (through the API) meanwhile is no news; a digest of nothing was sent, and without
    List-Unsubscribe (outside audit, session 38)."""
    _, pat, _ = caller(flask_app, "pat", email="pat@example.org", notify="email",
                       digest="daily")
    _, quinn, _ = caller(flask_app, "quinn")
    table = meeple.create_game(pat, RP, 2)
    table = meeple.join_game(quinn, table.id)
    run_worker(meeple)
    assert table.actors() == [0]
    assert [h["event"] for h in Digests(meeple.redis).held(pat.id)] == ["your_turn"]
    meeple.play_moves(pat, table.id, [{"id": "draw"}], expected_version=table.version)
    run_worker(meeple)
    assert pat.id not in {s.player_id for s in meeple.load(table.id).seats
                          if s.seat in meeple.load(table.id).actors()}
    assert send_digest(pat.id, scheduled_digest(meeple, pat.id).args[1]) == "nothing to say"
    assert not [m for m in emails(maildir) if m["To"] == "pat@example.org"]
    assert Digests(meeple.redis).held(pat.id) == []  # released: the next digest starts afresh
