"""The bots' evaluation (issue 17): every game's `evaluate(state)`, each seat's expected final
standing in [0, 1], held to its promises on random legal games, 2 to max players:
- one float in [0, 1] per seat, at every state, and on the states `determinize` samples;
- deterministic, and it changes nothing in the state it is given;
- at the end it agrees with the score sheet: the seats ranked first get the highest value, a
  better rank always a higher value, a shared rank the same value;
- a seat given a clear material lead mid-game (an edited copy of a real mid-game state) is
  valued higher than before.
Asking for Trobils also: capture power is what a seat can pay for (a pile of Carrots is not,
the scarcest resource is worth most, a greedy bot that can pay for a Trobil takes it), and
greedy bots in every seat finish their games (they once bumped each other on Planet Pomi for
ever).
"""

from __future__ import annotations

import copy
import json
import random
from functools import cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import pytest

from games.bots import Level, bot_move, bot_rng
from games.contract import Game, State
from games.registry import GAMES, RULES
from games.res_publica import evaluate as res_publica_evaluate
from games.rng import Rng
from games.search.ismcts import greedy

CASES = [(game_id, players) for game_id in sorted(GAMES)
         for players in range(GAMES[game_id].min_players, GAMES[game_id].max_players + 1)]
MAX_MOVES = 5_000  # far more than any of these random games takes


def seed_of(game_id: str, players: int) -> bytes:
    return f"evaluate/{game_id}/{players}".encode()


@cache
def playout(game_id: str, players: int) -> tuple[State, ...]:
    """Every state of one random legal game, from setup to the end: a seeded `random.Random`
    picks an actor and one of its legal moves; the game's randomness is `Rng(seed, version)`."""
    game = GAMES[game_id]
    seed = seed_of(game_id, players)
    pick = random.Random(seed)
    state = game.setup(players, {}, Rng(seed, 0))
    states = [state]
    for version in range(1, MAX_MOVES + 1):
        if game.is_over(state):
            return tuple(states)
        seat = pick.choice(sorted(game.actors(state)))
        move = pick.choice(game.legal_moves(state, seat))
        state, _ = game.play(state, seat, move, Rng(seed, version))
        states.append(state)
    raise AssertionError(f"{game_id} with {players} players did not end in {MAX_MOVES} moves")


@runtime_checkable
class Evaluates(Protocol):
    def evaluate(self, state: State) -> list[float]: ...


def evaluate(game: Game, state: State) -> list[float]:
    assert isinstance(game, Evaluates), f"{game!r} has no evaluate"
    return game.evaluate(state)


