"""Bot turns and scoring run by a real RQ worker on the test redis."""

from __future__ import annotations

import time

import pytest
from rq import Queue, SimpleWorker

from events.accounts.players import Player
from events.application.dispatch import RQDispatcher
from events.application.meeple import Meeple
from events.domain.table import Status
from events.readmodels.ratings import Ratings
from games.bots import FLOOR_MS, RANDOM, Level, move_floor, random_move
from games.rng import Rng
from workers import jobs
from workers.jobs import _count_thinking, play_bot_turn, score_game

RP = "res-publica-2230ad"


@pytest.fixture()
def app(redis_url, redis_client, monkeypatch) -> Meeple:
    monkeypatch.setenv("MEEPLE_REDIS_URL", redis_url)  # the jobs read it, as in production
    return Meeple(redis_client, RQDispatcher(redis_client))


def run_worker(app: Meeple) -> None:
    # SimpleWorker runs jobs in the worker process (no fork per job): same RQ machinery,
    # fast enough for games of hundreds of bot moves.
    queues = [Queue(name, connection=app.redis) for name in ("ai", "scoring")]
    SimpleWorker(queues, connection=app.redis).work(burst=True)


def types_of(app: Meeple, game_id: str) -> list[str]:
    return [e["type"] for e in app.events(game_id)]


def test_five_bots_finish_a_game_through_the_workers(app):
    table = app.create_game(Player("p_host", "host"), RP, 5, bots=[0, 1, 2, 3, 4], join=False)
    assert table.status is Status.ACTIVE
    run_worker(app)
    final = app.load(table.id)
    assert final.status is Status.ENDED
    types = types_of(app, table.id)
    assert types[-3:] == ["GameEnded", "SeedRevealed", "GameScored"]
    assert types.count("GameScored") == 1


def test_a_duplicate_or_stale_bot_job_changes_nothing(app):
    table = app.create_game(Player("p_host", "host"), RP, 2, bots=[0], join=True)
    run_worker(app)  # the bot plays until it is the human's turn
    after = app.load(table.id)
    assert after.version > table.version and 1 in after.actors()
    assert play_bot_turn(table.id, table.version, 0) == "stale"
    assert play_bot_turn(table.id, after.version, 0) == "stale"  # not the bot's turn
    assert app.load(table.id).version == after.version


def play_to_end(app: Meeple, game_id: str, players: dict[int, Player]) -> None:
    rng = Rng(b"test", 0)
    for _ in range(20_000):
        table = app.load(game_id)
        if table.status is Status.ENDED:
            return
        seat = table.actors()[0]
        assert table.state is not None
        move = random_move(table.game, table.state, seat, rng)
        app.play_moves(players[seat], game_id, [move], table.version, seat)
    raise AssertionError("the game did not end")


def test_scoring_rates_humans_once_and_fills_the_leaderboard(app):
    alice, bob = Player("p_alice", "alice"), Player("p_bob", "bob")
    table = app.create_game(alice, RP, 2)
    app.join_game(bob, table.id)
    play_to_end(app, table.id, {0: alice, 1: bob})
    run_worker(app)
    assert score_game(table.id) == "already scored"  # a retry or duplicate changes nothing
    assert types_of(app, table.id).count("GameScored") == 1
    scored = app.load(table.id)
    assert scored.ratings is not None
    assert {r["player_id"] for r in scored.ratings} == {"p_alice", "p_bob"}
    board = Ratings(app.redis).leaderboard(RP)
    assert {row["player_id"] for row in board} == {"p_alice", "p_bob"}
    ranks = {row["seat"]: row["rank"] for row in scored.result["seats"]}
    if ranks[0] != ranks[1]:  # a tie (rare) leaves both equal
        winner = "p_alice" if ranks[0] < ranks[1] else "p_bob"
        assert board[0]["player_id"] == winner


TRAPPIST = "trappist-one"


