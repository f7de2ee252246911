"""Trajan by post (issue 14, Deliver 5 and 6): turn emails over real SMTP (an aiosmtpd server
stands for the players' mail provider), replies by SMTP to `meeple smtpd`'s handler on a real
socket, the `notify` (and `ai`) queues run by a real RQ worker, deadlines by RQ's scheduler.

- A turn email lists the seat's legal moves with their codes, and shows every mat in words a
  person can read: the six trays by name with their markers' colours, and the mat's lines
  ("Seaport: orange, blue [Trajan tile I: ...]"), as the game's view gives them; of the
  commodity hands, only the seat's own. A reply with a code plays that move; the seat, which
  acts on (a Trajan turn is many moves), gets the next email. The whole setup and a turn's
  first moves are played so, by email alone.
- Deadlines: a seat that starts its turn and then lets it run out gets the table's rule: under
  "bot" a bot finishes that turn (that turn only: the next one is its player's again, who is
  asked), under "resign" the seat resigns and the bot plays it on.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
import redis
from flask import Flask

from events.accounts.players import Player
from events.application.dispatch import RQDispatcher
from events.application.meeple import Meeple
from events.domain.deadlines import due, parse_time, reminder_time
from events.domain.table import Status, Table
from tests.workers.by_post import (
    Mail,
    Provider,
    assert_is_a_turn_email,
    people,
    reply,
    run_worker,
    sleep_until,
    turn_emails,
)
from tests.workers.helpers import sections

TRAJAN = "trajan"
SETUP = 18  # moves: 3 seats take 3 starting cards, then 3 starting Trajan tiles, one by one
SECONDS_PER_MOVE = 5  # the reminder goes out 1.25 s before the deadline


def seated(app: Meeple, who: dict[int, tuple[Player, str]],
           deadline: dict[str, Any] | None = None) -> Table:
    table = app.create_game(who[0][0], TRAJAN, 3, deadline=deadline)
    for seat in (1, 2):
        table = app.join_game(who[seat][0], table.id, seat)
    assert table.status is Status.ACTIVE and table.actors() == [0]
    return table


def seat_section(text: str, table: Table, seat: int, viewer: int) -> list[str]:
    """The lines of the email's table about `seat` (the viewer's own: "You (<name>)")."""
    name = table.names()[seat]
    return sections(text)[f"You ({name})" if seat == viewer else name]


def mat_of(lines: list[str]) -> list[str]:
    """The action mat's lines in a seat's section: those indented below "Action mat:", each
    long one put together again (the email breaks it before its "[Trajan tile ...]")."""
    start = lines.index("Action mat:") + 1
    mat: list[str] = []
    for line in lines[start:]:
        if line.startswith("    ["):
            mat[-1] += " " + line.strip()
        elif line.startswith("  "):
            mat.append(line.strip())
        else:
            break
    return mat


def assert_shows_the_mats(text: str, view: dict[str, Any], table: Table, viewer: int) -> None:
    """Every seat's mat as the view gives it: the trays in their circle, each by its name
    with its markers' colours, and the mat's readable lines, one per tray."""
    for entry in view["players"]:
        seat = entry["seat"]
        mat = mat_of(seat_section(text, table, seat, viewer))
        if entry["arch"] == "centre":
            assert mat.pop() == "Trajan arch: in the centre (every slot is full)"
        assert len(mat) == len(entry["trays"]) == 6, f"seat {seat}'s trays"
        for shown, tray, line in zip(mat, entry["trays"], entry["mat"], strict=True):
            markers = ", ".join(tray["markers"]).replace("_", " ") or "empty"
            assert shown == line, (seat, tray, shown)
            assert line.startswith(f"{tray['name']}: {markers}"), (seat, tray, line)
    assert "{'" not in text and "[{" not in text  # no raw data for a person


def assert_shows_one_hand(text: str, view: dict[str, Any], table: Table, seat: int) -> None:
    """The seat's own commodity hand by card; of every other seat, only its size (and the
    cards all saw it take from a discard pile)."""
    for entry in view["players"]:
        hands = [line for line in seat_section(text, table, entry["seat"], seat)
                 if line.startswith("Hand: ")]
        assert len(hands) == 1, hands
        if entry["seat"] == seat:
            cards = ", ".join(f"{n} {card}" for card, n in entry["hand"].items())
            assert hands[0] == f"Hand: {cards or 'none'}", (entry["hand"], hands)
        else:
            assert "hand" not in entry
            size = entry["hand_size"]
            assert re.fullmatch(rf"Hand: {size} cards?(, known: .+)?", hands[0]), hands
    assert len(re.findall(r"^ +Hand: ", text, re.MULTILINE)) == len(view["players"])


def assert_lists_the_moves(mail: Mail, table: Table, seat: int) -> None:
    """The email is written at the table's version for `seat`, with the seat's prompt, lists
    exactly that seat's legal moves, numbered from 1, shows the mats, and one hand: its own."""
    assert table.state is not None
    legal = table.game.legal_moves(table.state, seat)
    view = table.game.view(table.state, seat)
    assert legal and view["prompt"]
    assert_is_a_turn_email(mail, table, seat)
    assert mail.listed() == [(code, move["id"]) for code, move in enumerate(legal, start=1)]
    assert len(sections(mail.text)["Your moves"]) == len(legal)
    assert_shows_the_mats(mail.text, view, table, seat)
    assert_shows_one_hand(mail.text, view, table, seat)


