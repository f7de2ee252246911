"""Issue 12's acceptance: "A test plays the "or" situation both ways and shows that every
other seat's answers of every route are identical." The rule (Res Publica, versions 2 to 4): the
giver of an "or" always makes the pick as a step of its own, whether it holds one side or
both, so phase, actors, prompt and log look the same whatever it holds (versions 3 and 4: and the
options name as many cards each, so the hand sizes look the same too).

Two games are played through the API, move for move the same, from two deals that the seats
other than the giver cannot tell apart (tests/games/test_res_publica_props.py draws them).
After every move, every GET a client can make of a game, as each other seat and as a
spectator, answers the same in both games once what differs by nature (the game's id, its
seed commitment, hashes and times) is set aside."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.res_publica import GAME as NEWEST
from games.res_publica import ResPublica
from games.rng import Rng
from tests.games.test_res_publica import set_hand
from tests.games.test_res_publica_props import OR_KINDS, OrTrade, or_trades
from tests.service.conftest import RP, Caller
from tests.service.test_hidden_information import every_route

# Differ between any two games, whatever they hold: set aside before comparing.
BY_NATURE = {"at", "created_at", "updated_at", "hash", "prev", "head", "seed_commitment",
             "due_at", "etag", "signature"}  # the signature signs the hashes


def same_by_nature(body: Any, names: dict[str, str]) -> Any:
    """`body` without what differs between two games by nature; ids and commitments named."""
    if isinstance(body, dict):
        return {k: same_by_nature(v, names) for k, v in body.items() if k not in BY_NATURE}
    if isinstance(body, list):
        return [same_by_nature(v, names) for v in body]
    if isinstance(body, str):
        for real, name in names.items():
            body = body.replace(real, name)
    return body


def dealt_as(monkeypatch: pytest.MonkeyPatch, deals: list[dict[int, dict[str, int]]]) -> None:
    """The first game started from now on gets deals[0], the second deals[1] (a table's rng
    key tells its games apart: each rebuild of a game deals it the same again)."""
    setup = ResPublica.setup
    keys: list[bytes] = []

    def dealing(self: ResPublica, players: int, options: dict[str, Any], rng: Rng) -> Any:
        key = rng._seed  # noqa: SLF001 - which game is being dealt
        if key not in keys:
            keys.append(key)
        state = setup(self, players, options, Rng(b"or-leak", players))
        for seat in range(players):
            set_hand(state, seat)
        for seat, cards in deals[keys.index(key)].items():
            set_hand(state, seat, **cards)
        return state

    monkeypatch.setattr(ResPublica, "setup", dealing)


def seen_by(caller: Caller, game_id: str, names: dict[str, str]) -> list[Any]:
    game = caller.get(f"/v1/games/{game_id}").json
    # The routes of tests/service/test_hidden_information.py, and every past version's state.
    answers = [a for a in every_route(caller, game_id, 0) if not a[0].startswith("state@")]
    for past in range(1, game["version"] + 1):
        answers.append((f"state@{past}",
                        caller.get(f"/v1/games/{game_id}/state?version={past}").json))
    answers.append(("messages", caller.get(f"/v1/games/{game_id}/messages").json))
    lobby = caller.get("/v1/games?limit=100").json
    answers.append(("lobby", [g for g in lobby["items"] if g["id"] == game_id]))
    return [(route, same_by_nature(body, names)) for route, body in answers]


@pytest.mark.parametrize("kind", OR_KINDS)
@settings(max_examples=2, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_route_answers_the_other_seats_the_same_whatever_the_giver_holds(
        client: Any, monkeypatch: pytest.MonkeyPatch, kind: str, data: st.DataObject) -> None:
    trade: OrTrade = data.draw(or_trades(kind))
    with monkeypatch.context() as patch:
        dealt_as(patch, list(trade.hands))
        players = [Caller(client, f"player {seat}") for seat in range(trade.players)]
        spectator = Caller(client, "spectator")
        games = []
        for _ in trade.hands:
            # The same seat seeds in both games: only the server's seed differs by nature.
            made = players[0].post("/v1/games", {"type": RP, "seats": trade.players,
                                                 "seed": "seat-0"})
            assert made.status_code == 201, made.json
            for seat, player in enumerate(players[1:], start=1):
                joined = player.post(f"/v1/games/{made.json['id']}/join", {"seed": f"seat-{seat}"})
                assert joined.status_code == 200
            games.append(made.json["id"])
        assert {players[0].get(f"/v1/games/{g}").json["rules_version"] for g in games} == {
            NEWEST.rules_version}
        names = {games[0]: "GAME", games[1]: "GAME"}
        others = [p for seat, p in enumerate(players) if seat != trade.giver] + [spectator]
        for step, (seat, move_id) in enumerate(trade.script):
            for game_id in games:
                version = players[seat].get(f"/v1/games/{game_id}").json["version"]
                played = players[seat].post(
                    f"/v1/games/{game_id}/moves",
                    {"expected_version": version, "seat": seat, "moves": [{"id": move_id}]})
                assert played.status_code == 201, (step, move_id, played.json)
            for other in others:
                first, second = (seen_by(other, g, names) for g in games)
                for (route, one), (_, two) in zip(first, second, strict=True):
                    assert one == two, f"{other.id} tells the deals apart by {route} after " \
                                       f"{move_id} (step {step})"