def assert_values(game: Game, state: State) -> list[float]:
    values = evaluate(game, state)
    assert isinstance(values, list) and len(values) == state["players"], values
    assert all(type(v) is float and 0.0 <= v <= 1.0 for v in values), values
    return list(values)


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_values_in_range_deterministic_and_pure(game_id: str, players: int) -> None:
    game = GAMES[game_id]
    states = playout(game_id, players)
    for index, state in enumerate(states):
        values = assert_values(game, state)
        if index % 10 == 0:
            before = json.dumps(state, sort_keys=True)
            assert evaluate(game, state) == values
            assert json.dumps(state, sort_keys=True) == before, "evaluate changed the state"


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_values_on_determinized_states(game_id: str, players: int) -> None:
    """The search evaluates the states `determinize` samples."""
    game = GAMES[game_id]
    states = [s for s in playout(game_id, players) if not game.is_over(s)]
    for k, state in enumerate(states[:: max(1, len(states) // 12)]):
        for seat in range(players):
            assert_values(game, game.determinize(state, seat, Rng(b"determinize", k)))


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_the_end_agrees_with_the_ranking(game_id: str, players: int) -> None:
    game = GAMES[game_id]
    final = playout(game_id, players)[-1]
    assert game.is_over(final)
    values = assert_values(game, final)
    ranks = {entry["seat"]: entry["rank"] for entry in game.score(final)["seats"]}
    best = max(values)
    for seat in range(players):
        assert (ranks[seat] == 1) == (values[seat] == best), (ranks, values)
        for other in range(players):
            if ranks[seat] < ranks[other]:
                assert values[seat] > values[other], (ranks, values)
            elif ranks[seat] == ranks[other]:
                assert values[seat] == values[other], (ranks, values)


# --- a clear material lead is worth more ---------------------------------------------------------


def lead_res_publica(state: State) -> None:
    """Seat 0 gains two Cities off the top of the pile (9 to 4 points each)."""
    for _ in range(2):
        pile = state["piles"]["city"]
        state["seats"][0]["cities"].append(pile.pop(0) if pile else 4)


def lead_trobils(state: State) -> None:
    """Seat 0 captures the two biggest Trobils still in the deck."""
    from games.asking_for_trobils.cards import is_city, points

    trobils = sorted((c for c in state["deck"] if not is_city(c)), key=points)[-2:]
    for card in trobils:
        state["deck"].remove(card)
        state["seats"][0]["trobils"].append(card)


def lead_trappist(state: State) -> None:
    """Seat 0 gains 4 stargold and the investment card worth most that is still in the deck."""
    from games.trappist_one.board import INVESTMENT

    cards = [c for c in state["investment_deck"] if INVESTMENT[c]["kind"] != "worker"]
    card = max(cards, key=lambda c: int(INVESTMENT[c]["vp"]))
    state["investment_deck"].remove(card)
    state["seats"][0]["scrapyard"].append(card)
    state["seats"][0]["stargold"] += 4


def lead_trajan(state: State) -> None:
    """Seat 0 scores 20 points more on the track."""
    state["seats"][0]["points"] += 20


LEADS: dict[str, Any] = {
    "res-publica-2230ad": lead_res_publica,
    "asking-for-trobils": lead_trobils,
    "trappist-one": lead_trappist,
    "trajan": lead_trajan,
}


def test_every_game_has_a_lead() -> None:
    assert set(LEADS) == set(GAMES)


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_a_material_lead_raises_the_value(game_id: str, players: int) -> None:
    game = GAMES[game_id]
    states = playout(game_id, players)
    middle = states[len(states) // 3: 2 * len(states) // 3]
    # A mid-game state in which seat 0 is not yet sure to win (its value can still rise).
    candidates = [s for s in middle if not game.is_over(s) and evaluate(game, s)[0] < 0.9]
    assert candidates, "no mid-game state leaves seat 0 room to rise"
    state = candidates[len(candidates) // 2]
    edited = copy.deepcopy(state)
    LEADS[game_id](edited)
    assert game.score(edited)["seats"][0]["total"] > game.score(state)["seats"][0]["total"]
    before, after = assert_values(game, state), assert_values(game, edited)
    assert after[0] > before[0], (before, after)


def test_every_rules_version_evaluates() -> None:
    """A table under an older rules version is evaluated by the same code."""
    for versions in RULES.values():
        for game in versions.values():
            state = game.setup(game.min_players, {}, Rng(b"versions", 0))
            assert_values(game, state)


# --- Asking for Trobils: capture power is what a seat can pay for -------------------------------


def trobils_table(players: int, name: bytes) -> tuple[Game, State]:
    """A fresh Asking for Trobils table (every card on display a Trobil), every seat's
    resources emptied."""
    from games.asking_for_trobils.cards import RESOURCES

    game = GAMES["asking-for-trobils"]
    state = game.setup(players, {}, Rng(name, 0))
    for player in state["seats"]:
        player["res"] = dict.fromkeys(RESOURCES, 0)
    return game, state


def display_cost(state: State) -> dict[str, int]:
    """What every Trobil on display costs, together."""
    from games.asking_for_trobils.cards import cost, is_city

    total: dict[str, int] = {}
    for card in state["display"]:
        if not is_city(card):
            for kind, n in cost(card).items():
                total[kind] = total.get(kind, 0) + n
    return total


@pytest.mark.parametrize("players", [2, 7])
def test_trobils_a_pile_of_one_resource_is_not_capture_power(players: int) -> None:
    """2,000 Space Carrots and no Trap pay for no Trobil: the seat is valued below one that can
    pay for every Trobil on display (the evaluation once summed the resources held, and
    carrots piled up by the thousand in bot games that never ended)."""
    game, state = trobils_table(players, b"carrots")
    state["seats"][0]["res"]["space_carrot"] = 2_000
    state["seats"][1]["res"].update(display_cost(state))
    values = assert_values(game, state)
    assert values[1] > values[0], values


def test_trobils_the_scarcest_resource_is_worth_most() -> None:
    """A seat that holds all a Trobil asks for but Traps gains more from 3 Traps than from 3
    Carrots more: the bottleneck is valued, a surplus less and less."""
    game, state = trobils_table(2, b"bottleneck")
    need = display_cost(state)
    state["seats"][0]["res"].update({kind: 2 * n for kind, n in need.items() if kind != "trap"})
    with_traps, with_carrots = copy.deepcopy(state), copy.deepcopy(state)
    with_traps["seats"][0]["res"]["trap"] += 3
    with_carrots["seats"][0]["res"]["space_carrot"] += 3
    before = assert_values(game, state)[0]
    assert assert_values(game, with_traps)[0] > assert_values(game, with_carrots)[0] >= before


@pytest.mark.parametrize("players", [2, 7])
def test_trobils_greedy_captures_what_it_can_pay_for(players: int) -> None:
    """A seat holding exactly the cost of the biggest Trobil on display goes to Paradise and
    takes it: the evaluation values a visit in progress by its best choice, so a one-move
    lookahead sees the capture."""
    from games.asking_for_trobils.cards import cost, is_city, points
    from games.search.ismcts import greedy

    game, state = trobils_table(players, b"greedy-captures")
    seat = state["active"]
    best = max((card for card in state["display"] if not is_city(card)), key=points)
    state["seats"][seat]["res"].update(cost(best))
    move = greedy(game, state, seat, Rng(b"bot", 0), game.evaluate)
    assert move["id"] == "place:paradise", move
    state, _ = game.play(state, seat, move, Rng(b"play", 1))
    move = greedy(game, state, seat, Rng(b"bot", 1), game.evaluate)
    assert move["id"] == f"trobil:{best}", move


# --- Asking for Trobils: greedy bots finish their games ----------------------------------------

TROBILS_MOVE_BOUND = 2_000  # random games take about 650 to 1,550 moves; bot games far fewer


@pytest.mark.parametrize(("players", "seed"), [
    (2, b"end/1"), (2, b"end/2"), (7, b"end/1"), (7, b"end/2"),
    # a greedy game that never ended: the seat that would win by ending it did not
    pytest.param(2, bytes.fromhex("8cf46d33a55ed208cee11701aee262d6"), id="2-stalled"),
])
def test_trobils_greedy_games_end(players: int, seed: bytes) -> None:
    """Greedy bots in every seat play a game to its end within the bound, as bench/ai.py
    plays one (the lowest actor moves; a single legal move is played without asking the bot).
    Greedy bots once bumped each other on Planet Pomi for ever, piling up Carrots."""
    from games.asking_for_trobils.cards import CITIES

    game = GAMES["asking-for-trobils"]
    level = Level.parse("greedy")
    state = game.setup(players, {}, Rng(seed, 0))
    for ply in range(TROBILS_MOVE_BOUND):
        if game.is_over(state):
            break
        seat = min(game.actors(state))
        legal = game.legal_moves(state, seat)
        move = legal[0] if len(legal) == 1 else bot_move(game, state, seat,
                                                         bot_rng(seed, ply, seat), level)
        state, _ = game.play(state, seat, move, Rng(seed, ply + 1))
    assert game.is_over(state), f"no end after {TROBILS_MOVE_BOUND} moves"
    assert all(card in CITIES for card in state["display"]), state["display"]


DATA = Path(__file__).parent / "data"


def test_trobils_the_seat_that_wins_by_ending_the_game_ends_it() -> None:
    """"The game ends when all City Cards have been revealed." A state from a greedy game that
    ran past 50,000 moves (`meeple simulate`, 2 players; found again with bench/ai.py, seed
    8cf46d33a55ed208cee11701aee262d6): one Trobil left on display, only a City in the deck.
    Seat 1 leads on Trobil points, but seat 0's hoard pays more in City bonuses at the end.
    Seat 1 went to Paradise and passed (taking the Trobil would end the game and lose it);
    seat 0 never went, as the projection counted its hoard for less than the Cities pay. The
    seat at Paradise now knows the final score when its capture would end the game, so seat 0
    goes there and ends it, as the winner."""
    game = GAMES["asking-for-trobils"]
    state = json.loads((DATA / "trobils_last_trobil.json").read_text())
    level = Level.parse("greedy")
    moves = []
    for ply in range(40):
        if game.is_over(state):
            break
        seat = min(game.actors(state))
        legal = game.legal_moves(state, seat)
        move = legal[0] if len(legal) == 1 else bot_move(game, state, seat,
                                                         bot_rng(b"stall", ply, seat), level)
        moves.append((seat, move["id"]))
        state, _ = game.play(state, seat, move, Rng(b"stall", ply + 1))
    assert game.is_over(state), moves
    assert (0, "trobil:t02") in moves and game.score(state)["ranking"][0] == 0, moves


# --- Res Publica: a trade in progress is valued by what it may bring ----------------------------


def res_publica_table(hands: list[dict[str, int]], name: bytes,
                      version: str | None = None) -> tuple[Game, State]:
    """A fresh 2-seat Res Publica table (the newest rules, or `version`), seat 0 to move, the
    hands replaced by `hands`."""
    game = RULES["res-publica-2230ad"][version] if version else GAMES["res-publica-2230ad"]
    state = game.setup(len(hands), {}, Rng(name, 0))
    for player, hand in zip(state["seats"], hands, strict=True):
        player["hand"] = dict(hand)
    return game, state


def played(game: Game, state: State, seat: int, *move_ids: str) -> State:
    for ply, move_id in enumerate(move_ids):
        move = next(m for m in game.legal_moves(state, seat) if m["id"] == move_id)
        state, _ = game.play(state, seat, move, Rng(b"play", ply))
    return state


def test_res_publica_a_request_is_valued_by_the_cards_it_may_bring() -> None:
    """'Request one or more cards. Name the cards you are requesting.' Seat 0 is one Terran
    short of a Space Station ('For five identical Race cards (except Aturians), receive a
    Space Station card'), and seat 1 holds Terrans: starting a request is worth more than not
    trading, and asking for a Terran more than for what nobody holds. A trade's moves change
    no points until the swap, so without such values a one-move lookahead never starts a
    trade (greedy once never traded, and lost to random players at 5 seats)."""
    game, state = res_publica_table(
        [{"terrans": 4, "galaesh": 1, "damakros": 1},
         {"terrans": 2, "ornopeans": 1, "skythris": 1}], b"request")
    before = assert_values(game, state)[0]
    asking = played(game, state, 0, "request")
    assert assert_values(game, asking)[0] > before
    terran = assert_values(game, played(game, asking, 0, "add:terrans:1"))[0]
    nobody = assert_values(game, played(game, asking, 0, "add:warp:1"))[0]
    assert terran > nobody
    submitted = played(game, asking, 0, "add:terrans:1", "submit")
    assert assert_values(game, submitted)[0] == pytest.approx(terran)


@pytest.mark.parametrize("version", ["3", "4"])
def test_res_publica_an_answer_is_valued_when_it_pays_both(version: str) -> None:
    """'Each of your opponents who is able and willing to trade names the cards he demands in
    return for meeting your request.' Seat 1, asked for a Teleport it does not need and one
    Ornopean short of a Space Station, gains by demanding an Ornopean, which the proposer
    holds and does not need; a demand the proposer would lose by brings nothing (the proposer
    declines it): under version 3 it is worth what no answer is, under version 4, where a
    begun answer must be given, a little less (`IDLE_ANSWER`), so a seat with nothing to gain
    passes rather than begin an answer it must then give."""
    game, state = res_publica_table(
        [{"warp": 4, "ornopeans": 1, "galaesh": 1},
         {"teleport": 1, "ornopeans": 4, "damakros": 1}], b"answer", version)
    state = played(game, state, 0, "request", "add:teleport:1", "submit")
    before = assert_values(game, state)[1]
    fair = played(game, state, 1, "add:ornopeans:1")
    assert assert_values(game, fair)[1] > before
    greedy_demand = played(game, state, 1, "add:warp:4")  # the proposer's City to come
    if version == "3":
        assert assert_values(game, greedy_demand)[1] == pytest.approx(before)
    else:
        assert assert_values(game, greedy_demand)[1] < before
        assert projected_gain(game, greedy_demand, 1) == pytest.approx(
            -res_publica_evaluate.IDLE_ANSWER)


def projected_gain(game: Game, state: State, seat: int) -> float:
    """What the trade in progress adds to `seat`'s projected total."""
    t = res_publica_evaluate.table(state)
    return res_publica_evaluate.trade_prospects(state, t).get(seat, 0.0)


def test_res_publica_v4_a_begun_answer_is_valued_as_the_answer_it_will_be() -> None:
    """Version 4: 'an opponent who has begun drafting an answer ... may no longer pass'. Its
    draft is valued as the answer it must give: one the proposer gains by is taken, with what
    it costs its author; under version 3 such a draft was worth nothing to its author (it
    could still pass), and a bot began answers at version 4 that it then had to give. Seat 1,
    asked for a Teleport, demands a Galaesh, which the proposer has no use for."""
    game, state = res_publica_table(
        [{"warp": 4, "ornopeans": 1, "galaesh": 1},
         {"teleport": 1, "ornopeans": 4, "damakros": 1}], b"answer")
    state = played(game, state, 0, "request", "add:teleport:1", "submit")
    cheap = played(game, state, 1, "add:galaesh:1")  # the proposer's card it has no use for
    by_gain, gain = projected_gain(game, cheap, 0), projected_gain(game, cheap, 1)
    assert by_gain > 0  # the proposer would take it ...
    assert gain == pytest.approx(res_publica_evaluate.ACCEPTED * trade_gain(cheap, 1))
    answered = played(game, cheap, 1, "submit")  # ... and once said, takes it for sure
    assert projected_gain(game, answered, 1) == pytest.approx(trade_gain(cheap, 1))
    assert projected_gain(game, answered, 0) > by_gain


def trade_gain(state: State, seat: int) -> float:
    """Seat `seat`'s gain in points if the trade in progress were made with its answer."""
    t = res_publica_evaluate.table(state)
    trade = state["trade"]
    side = trade["drafts"].get(str(seat)) or trade["answers"][str(seat)]
    look = res_publica_evaluate._Look(t, state)
    return look.trade(trade["by"], seat, trade["mode"], trade["proposal"], side)[1]


def test_res_publica_v4_greedy_passes_rather_than_begin_an_answer_it_must_then_give() -> None:
    """Version 4: 'an opponent who has begun drafting an answer ... may no longer pass'. Seat
    1 offers 3 Galaesh and 1 Aturians (a random game, seed "find27", its 31st move); no tender
    of seat 0's (Terrans, Pilots, Damakros) is one the proposer gains by, by the evaluation.
    Valued as under version 3, every tender was worth what a pass is, and greedy, breaking the
    tie at random, began one (Terrans or Damakros) that it then had to give; it now passes,
    whatever its rng."""
    game = RULES["res-publica-2230ad"]["4"]
    state = json.loads((DATA / "res_publica_v4_tender_not_worth_giving.json").read_text())
    assert state["phase"] == "answer" and state["trade"]["begun"] == []
    assert len(game.legal_moves(state, 0)) > 1
    for n in range(6):
        move = bot_move(game, state, 0, bot_rng(b"pass", n, 0), Level.parse("greedy"))
        assert move["id"] == "pass"


@pytest.mark.parametrize("players", [2, 5])
def test_res_publica_memoized_values_are_the_fresh_ones(players: int) -> None:
    """The evaluation memoizes a seat's prospects, a hand's worth, its cheapest cards and the
    best request (a bot values many states that differ only in a trade's draft): on every
    state of a random game, and every state one move on from every tenth (trade drafts
    included), the values with warm memos are those computed from empty ones."""
    game = GAMES["res-publica-2230ad"]
    states = list(playout("res-publica-2230ad", players))
    for state in states[::10]:
        for seat in game.actors(state):
            states += [game.play(state, seat, move, Rng(b"memo", 0))[0]
                       for move in game.legal_moves(state, seat)]
    warm = [evaluate(game, state) for state in states]
    for state, value in zip(states, warm, strict=True):
        res_publica_evaluate.forget()
        assert evaluate(game, state) == value


# --- Trappist One: a shipment under way is valued by its production -----------------------------


def trappist_shipments() -> list[State]:
    """States of random 2-seat Trappist One games where the active seat is producing and
    could produce more (a shipment's non-specialised production, phase 3(B))."""
    game = GAMES["trappist-one"]
    found = []
    for number in range(40):
        seed = b"trappist/shipment/%d" % number
        pick = random.Random(seed)
        state = game.setup(2, {}, Rng(seed, 0))
        for version in range(1, MAX_MOVES):
            if game.is_over(state):
                break
            seat = pick.choice(sorted(game.actors(state)))
            moves = game.legal_moves(state, seat)
            if state["phase"] == "produce" and any(m["kind"] == "produce" for m in moves):
                found.append(state)
                break
            state, _ = game.play(state, seat, pick.choice(moves), Rng(seed, version))
    return found


def test_trappist_a_shipment_is_valued_by_what_it_will_produce() -> None:
    """'For each mega-factory you want to produce with, you will have to discard a matching
    mega-factory card from your hand ... Once you have produced everything you want or can,
    put all the generated stargold on planet Capital One.' The stargold comes at the end of
    the shipment, so an evaluation that counted only the stargold on hand valued a shipment
    at nothing until its last move, and greedy ended shipments early. Now producing keeps
    the value (its stargold is on the way), and greedy produces while it can."""
    game = GAMES["trappist-one"]
    shipments = trappist_shipments()
    assert len(shipments) >= 20, "too few shipments found to test"
    ended = 0
    for state in shipments:
        seat = int(state["active"])
        before = assert_values(game, state)[seat]
        moves = {m["id"]: m for m in game.legal_moves(state, seat)}
        produce = next(m for m in moves.values() if m["kind"] == "produce")
        after_produce, _ = game.play(state, seat, produce, Rng(b"produce", 0))
        assert assert_values(game, after_produce)[seat] == pytest.approx(before)
        ended += greedy(game, state, seat, Rng(b"greedy", 0), game.evaluate)["kind"] == "next"
    # Greedy (one move ahead) goes on producing rather than end the shipment, but for a
    # rare case where the end of the turn shifts the values more (near the game's end).
    assert ended <= len(shipments) // 10, f"greedy ended {ended} of {len(shipments)} shipments"