# --- a turn by email ------------------------------------------------------------------------


def test_turn_emails_list_the_moves_show_the_mats_and_a_reply_with_a_code_plays_it(
        flask_app: Flask, meeple: Meeple, provider: Provider, smtpd: int) -> None:
    who = people(meeple.redis, meeple)
    table = seated(meeple, who)
    run_worker(meeple.redis)
    # Seat 0 begins (its starting cards): it alone is asked.
    (first,) = turn_emails(provider, who[0][1], game_id=table.id)
    assert_lists_the_moves(first, table, 0)
    assert not turn_emails(provider, who[1][1]) and not turn_emails(provider, who[2][1])

    # The whole setup and then turns, by email alone: each reply answers the newest email of
    # the seat that acts, with a code of its list; each seat acting on is emailed again.
    rng = random.Random(14)
    asked = first
    phases: list[str] = []
    replies = 0
    while table.state is not None and (table.state["phase"] != "choose" or replies <= SETUP):
        (seat,) = table.actors()
        player, address = who[seat]
        code, move_id = rng.choice(asked.listed())
        sent = provider.count()
        assert reply(smtpd, asked, address, f"{code}") == "played"
        replies += 1
        run_worker(meeple.redis)
        table = meeple.load(table.id)
        played = meeple.events(table.id, table.version, table.version)[0]
        assert played["type"] == "MovePlayed" and played["by"] == player.id
        assert played["data"]["seat"] == seat and played["data"]["move"] == {"id": move_id}
        assert table.state is not None and table.status is Status.ACTIVE
        if table.state["phase"] == "choose" and "choose" not in phases:
            # The setup is over: each seat's 3 Trajan tiles lie beside its trays II, IV and
            # VI, as the mats say (each line: a tray, its markers, the tile beside it).
            mats = table.game.view(table.state, None)["players"]
            assert [sum("[Trajan tile" in line for line in entry["mat"])
                    for entry in mats] == [3, 3, 3]
        phases.append(table.state["phase"])
        (now,) = table.actors()
        # One new turn email, to the seat that acts now (the same one or the next), at the
        # new version; nobody else hears of the move.
        (asked,) = turn_emails(provider, who[now][1], since=sent, game_id=table.id)
        assert_lists_the_moves(asked, table, now)
        assert provider.count() == sent + 1
    assert "start_trajan" in phases and "choose" in phases and "sow" in phases, phases
    print(f"\n{replies} replies")


# --- deadlines ------------------------------------------------------------------------------


def keeps_acting(table: Table, seat: int, seed: bytes) -> dict[str, Any]:
    """A legal first move of `seat`'s turn after which this turn goes on (played with the
    rng the platform gives the next move)."""
    assert table.state is not None
    turn = table.game.turn(table.state, seat)
    for move in table.game.legal_moves(table.state, seat):
        after, _ = table.game.play(table.state, seat, move, table.move_rng(seed))
        if seat in table.game.actors(after) and table.game.turn(after, seat) == turn:
            return {"id": move["id"]}
    raise AssertionError("every first move ends the turn")


def play_setup(app: Meeple, table: Table, who: dict[int, tuple[Player, str]]) -> Table:
    """The starting cards and Trajan tiles, the first legal move each time."""
    while table.state is not None and table.state["phase"].startswith("start"):
        (seat,) = table.actors()
        move = table.game.legal_moves(table.state, seat)[0]
        table = app.play_moves(who[seat][0], table.id, [{"id": move["id"]}], table.version,
                               seat).table
    return table


