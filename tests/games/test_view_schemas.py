"""Every game's view and move schemas (games/schemas.py, games/<package>/schema.json) hold for
what the games really produce, and can fail.

Why: third-party clients get these schemas from `GET /v1/game-types/{type}` and build on them,
so a field the rules code adds, drops or retypes must break a test here, not a client. For
every game and rules version, whole seeded random games (a failure replays) are played across
the player counts and option variants; one state in EVERY (the first included) and the final
one are checked: `view` for each seat and for a spectator, and every seat's legal moves.

The validator is jsonschema-rs (`jsonschema_rs`, which schemathesis depends on); its
`meta.validate` checks a schema against the draft 2020-12 meta-schema.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import jsonschema_rs
import pytest

from games.contract import Game, State
from games.registry import RULES
from games.schemas import MOVE_COMMON, move_schema, schema_path, view_schema
from tests.games import conformance as conf

EVERY = 3  # check one state in EVERY of a game, and its final state
GAMES = {"trappist-one": 24, "trajan": 12, "res-publica-2230ad": 10, "asking-for-trobils": 12}
DEFAULT_GAMES = 4  # for a game not listed above
FILE_KEYS = ["$schema", "title", "$defs", "view", "move"]

VERSIONS = [(game_id, version) for game_id, versions in RULES.items() for version in versions]
VERSION_IDS = [f"{game_id}-r{version}" for game_id, version in VERSIONS]
GAME_IDS = sorted(RULES)

Validator = jsonschema_rs.Draft202012Validator


@cache
def view_validator(game_id: str) -> Validator:
    return Validator(view_schema(game_id))


@cache
def move_validator(game_id: str) -> Validator:
    return Validator(move_schema(game_id))


@cache
def common_validator() -> Validator:
    return Validator(MOVE_COMMON)


def errors(validator: Validator, instance: Any) -> list[str]:
    """The first few errors, each with where in the instance it is."""
    found = []
    for error in validator.iter_errors(instance):
        where = "/".join(str(p) for p in error.instance_path) or "(root)"
        found.append(f"{where}: {error.message[:300]}")
        if len(found) == 3:
            break
    return found


def assert_valid(validator: Validator, instance: Any, what: str) -> None:
    found = errors(validator, instance)
    assert not found, f"{what} does not match its schema: {found}"


def assert_invalid(validator: Validator, instance: Any, what: str) -> None:
    assert not validator.is_valid(instance), f"the schema accepts {what}"


# --- random games --------------------------------------------------------------------------


def tables(game: Game) -> list[tuple[int, dict[str, Any]]]:
    """(players, options) of the games to play: the player counts and the option variants
    taken in turn, so that a handful of games sees each of them."""
    counts = list(range(game.min_players, game.max_players + 1))
    variants = conf.option_variants(game)
    n = GAMES.get(game.id, DEFAULT_GAMES)
    return [(counts[i % len(counts)], variants[i % len(variants)]) for i in range(n)]


def sampled_states(game: Game, players: int, seed: bytes, options: dict[str, Any]
                   ) -> Iterator[State]:
    """One state in EVERY of a whole random game (the setup state first), then its end."""
    playout = conf.Playout(game, players, seed, options=options)
    for step in playout:
        if step.index % EVERY == 1:
            yield step.state
    assert game.is_over(playout.state)
    yield playout.state


def check_state(game: Game, state: State, players: int, where: str) -> tuple[int, int]:
    """Validate every seat's and the spectator's view, and every seat's legal moves.
    Returns (views, moves) checked."""
    views = moves = 0
    for seat in conf.seats_and_spectator(players):
        assert_valid(view_validator(game.id), game.view(state, seat), f"view({seat}) {where}")
        views += 1
    for seat in range(players):
        for move in game.legal_moves(state, seat):
            what = f"seat {seat}'s move {move.get('id')!r} {where}"
            assert_valid(move_validator(game.id), move, what)
            assert_valid(common_validator(), move, what)
            moves += 1
    return views, moves


def play_and_check(game: Game, players: int, options: dict[str, Any], seed: bytes
                   ) -> tuple[int, int]:
    views = moves = 0
    for n, state in enumerate(sampled_states(game, players, seed, options)):
        where = f"({players}p {options} seed {seed!r}, state {n}, phase {state['phase']})"
        v, m = check_state(game, state, players, where)
        views, moves = views + v, moves + m
    return views, moves


@pytest.mark.parametrize(("game_id", "rules_version"), VERSIONS, ids=VERSION_IDS)
def test_views_and_moves_of_random_games_match_the_schemas(game_id: str,
                                                           rules_version: str) -> None:
    game = RULES[game_id][rules_version]
    views = moves = 0
    for i, (players, options) in enumerate(tables(game)):
        seed = f"view-schemas/{game_id}/{rules_version}/{i}".encode()
        v, m = play_and_check(game, players, options, seed)
        views, moves = views + v, moves + m
    assert views and moves, "nothing was validated"


# --- the schemas themselves ----------------------------------------------------------------


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_schemas_are_valid_draft_2020_12(game_id: str) -> None:
    for schema in (view_schema(game_id), move_schema(game_id), MOVE_COMMON):
        jsonschema_rs.meta.validate(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    # A validator is built only if every "$ref" resolves.
    assert view_validator(game_id).is_valid({}) is False
    assert move_validator(game_id).is_valid({}) is False


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_schema_file_has_its_parts(game_id: str) -> None:
    document = json.loads(schema_path(game_id).read_text())
    assert list(document) == FILE_KEYS
    assert view_schema(game_id)["$defs"] == document["$defs"] == move_schema(game_id)["$defs"]


def undescribed(schema: Any, path: str = "#") -> Iterator[str]:
    """Properties of object schemas (`"type": "object"`) without a description."""
    if isinstance(schema, list):
        for i, item in enumerate(schema):
            yield from undescribed(item, f"{path}/{i}")
        return
    if not isinstance(schema, dict):
        return
    if schema.get("type") == "object":
        for name, prop in schema.get("properties", {}).items():
            if "description" not in prop:
                yield f"{path}/properties/{name}"
    for key, value in schema.items():
        yield from undescribed(value, f"{path}/{key}")


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_property_is_described(game_id: str) -> None:
    for schema in (view_schema(game_id), move_schema(game_id)):
        assert not list(undescribed(schema))


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_moves_have_the_common_part(game_id: str) -> None:
    schema = move_schema(game_id)
    assert {"id", "label"} <= set(schema["required"])
    for name in ("id", "label"):
        assert schema["properties"][name]["type"] == "string"


def test_unknown_game_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        view_schema("no-such-game")
    with pytest.raises(KeyError):
        move_schema("no-such-game")


def test_callers_cannot_change_the_cached_schema() -> None:
    game_id = GAME_IDS[0]
    schema = view_schema(game_id)
    schema["properties"].clear()
    schema["$defs"].clear()
    assert view_schema(game_id)["properties"] and view_schema(game_id)["$defs"]


# --- a schema rejects what is wrong ----------------------------------------------------------


def first_table(game_id: str) -> tuple[Game, State]:
    game = RULES[game_id][list(RULES[game_id])[-1]]
    state = game.setup(game.min_players, conf.default_options(game),
                       conf.game_rng(b"view-schemas/reject", conf.SETUP_VERSION))
    return game, state


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_view_schema_rejects_a_broken_view(game_id: str) -> None:
    game, state = first_table(game_id)
    view = game.view(state, 0)
    validator = view_validator(game_id)
    assert_valid(validator, view, "the first view")
    for key in view_schema(game_id)["required"]:
        assert_invalid(validator, {k: v for k, v in view.items() if k != key}, f"no {key!r}")
    for key in view:
        assert_invalid(validator, {**view, key: 0.5}, f"{key!r} as a number")
    assert_invalid(validator, {**view, "unexpected": 1}, "an unknown field")
    broken = copy.deepcopy(view)
    broken["players"][0]["seat"] = "0"
    assert_invalid(validator, broken, "a seat as a string")
    broken = copy.deepcopy(view)
    del broken["players"][0]["seat"]
    assert_invalid(validator, broken, "a player without its seat")


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_game_view_fails_the_other_games_schemas(game_id: str) -> None:
    game, state = first_table(game_id)
    view = game.view(state, None)
    for other in GAME_IDS:
        if other != game_id:
            assert_invalid(view_validator(other), view, f"a {game_id} view as {other}'s")


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_move_schema_rejects_a_broken_move(game_id: str) -> None:
    game, state = first_table(game_id)
    seat = min(game.actors(state))
    move = game.legal_moves(state, seat)[0]
    validator = move_validator(game_id)
    assert_valid(validator, move, "the first move")
    for key in ("id", "label"):
        assert_invalid(validator, {k: v for k, v in move.items() if k != key}, f"no {key!r}")
        assert_invalid(common_validator(), {k: v for k, v in move.items() if k != key},
                       f"no {key!r} (common part)")
        assert_invalid(validator, {**move, key: 7}, f"{key!r} as a number")
    assert_invalid(validator, {**move, "id": ""}, "an empty id")
    assert_invalid(validator, {**move, "unexpected": 1}, "an unknown field")
    if "kind" in move:
        assert_invalid(validator, {**move, "kind": "no-such-kind"}, "an unknown kind")
    assert_valid(common_validator(), {**move, "unexpected": 1}, "a move with a field of its own")