def test_bots_play_at_their_levels_and_the_leaderboard_lists_them_by_level(app):
    """Issue 17: "A table chooses per bot seat (...); the game shows each bot's level; the
    leaderboard lists bots by level"."""
    bots = [{"seat": 0, "level": "greedy"}, {"seat": 1, "level": "ismcts-3it"}]
    table = app.create_game(Player("p_host", "host"), TRAPPIST, 2, bots=bots, join=False)
    assert [(s.player_id, table.bot_level(s.seat)) for s in table.seats] == [
        ("bot:greedy", Level.parse("greedy")), ("bot:ismcts-3it", Level.parse("ismcts-3it"))]
    run_worker(app)
    assert app.load(table.id).status is Status.ENDED
    authors = {e["by"] for e in app.events(table.id) if e["type"] == "MovePlayed"}
    assert authors == {"bot:greedy", "bot:ismcts-3it"}
    board = Ratings(app.redis).leaderboard(TRAPPIST)
    assert sorted((row["player_id"], row["bot"], row["level"]) for row in board) == [
        ("bot:greedy", True, "greedy"), ("bot:ismcts-3it", True, "ismcts-3it")]
    counted = app.redis.hgetall("meeple:ai:moves")
    assert set(counted) == {b"greedy", b"ismcts-3it"}
    assert sum(int(n) for n in counted.values()) == len(
        [e for e in app.events(table.id) if e["type"] == "MovePlayed"])


def test_a_bot_at_a_human_table_is_rated_with_the_people(app, monkeypatch):
    monkeypatch.setattr("games.bots.FLOOR_MS", 0)  # its moves' timing is not what is tested
    alice = Player("p_alice", "alice")
    table = app.create_game(alice, TRAPPIST, 2, bots=[{"seat": 1, "level": "greedy"}])
    for _ in range(2000):  # alice plays random moves, the greedy bot its own
        run_worker(app)
        table = app.load(table.id)
        if table.status is Status.ENDED:
            break
        assert table.state is not None and table.actors() == [0]
        move = random_move(table.game, table.state, 0, Rng(b"alice", table.version))
        app.play_moves(alice, table.id, [move], table.version, 0)
    run_worker(app)
    rows = app.load(table.id).ratings
    assert rows is not None and {r["player_id"] for r in rows} == {"p_alice", "bot:greedy"}


def test_a_bot_move_over_its_time_budget_is_counted(app):
    _count_thinking(app, "g1", 0, Level.parse("ismcts-100ms"), 0.119)  # within 20 %
    _count_thinking(app, "g1", 0, Level.parse("ismcts-100ms"), 0.121)
    _count_thinking(app, "g1", 0, Level.parse("ismcts-50it"), 9.0)  # no time budget
    assert app.redis.hgetall("meeple:ai:moves") == {b"ismcts-100ms": b"2", b"ismcts-50it": b"1"}
    assert app.redis.hgetall("meeple:ai:over_budget") == {b"ismcts-100ms": b"1"}


def test_searching_bots_play_greedy_once_their_games_thinking_time_is_spent(app, monkeypatch):
    """Two ismcts-200ms bots at a table of their own: after 1 s of thinking in all
    (MEEPLE_BOT_THINKING_SECONDS) they play greedy, so the game's cost is bounded; the moves
    so played are counted, and the total the game thought stays within one move of it."""
    monkeypatch.setenv("MEEPLE_BOT_THINKING_SECONDS", "1")
    bots = [{"seat": 0, "level": "ismcts-200ms"}, {"seat": 1, "level": "ismcts-200ms"}]
    table = app.create_game(Player("p_host", "host"), RP, 2, bots=bots, join=False)
    run_worker(app)
    assert app.load(table.id).status is Status.ENDED
    moves = int(app.redis.hget("meeple:ai:moves", "ismcts-200ms"))
    at_greedy = int(app.redis.hget("meeple:ai:thinking_spent", "ismcts-200ms"))
    assert 0 < at_greedy < moves
    thought = float(app.redis.get(f"meeple:ai:thinking:{table.id}"))
    # 1 s and the move that crossed the line. That move may take several times its 200 ms
    # on a loaded box (1.08 s in a full `make test`, two test processes on two cores), so 2 s:
    # the bound still tells a cap kept from one not kept, since the moves played at greedy
    # (some 300 of a game's 305 here) would have thought for a minute at 200 ms each.
    assert at_greedy >= 50
    assert 1.0 <= thought < 1.0 + 2.0
    assert 0 < app.redis.ttl(f"meeple:ai:thinking:{table.id}") <= 30 * 24 * 3600


def test_a_private_game_leaves_the_public_leaderboard_alone(app):
    """A private table shows itself to its seats alone: rating changes on the public
    leaderboard would tell anyone who played whom and who won (outside audit)."""
    alice, bob = Player("p_alice", "alice"), Player("p_bob", "bob")
    table = app.create_game(alice, RP, 2, public=False)
    app.join_game(bob, table.id)
    play_to_end(app, table.id, {0: alice, 1: bob})
    run_worker(app)
    assert app.load(table.id).ratings == []  # scored: unrated, once
    assert types_of(app, table.id).count("GameScored") == 1
    assert Ratings(app.redis).leaderboard(RP) == []


