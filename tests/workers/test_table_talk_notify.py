"""Issue 5, point 2: "Notifications through the `notify` queue when ... someone writes to
the table: one message per change, never duplicated (idempotent job ids), never sent for a
player's own action." Run by a real RQ worker, into a maildir and a real webhook server."""

from __future__ import annotations

from pathlib import Path

from flask import Flask
from rq import Queue

from events.application.meeple import Meeple
from tests.responses import body_of
from tests.workers.helpers import (
    Receiver,
    caller,
    emails,
    html_of,
    of_game,
    run_worker,
    text_of,
)
from workers.notify import notify_player

RP = "res-publica-2230ad"


def test_table_talk_reaches_everyone_else_at_the_table_once(
    flask_app: Flask, meeple: Meeple, maildir: Path, receiver: Receiver
) -> None:
    alice_caller, alice, _ = caller(flask_app, "alice", email="alice@example.org",
                                    notify="email")
    _, bob, bob_profile = caller(flask_app, "bob", webhook_url=receiver.url, notify="webhook")
    _, carol, _ = caller(flask_app, "carol", email="carol@example.org", notify="none")
    table = meeple.create_game(alice, RP, 3, join=True)
    meeple.join_game(bob, table.id)
    meeple.join_game(carol, table.id)
    run_worker(meeple)  # the turn notices of the start
    mails_before = {m["Message-ID"] for m in emails(maildir)}
    hooks_before = len(receiver.delivered())

    answer = alice_caller.client.post(f"/v1/games/{table.id}/messages",
                                      json={"text": "  Good luck, all!  "},
                                      headers=alice_caller.headers)
    assert answer.status_code == 201, answer.json
    version = body_of(answer)["version"]
    run_worker(meeple)

    # Alice wrote it: she hears nothing; carol asked for nothing; bob gets one webhook.
    assert len(emails(maildir)) == len(mails_before)
    hooks = receiver.delivered()[hooks_before:]
    assert len(hooks) == 1
    assert hooks[0] == {**hooks[0], "event": "message", "game_id": table.id, "version": version,
                        "from_name": "alice", "text": "Good luck, all!"}
    receiver.check_signatures(bob_profile["webhook_secret"])

    # Bob answers: alice gets one email naming him and quoting him.
    meeple.post_message(bob, table.id, "Thanks!")
    queued = Queue("notify", connection=meeple.redis).count
    assert queued == 1  # alice only: bob wrote it, carol chose "none"
    run_worker(meeple)
    # (a maildir is not in order: tell the new one by its Message-ID)
    mails = [m for m in emails(maildir) if m["Message-ID"] not in mails_before]
    assert len(mails) == 1
    assert of_game(mails, table.id, "message") == mails
    assert mails[0]["Subject"] == f"bob wrote at the table of {table.game.title} #{table.id[:6]}"
    assert "\u201cThanks!\u201d" in text_of(mails[0]) and "Thanks!" in html_of(mails[0])
    assert str(mails[0]["Reply-To"]).startswith("talk+")  # a reply answers at the table
    # The same delivery run again sends nothing more.
    latest = meeple.load(table.id).version
    assert notify_player(table.id, latest, alice.id, "message") == "already sent"
    run_worker(meeple)
    assert len(emails(maildir)) == len(mails_before) + 1
    assert len(receiver.delivered()) == hooks_before + 1
