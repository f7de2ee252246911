"""Trappist One by post: turn emails over real SMTP (an aiosmtpd server stands for the
players' mail provider), replies by SMTP to `meeple smtpd`'s handler on a real socket, the
`notify` (and `ai`) queues run by a real RQ worker, deadlines by RQ's scheduler.

- The starting choice: every seat is an actor at once, so every seat gets its turn email at
  once, with its picks and their codes; each answers its pick by replying; a pick tells the
  others nothing (no email goes out); the reveal happens when the last reply is in.
- Reactions: a seat that becomes an actor out of turn (a Biocultist ship of a clan it reacts
  to is called) is asked by email, answers by email, and the caller is asked to go on.
- Deadlines: one seat lets the starting choice run out; the table's rule follows ("bot": a
  bot picks for it; "resign": the seat resigns, the bot plays it on) and the game goes on.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
import redis
from flask import Flask
from rq.registry import ScheduledJobRegistry

from events.accounts.players import Player
from events.application.dispatch import RQDispatcher
from events.application.meeple import Meeple
from events.domain.deadlines import due, parse_time, reminder_time
from events.domain.table import Status, Table
from games.contract import Game, Move, State
from games.trappist_one.board import INVESTMENT, abilities
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
from tests.workers.helpers import first_legal_move, sections

TRAPPIST = "trappist-one"


def seated(app: Meeple, who: dict[int, tuple[Player, str]],
           deadline: dict[str, Any] | None = None) -> Table:
    table = app.create_game(who[0][0], TRAPPIST, 3, deadline=deadline)
    for seat in (1, 2):
        table = app.join_game(who[seat][0], table.id, seat)
    assert table.status is Status.ACTIVE and table.actors() == [0, 1, 2]
    assert table.state is not None and table.state["phase"] == "choose"
    return table


def own_lines(mail: Mail, table: Table, seat: int, pattern: str) -> list[str]:
    """The lines of the email's table matching `pattern` (a regex, at a line's start),
    after checking that they are all in the seat's own section ("You (<name>)")."""
    found = re.findall(rf"^ +({pattern}.*)$", mail.text, re.MULTILINE)
    own = sections(mail.text)[f"You ({table.names()[seat]})"]
    assert all(line in own for line in found), (found, own)
    return found


def code_of(mail: Mail, move_id: str) -> int:
    return next(code for code, listed in mail.listed() if listed == move_id)


def assert_lists_the_moves(mail: Mail, table: Table, seat: int) -> None:
    """The email is written at the table's version for `seat`, with the seat's prompt, and
    lists exactly that seat's legal moves, numbered from 1; it shows one hand: its own."""
    assert table.state is not None
    legal = table.game.legal_moves(table.state, seat)
    assert legal
    assert_is_a_turn_email(mail, table, seat)
    assert mail.listed() == [(code, move["id"]) for code, move in enumerate(legal, start=1)]
    assert len(sections(mail.text)["Your moves"]) == len(legal)
    # The hand's cards (and the secret pick) of the seat alone; of the others, hand sizes.
    assert len(own_lines(mail, table, seat, "Mega-factory cards: ")) == 1
    assert len(own_lines(mail, table, seat, "Cargo ships in hand")) == 1
    assert len(own_lines(mail, table, seat, "Chosen for Capital One: ")) <= 1


# --- the starting choice by email -----------------------------------------------------------


def test_every_seat_is_asked_for_its_pick_at_once_and_the_last_reply_reveals(
        flask_app: Flask, meeple: Meeple, provider: Provider, smtpd: int) -> None:
    who = people(meeple.redis, meeple)
    table = seated(meeple, who)
    run_worker(meeple.redis)
    # All three are actors from the start: each gets one turn email, at once, with its picks.
    asked = {}
    for seat, (_, address) in who.items():
        mails = turn_emails(provider, address)
        assert len(mails) == 1, f"seat {seat} got {len(mails)} turn emails at the start"
        assert_lists_the_moves(mails[0], table, seat)
        assert all(move_id.startswith("pick:") for _, move_id in mails[0].listed())
        asked[seat] = mails[0]
    assert provider.count() == 3

    # Each answers its email; seat 0 is the last. Until then nothing is revealed and nobody
    # is told anything (a pick makes no one an actor).
    order = [1, 2, 0]
    picks: dict[int, str] = {}
    for turn, seat in enumerate(order):
        player, address = who[seat]
        listed = asked[seat].listed()
        code, picks[seat] = listed[(3 * seat + 1) % len(listed)]
        sent = provider.count()
        outcome = reply(smtpd, asked[seat], address, str(code))
        run_worker(meeple.redis)
        # Another seat's pick may have come first: the email stays good, since this seat's
        # moves are listed as they were (events/mail/email_replies.py, `_same_choice`).
        assert outcome == "played", f"seat {seat}"
        table = meeple.load(table.id)
        played = meeple.events(table.id, table.version, table.version)[0]
        assert played["type"] == "MovePlayed" and played["by"] == player.id
        assert played["data"]["seat"] == seat and played["data"]["move"] == {"id": picks[seat]}
        assert table.state is not None
        if turn < len(order) - 1:
            assert table.state["phase"] == "choose"
            assert table.actors() == sorted(order[turn + 1:])
            assert provider.count() == sent, "a pick made someone get an email"
    # The last reply revealed all three picks together, and the game goes on with seat 0.
    assert table.state is not None and table.state["phase"] == "benefit"
    facts = meeple.events(table.id, table.version, table.version)[0]["data"]["facts"]
    (reveal,) = [f for f in facts if "choices" in f["data"]]
    assert reveal["to"] == "all"
    for seat, move_id in picks.items():
        assert sorted(reveal["data"]["choices"][str(seat)]) == sorted(move_id[5:].split("-"))
    assert table.actors() == [0]
    (benefit,) = turn_emails(provider, who[0][1], since=3)
    assert_lists_the_moves(benefit, table, 0)
    assert not turn_emails(provider, who[1][1], since=3)
    assert not turn_emails(provider, who[2][1], since=3)