def test_a_game_no_person_moved_in_is_not_rated(app):
    """Two accounts resigning against each other, the stand-ins playing it all, farmed a
    rating in seconds (outside audit): a game with people and none of their moves is
    unrated."""
    alice, bob = Player("p_alice", "alice"), Player("p_bob", "bob")
    table = app.create_game(alice, TRAPPIST, 2)
    app.join_game(bob, table.id)
    app.resign(bob, table.id)
    app.resign(alice, table.id)
    run_worker(app)
    ended = app.load(table.id)
    assert ended.status is Status.ENDED and ended.ratings == []
    assert Ratings(app.redis).leaderboard(TRAPPIST) == []


def test_table_talk_while_a_bot_thinks_does_not_throw_its_move_away(app, monkeypatch):
    """Table talk "changes neither the state nor whose turn it is": a message posted while a
    searching bot thinks lets its move stand (outside audit: chat every few seconds kept an
    ismcts-5000ms bot from ever moving, each search thrown away and counted)."""
    alice = Player("p_alice", "alice")
    table = app.create_game(alice, RP, 2, bots=[{"seat": 0, "level": "ismcts-50ms"}])
    assert table.actors() == [0]  # the bot's turn
    real = jobs.bot_move

    def thinking_while_alice_chats(*args, **kwargs):
        app.post_message(alice, table.id, "take your time, bot")
        app.post_message(alice, table.id, "really")
        return real(*args, **kwargs)

    monkeypatch.setattr(jobs, "bot_move", thinking_while_alice_chats)
    assert play_bot_turn(table.id, table.version, 0) == "played"
    after = app.events(table.id, table.version + 1)
    assert [e["type"] for e in after] == ["MessagePosted", "MessagePosted", "MovePlayed"]


def _timed_bot_turns(app: Meeple, table_id: str, people: dict[int, Player]
                     ) -> list[tuple[int, float]]:
    """(legal moves, seconds) of each bot turn until one with a single legal move and one
    with several were seen; the people play random moves meanwhile."""
    timed: list[tuple[int, float]] = []
    for _ in range(400):
        table = app.load(table_id)
        assert table.status is Status.ACTIVE and table.state is not None
        seat = table.actors()[0]
        if seat in people:
            move = random_move(table.game, table.state, seat, Rng(b"people", table.version))
            app.play_moves(people[seat], table_id, [move], table.version, seat)
            continue
        choices = len(table.game.legal_moves(table.state, seat))
        began = time.monotonic()
        assert play_bot_turn(table_id, table.version, seat) == "played"
        timed.append((choices, time.monotonic() - began))
        if {n == 1 for n, _ in timed} == {True, False}:
            return timed
    raise AssertionError(f"no forced and unforced bot turn in 400 moves: {timed}")


def test_a_bots_move_at_a_table_with_people_comes_no_sooner_when_it_is_forced(app):
    """Hidden information never leaks, timing included (outside rules audit, session 38: a
    Trappist One bot with no card of the hired worker's clan has one legal move, `skip`, and
    played it at once, where holding one it searched its whole budget; every MovePlayed
    carries its time). At a table with people, every bot move waits out its floor."""
    alice = Player("p_alice", "alice")
    table = app.create_game(alice, RP, 2, bots=[{"seat": 1, "level": "greedy"}])
    timed = _timed_bot_turns(app, table.id, {0: alice})
    floor = move_floor(Level.parse("greedy"))
    assert floor == FLOOR_MS / 1000
    assert all(seconds >= floor for _, seconds in timed), timed
    # A time budget and its overrun are waited out, even on a seat's only move.
    assert move_floor(Level.parse("ismcts-300ms")) == pytest.approx(0.36)  # 1.2 x the budget
    assert move_floor(RANDOM) == 0.0


def test_bots_among_themselves_move_as_soon_as_they_have_chosen(app):
    table = app.create_game(Player("p_host", "host"), RP, 2,
                            bots=[{"seat": 0, "level": "greedy"}, {"seat": 1, "level": "greedy"}],
                            join=False)
    timed = _timed_bot_turns(app, table.id, {})
    assert min(seconds for n, seconds in timed if n == 1) < move_floor(Level.parse("greedy"))