@pytest.mark.parametrize("on_expiry", ["bot", "resign"])
def test_a_seat_that_lets_its_turn_run_out_gets_the_tables_consequence(
        flask_app: Flask, redis_client: redis.Redis, provider: Provider, on_expiry: str) -> None:
    app = Meeple(redis_client, RQDispatcher(redis_client), min_move_seconds=1)
    who = people(redis_client, app)
    rule = {"hours": SECONDS_PER_MOVE / 3600, "on_expiry": on_expiry}
    table = play_setup(app, seated(app, who, deadline=rule), who)
    late = 0  # the first player: it takes a tray's markers, then lets the turn run out
    assert table.state is not None and table.state["phase"] == "choose"
    assert table.actors() == [late]
    clock = table.clock_of(late)
    timing = table.deadline
    assert clock is not None and clock.version == table.version and timing is not None
    started, turn = clock.version, table.game.turn(table.state, late)
    seed = app.store.get_seed(table.id)
    assert seed is not None
    first = keeps_acting(table, late, seed)
    table = app.play_moves(who[late][0], table.id, [first], table.version, late).table
    assert table.actors() == [late] and table.clock_of(late) == clock  # the turn's own clock
    run_worker(redis_client)
    sent = provider.count()

    # The reminder goes to the late seat alone (the setup's turns are over).
    sleep_until(reminder_time(clock, timing).timestamp() + 0.2)
    run_worker(redis_client, scheduler=True)
    assert app.load(table.id).version == table.version
    (reminder,) = provider.to(who[late][1], since=sent)
    assert reminder.is_about(table.id, "deadline_reminder")
    assert reminder.subject == (f"Reminder: your move in Trajan #{table.id[:6]} is due at "
                                f"{table.due_at(late)}")
    then = "a bot plays this turn for you" if on_expiry == "bot" else "your seat resigns"
    assert then in reminder.text
    assert provider.count() == sent + 1

    # The deadline passes: RQ's scheduler runs the expiry, and the table's rule follows.
    sleep_until(due(clock, timing).timestamp() + 1.3)
    run_worker(redis_client, scheduler=True)
    after = app.load(table.id)
    log = app.events(table.id, table.version + 1)
    assert log[0]["type"] == "TurnTimedOut"
    assert log[0]["data"] == {"seat": late, "started": started}
    moves = [e for e in log if e["type"] == "MovePlayed"]
    assert moves and all(e["by"] == "system" for e in moves)
    assert {e["data"]["seat"] for e in moves} == {late}  # nobody else is played for
    if on_expiry == "bot":
        assert log[1]["type"] == "MovePlayed"
        assert after.resigned == () and not after.bot_played(late)
    else:
        assert log[1]["type"] == "PlayerResigned" and log[1]["data"] == {"seat": late}
        assert after.resigned == (late,) and after.bot_played(late)
    # The rest of that turn was played for it, and no more: its turn is over, and the next
    # player is asked, with its own deadline.
    assert after.status is Status.ACTIVE and after.state is not None
    assert late not in after.actors() or after.game.turn(after.state, late) != turn
    (nxt,) = after.actors()
    assert nxt != late and not after.bot_played(nxt)
    if on_expiry == "bot":
        finished = app.table_at(table.id, moves[-1]["v"])
        assert finished.state is not None and late not in finished.actors()
    zero = after.clock_of(nxt)
    assert zero is not None and zero.version > started
    assert parse_time(zero.at) > parse_time(clock.at)
    (asked,) = turn_emails(provider, who[nxt][1], since=sent, game_id=table.id)
    assert_lists_the_moves(asked, after, nxt)
    assert f"Your move is due at {after.due_at(nxt)}" in asked.text

    # Later, at the late seat's next turn: under "bot" it is its player's again, who is
    # asked; under "resign" the system plays it, and its player hears nothing.
    rng = random.Random(3)
    table = after
    while table.status is Status.ACTIVE and table.state is not None \
            and late not in table.actors():
        (seat,) = table.actors()
        move = rng.choice(table.game.legal_moves(table.state, seat))
        table = app.play_moves(who[seat][0], table.id, [{"id": move["id"]}], table.version,
                               seat).table
    assert table.status is Status.ACTIVE
    sent = provider.count()
    run_worker(redis_client)
    table = app.load(table.id)
    if on_expiry == "bot":
        assert table.actors() == [late] and not table.bot_played(late)
        (asked,) = turn_emails(provider, who[late][1], since=sent, game_id=table.id)
        assert_lists_the_moves(asked, table, late)
    else:
        assert late not in table.actors()  # played for it, to the end of its turn
        assert provider.to(who[late][1], since=sent) == []
        theirs = [e for e in app.events(table.id) if e["type"] == "MovePlayed"
                  and e["data"]["seat"] == late and e["v"] > log[-1]["v"]]
        assert theirs and all(e["by"] == "system" for e in theirs)