# --- a reaction out of turn -----------------------------------------------------------------


def react_cards(state: State, seat: int) -> set[str]:
    """The clans whose ship calls `seat` reacts to (games/trappist_one: `react_clan_draw`)."""
    return {str(spec["react_clan_draw"]) for _, spec in abilities(state["seats"][seat])
            if "react_clan_draw" in spec}


def leaning(game: Game, state: State, seat: int, rng: random.Random) -> Move:
    """A random legal move, leaning to what makes a reaction: buying a card that reacts to a
    ship call, calling a ship of a clan another seat reacts to."""
    moves = game.legal_moves(state, seat)
    reacting = [m for m in moves if m.get("kind") == "buy" and m.get("card") in INVESTMENT
                and "react_clan_draw" in (INVESTMENT[m["card"]].get("ability") or {})]
    others = set().union(*(react_cards(state, s) for s in range(state["players"]) if s != seat))
    calls = [m for m in moves if m["id"].startswith("ship:") and m["id"][5:] in others]
    for preferred in (calls, reacting):
        if preferred and rng.random() < 0.9:
            return rng.choice(preferred)
    return rng.choice(moves)


def until_a_reaction(table: Table, seed: bytes, attempts: int = 60) -> list[tuple[int, str]]:
    """(seat, move id) from `table` on, as the platform would play them (each move drawing
    from its own random stream, `Table.move_rng`), up to the first ship call that makes
    another seat an actor out of turn; [] if none of `attempts` games finds one (a deal may
    keep the reacting cards out of reach)."""
    game = table.game
    for attempt in range(attempts):
        rng, state = random.Random(attempt), table.state
        assert state is not None
        plan: list[tuple[int, str]] = []
        while not game.is_over(state):
            seat = rng.choice(sorted(game.actors(state)))
            move = leaning(game, state, seat, rng)
            state, _ = game.play(state, seat, {"id": move["id"]}, table.move_rng(seed, len(plan)))
            plan.append((seat, move["id"]))
            if state["phase"] == "react":
                return plan
    return []


def test_a_seat_asked_out_of_turn_by_a_reaction_is_emailed_and_answers_by_email(
        flask_app: Flask, meeple: Meeple, provider: Provider, smtpd: int) -> None:
    who = people(meeple.redis, meeple)
    for _ in range(10):  # a deal where random play, leaning so, comes to a reaction
        table = seated(meeple, who)
        seed = meeple.store.get_seed(table.id)
        assert seed is not None
        plan = until_a_reaction(table, seed)
        if plan:
            break
    assert plan, "no deal came to a reaction"
    for seat, move_id in plan[:-1]:
        table = meeple.play_moves(who[seat][0], table.id, [{"id": move_id}], table.version,
                                  seat).table
    run_worker(meeple.redis)  # the notices of the game so far
    caller, call = plan[-1]
    assert call.startswith("ship:") and table.actors() == [caller]
    sent = provider.count()
    table = meeple.play_moves(who[caller][0], table.id, [{"id": call}], table.version,
                              caller).table
    assert table.state is not None and table.state["phase"] == "react"
    reactors = table.actors()
    assert reactors and caller not in reactors
    run_worker(meeple.redis)
    # Each seat with a reaction is asked by email, out of turn, for that decision; the caller,
    # who waits now, and the seats without a reaction get nothing.
    for seat in reactors:
        (asked,) = turn_emails(provider, who[seat][1], since=sent, game_id=table.id)
        assert_lists_the_moves(asked, table, seat)
        assert {move_id.split(":")[0] for _, move_id in asked.listed()} == {"react", "decline"}
    for seat in set(who) - set(reactors):
        assert provider.to(who[seat][1], since=sent) == []
    # They answer by email (a seat with several reactions is asked for each in turn); once
    # the last one is decided, the caller goes on, and is told.
    while table.state is not None and table.state["phase"] == "react":
        seat = table.actors()[0]
        asked = turn_emails(provider, who[seat][1], since=sent, game_id=table.id)[-1]
        used = next(move_id for _, move_id in asked.listed() if move_id.startswith("react:"))
        before = provider.count()
        assert reply(smtpd, asked, who[seat][1], str(code_of(asked, used))) == "played"
        run_worker(meeple.redis)
        table = meeple.load(table.id)
        played = meeple.events(table.id, table.version, table.version)[0]
        assert (played["data"]["seat"], played["data"]["move"]) == (seat, {"id": used})
        assert played["by"] == who[seat][0].id
        if table.state is not None and table.state["phase"] == "react":
            assert provider.to(who[caller][1], since=before) == []
    assert table.state is not None and table.state["phase"] != "react"
    assert caller in table.actors()
    (going_on,) = turn_emails(provider, who[caller][1], since=sent, game_id=table.id)
    assert_lists_the_moves(going_on, table, caller)


