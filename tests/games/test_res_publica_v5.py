"""Res Publica 2230 AD rules version 5 (games/res_publica/README.md "Rules versions"): seats
tied for a place are one list in the score sheet's `ranking`; it deals and plays exactly as
version 4.

openapi.yaml, ScoreSheet.ranking (the type of every game's GameEnded `result`): "Seats from
first to last; seats tied for a place are one list". Versions 1 to 4 listed tied seats one
by one (`[0, 1, 2]` for a full tie); their results are stored in GameEnded and re-checked by
record verification, so they keep that shape (tests/records/test_golden.py re-enacts their
golden records hash for hash). Rulebook: "The player with the most points wins the game." -
no tie-break is printed, so equal totals share the rank (decision 13).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import yaml

from games.registry import get_game
from games.res_publica import GAME, VERSIONS
from games.res_publica.board import ties_as_lists
from games.rng import Rng
from games.schemas import view_schema
from tests.games.test_res_publica import new_game

State = dict[str, Any]
V4, V5 = VERSIONS[3], VERSIONS[4]
ROOT = Path(__file__).resolve().parents[2]
OPENAPI_SENTENCE = "Seats from first to last; seats tied for a place are one list"


def test_version_5_is_the_newest() -> None:
    assert GAME is V5 and V5.rules_version == "5" and VERSIONS[-1] is V5
    assert get_game("res-publica-2230ad") is V5 and get_game("res-publica-2230ad", "4") is V4
    assert new_game(game=V5)["rules"] == 5
    assert ties_as_lists(new_game(game=V5))
    assert not any(ties_as_lists(new_game(game=g)) for g in VERSIONS[:4])


def test_the_openapi_sentence_this_version_follows() -> None:
    """The sentence quoted here is openapi's, word for word."""
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    ranking = spec["components"]["schemas"]["ScoreSheet"]["properties"]["ranking"]
    assert ranking["description"] == OPENAPI_SENTENCE


def scored_table(game: Any, points: list[int]) -> State:
    """A dealt table under `game`, each seat's hand emptied and given `points` grey cards
    (1 point each: "each Trooper or Pilot in your hand counts for 1 point")."""
    state = game.setup(len(points), {}, Rng(b"ties", 0))
    for player, n in zip(state["seats"], points, strict=True):
        player["hand"] = {"pilot": n} if n else {}
    return state


def test_a_full_tie_is_one_place() -> None:
    """"Seats from first to last; seats tied for a place are one list": all three at 0
    points share the first place (no tie-break is printed)."""
    sheet = V5.score(scored_table(V5, [0, 0, 0]))
    assert [row["rank"] for row in sheet["seats"]] == [1, 1, 1]
    assert sheet["ranking"] == [[0, 1, 2]]


def test_a_partial_tie_is_one_list() -> None:
    """Seats 0 and 1 tied below seat 2: `[2, [0, 1]]`; a tie between first and last of four:
    the tied seats are one list, in seat order."""
    sheet = V5.score(scored_table(V5, [0, 0, 1]))
    assert [row["rank"] for row in sheet["seats"]] == [2, 2, 1]
    assert sheet["ranking"] == [2, [0, 1]]
    sheet = V5.score(scored_table(V5, [2, 3, 1, 2]))
    assert [row["rank"] for row in sheet["seats"]] == [2, 1, 4, 2]
    assert sheet["ranking"] == [1, [0, 3], 2]


def test_no_tie_is_a_list_of_seats() -> None:
    assert V5.score(scored_table(V5, [1, 3, 2]))["ranking"] == [1, 2, 0]


@pytest.mark.parametrize(("points", "flat"), [([0, 0, 0], [0, 1, 2]), ([0, 0, 1], [2, 0, 1]),
                                              ([2, 3, 1, 2], [1, 0, 3, 2])])
def test_version_4_keeps_the_flat_ranking(points: list[int], flat: list[int]) -> None:
    """The same table under version 4 scores as version 4 always did: every seat alone, tied
    seats in seat order, the rows (seat, total, breakdown, rank) as version 5's."""
    v5 = scored_table(V5, points)
    v4 = {**v5, "rules": 4}
    assert v4 == scored_table(V4, points)  # the same table, dealt under version 4
    assert V4.score(v4)["ranking"] == flat
    assert V4.score(v4)["seats"] == V5.score(v5)["seats"]
    for older in VERSIONS[:4]:  # every older version: the flat shape
        state = scored_table(older, points)
        assert older.score(state)["ranking"] == flat


@pytest.mark.parametrize("points", [[0, 0, 0], [0, 0, 1], [1, 2, 3], [2, 3, 1, 2]])
def test_both_shapes_hold_the_games_schema(points: list[int]) -> None:
    """The game's schema.json (published by GET /v1/game-types/{type}) describes both shapes:
    the final view of version 4 and of version 5 validate."""
    validator = jsonschema_rs.Draft202012Validator(view_schema("res-publica-2230ad"))
    for game in (V4, V5):
        state = scored_table(game, points)
        state["phase"], state["reveal"] = "over", {"order": list(range(len(points))), "index":
                                                   len(points)}
        view = game.view(state, None)
        assert view["score"] is not None
        errors = [str(e) for e in validator.iter_errors(view)]
        assert not errors, (game.rules_version, errors)
    schema = json.loads((ROOT / "games/res_publica/schema.json").read_text())
    ranking = schema["$defs"]["score_sheet"]["properties"]["ranking"]
    assert "rules version 5" in ranking["description"]
    assert [item.get("type", "seat") for item in ranking["items"]["anyOf"]] == ["seat", "array"]


def lockstep(players: int, seed: int) -> int:
    """One random legal game played under version 4 and version 5 side by side, the same
    seat and move chosen in each: the deals, every state, every seat's legal moves, the
    actors and the facts are the same, apart from `"rules"`. Returns its number of moves."""
    v4 = V4.setup(players, {}, Rng(b"lockstep-%d" % seed, players))
    v5 = V5.setup(players, {}, Rng(b"lockstep-%d" % seed, players))
    choose = random.Random(seed)
    step = 0
    while True:
        assert v5["rules"] == 5 and v4["rules"] == 4
        assert {**v5, "rules": 4} == v4, step
        assert V5.actors(v5) == V4.actors(v4)
        for seat in range(players):
            assert V5.legal_moves(v5, seat) == V4.legal_moves(v4, seat), (step, seat)
        if V5.is_over(v5):
            assert V4.is_over(v4)
            break
        seat = choose.choice(sorted(V5.actors(v5)))
        move = {"id": choose.choice(V5.legal_moves(v5, seat))["id"]}
        v5, facts5 = V5.play(v5, seat, move, Rng(b"play", step))
        v4, facts4 = V4.play(v4, seat, move, Rng(b"play", step))
        assert facts5 == facts4, step
        step += 1
    sheet4, sheet5 = V4.score(v4), V5.score(v5)
    assert sheet4["seats"] == sheet5["seats"]
    assert [s for place in sheet5["ranking"]
            for s in (place if isinstance(place, list) else [place])] == sheet4["ranking"]
    return step


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_version_5_plays_as_version_4(players: int) -> None:
    """"Its only change": same deal, same legal moves, same states for a random game with the
    same seed, apart from `rules`."""
    for seed in range(2):
        assert lockstep(players, seed) > 0