# --- deadlines during the starting choice ---------------------------------------------------

SECONDS_PER_MOVE = 4  # the reminder goes out a second before the deadline


def scheduled_expiries(client: redis.Redis) -> set[str]:
    return {job_id for job_id in ScheduledJobRegistry("notify", connection=client).get_job_ids()
            if job_id.startswith("expire-")}


@pytest.mark.parametrize("on_expiry", ["bot", "resign"])
def test_a_seat_that_lets_the_starting_choice_expire_gets_the_tables_consequence(
        flask_app: Flask, redis_client: redis.Redis, provider: Provider, on_expiry: str) -> None:
    app = Meeple(redis_client, RQDispatcher(redis_client), min_move_seconds=1)
    who = people(redis_client, app)
    rule = {"hours": SECONDS_PER_MOVE / 3600, "on_expiry": on_expiry}
    table = seated(app, who, deadline=rule)
    started = table.version
    # Every seat is on the clock at once, from the start, with its own expiry scheduled.
    assert [(c.seat, c.version) for c in table.clocks] == [(s, started) for s in range(3)]
    assert scheduled_expiries(redis_client) == {f"expire-{table.id}-{s}-{started}"
                                                for s in range(3)}
    run_worker(redis_client)
    late = 2  # carol lets it run out; alice and bob pick at once
    for seat in (0, 1):
        move = first_legal_move(table, seat)
        table = app.play_moves(who[seat][0], table.id, [{"id": move["id"]}], table.version,
                               seat).table
    assert table.actors() == [late] and [c.seat for c in table.clocks] == [late]
    clock = table.clock_of(late)
    assert clock is not None and clock.version == started and table.deadline is not None
    sent = provider.count()

    # The reminder goes to the late seat alone (the others' turns are over).
    sleep_until(reminder_time(clock, table.deadline).timestamp() + 0.2)
    run_worker(redis_client, scheduler=True)
    assert app.load(table.id).version == table.version
    (reminder,) = provider.to(who[late][1], since=sent)
    assert reminder.is_about(table.id, "deadline_reminder")
    assert reminder.subject == (f"Reminder: your move in Trappist One #{table.id[:6]} is due "
                                f"at {table.due_at(late)}")
    then = "a bot plays this turn for you" if on_expiry == "bot" else "your seat resigns"
    assert then in reminder.text
    assert provider.count() == sent + 1

    # The deadline passes: RQ's scheduler runs the expiry, and the table's rule follows.
    sleep_until(due(clock, table.deadline).timestamp() + 1.3)
    run_worker(redis_client, scheduler=True)
    after = app.load(table.id)
    log = app.events(table.id, table.version + 1)
    assert log[0]["type"] == "TurnTimedOut"
    assert log[0]["data"] == {"seat": late, "started": started}
    moves = [e for e in log if e["type"] == "MovePlayed"]
    if on_expiry == "bot":
        assert [e["type"] for e in log[:2]] == ["TurnTimedOut", "MovePlayed"]
        assert after.resigned == () and not after.bot_played(late)
    else:
        assert log[1]["type"] == "PlayerResigned" and log[1]["data"] == {"seat": late}
        assert after.resigned == (late,) and after.bot_played(late)
    # A bot picked for the late seat (the system, never its player), which revealed the picks.
    (picked,) = [e for e in moves if e["data"]["seat"] == late]
    assert picked["by"] == "system" and picked["data"]["move"]["id"].startswith("pick:")
    assert any("choices" in f["data"] for f in picked["data"]["facts"])
    assert all(e["data"]["seat"] != late or e is picked for e in moves)  # no more than that
    # The game goes on: seat 0 is asked, with its own deadline.
    assert after.status is Status.ACTIVE and after.state is not None
    assert after.state["phase"] == "benefit" and after.actors() == [0]
    zero = after.clock_of(0)
    assert zero is not None and zero.version > started
    assert parse_time(zero.at) > parse_time(clock.at)
    (asked,) = turn_emails(provider, who[0][1], since=sent)
    assert_lists_the_moves(asked, after, 0)

    # Later, at the late seat's own turn: under "bot" it is its player's again, who is asked;
    # under "resign" the system plays it, and its player hears nothing but the end.
    rng = random.Random(3)
    table = after
    while table.status is Status.ACTIVE and table.state is not None \
            and table.state["active"] != late:
        seat = table.actors()[0]
        if not table.bot_played(seat):
            move = rng.choice(table.game.legal_moves(table.state, seat))
            table = app.play_moves(who[seat][0], table.id, [{"id": move["id"]}],
                                   table.version, seat).table
        else:
            run_worker(redis_client)
            table = app.load(table.id)
    assert table.status is Status.ACTIVE
    sent = provider.count()
    run_worker(redis_client)
    table = app.load(table.id)
    if on_expiry == "bot":
        assert table.actors() == [late] and not table.bot_played(late)
        (asked,) = turn_emails(provider, who[late][1], since=sent)
        assert_lists_the_moves(asked, table, late)
    else:
        assert table.state is not None and table.state["active"] != late  # played for it
        assert provider.to(who[late][1], since=sent) == []
        theirs = [e for e in app.events(table.id) if e["type"] == "MovePlayed"
                  and e["data"]["seat"] == late]
        assert len(theirs) > 1 and all(e["by"] == "system" for e in theirs)


# --- defects found by this file, now fixed --------------------------------------------------


def test_replies_to_the_first_emails_of_the_choice_are_all_played(
        flask_app: Flask, meeple: Meeple, provider: Provider, smtpd: int) -> None:
    who = people(meeple.redis, meeple)
    table = seated(meeple, who)
    run_worker(meeple.redis)
    asked = {seat: turn_emails(provider, address)[0] for seat, (_, address) in who.items()}
    # The three reply to the emails they got at the start, one after the other (as three
    # people do over a day); each picks what its email lists first.
    outcomes = [reply(smtpd, asked[seat], who[seat][1], "1") for seat in (1, 2, 0)]
    run_worker(meeple.redis)
    table = meeple.load(table.id)
    assert table.state is not None
    assert outcomes == ["played"] * 3 and table.state["phase"] == "benefit"


def last_to_choose(app: Meeple, who: dict[int, tuple[Player, str]],
                   rule: dict[str, Any]) -> Table:
    """A table on the clock where seats 1 and 2 have chosen: seat 0, the starting player,
    is the last to choose."""
    table = seated(app, who, deadline=rule)
    for seat in (1, 2):
        move = first_legal_move(table, seat)
        table = app.play_moves(who[seat][0], table.id, [{"id": move["id"]}], table.version,
                               seat).table
    assert table.actors() == [0]
    return table


def test_the_last_choosers_first_turn_has_its_own_time(
        flask_app: Flask, redis_client: redis.Redis, provider: Provider) -> None:
    app = Meeple(redis_client, RQDispatcher(redis_client), min_move_seconds=1)
    who = people(redis_client, app)
    table = last_to_choose(app, who, {"hours": 1, "on_expiry": "bot"})
    move = first_legal_move(table, 0)
    table = app.play_moves(who[0][0], table.id, [{"id": move["id"]}], table.version, 0).table
    assert table.state is not None and table.state["phase"] == "benefit"
    clock = table.clock_of(0)
    assert clock is not None and clock.version == table.version  # started at the reveal


def test_the_bot_makes_only_the_choice_that_ran_out(
        flask_app: Flask, redis_client: redis.Redis, provider: Provider) -> None:
    app = Meeple(redis_client, RQDispatcher(redis_client), min_move_seconds=1)
    who = people(redis_client, app)
    table = last_to_choose(app, who, {"hours": 1 / 3600, "on_expiry": "bot"})
    clock = table.clock_of(0)
    assert clock is not None and table.deadline is not None
    sleep_until(due(clock, table.deadline).timestamp() + 1.3)
    run_worker(redis_client, scheduler=True)
    log = app.events(table.id, table.version + 1)
    assert log[0]["type"] == "TurnTimedOut"
    bot_moves = [e["data"]["move"]["id"] for e in log if e["type"] == "MovePlayed"]
    assert len(bot_moves) == 1 and bot_moves[0].startswith("pick:"), bot_moves
    assert app.load(table.id).actors() == [0]  # its first turn is its player's
