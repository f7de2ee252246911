"""A client generated from openapi.yaml, as a third-party developer makes one, plays a whole
game of every game type through a real gunicorn, typed, with no raw HTTP (issue 15,
Acceptance: "The generated client plays a whole game of each game type, typed, with no
workaround and no generator warning").

openapi-python-client writes the package from the committed spec into a temporary folder;
its output must hold no warning. Two players then register, one opens a 2-seat table, the
other joins, and each plays a random legal move whenever one of their seats must act, with
the version they saw, until the end. Every answer is the generated model the spec names:
the view parses as the game's own `<Game>View`, each legal move as `<Game>Move`, the log
as the typed envelope union, and the final score sheet as `ScoreSheet`.
"""

from __future__ import annotations

import importlib
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from games.registry import GAMES
from service.openapi.spec import component_prefix
from tests.e2e.conftest import BIN, ROOT

PACKAGE = "meeple_client"
MOVE_BUDGET = 3000  # a 2-seat game of random moves is 100 to 800 moves


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The client package, generated from the committed spec; the generator's own output
    must say nothing but that it generated it."""
    folder = tmp_path_factory.mktemp("generated")
    config = folder / "config.yaml"
    config.write_text(f"package_name_override: {PACKAGE}\n")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    run = subprocess.run(
        [str(BIN / "openapi-python-client"), "generate", "--path", str(ROOT / "openapi.yaml"),
         "--meta", "none", "--output-path", str(folder / PACKAGE), "--config", str(config)],
        capture_output=True, text=True, env=env, timeout=300, check=False)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert "warning" not in output.lower(), output
    assert output.strip().startswith("Generating ") and len(output.strip().splitlines()) == 1, \
        output
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(folder))
        for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
            del sys.modules[name]


def module(name: str) -> Any:
    return importlib.import_module(f"{PACKAGE}.{name}")


def register(base: str, name: str) -> Any:
    models, api = module("models"), module("api.players.register")
    created = api.sync(client=module("client").Client(base_url=base),
                       body=models.PlayerCreate(name=name))
    assert isinstance(created, models.PlayerCreated), created
    return module("client").AuthenticatedClient(base_url=base, token=created.api_key)


@pytest.mark.slow
@pytest.mark.parametrize("game_type", sorted(GAMES))
def test_a_generated_client_plays_a_whole_game(generated: ModuleType, live_server: str,
                                               game_type: str) -> None:
    models = module("models")
    alice, bob = register(live_server, "alice"), register(live_server, "bob")
    game = module("api.games.create_game").sync(
        client=alice, body=models.GameCreate(type_=models.GameCreateType(game_type), seats=2))
    assert isinstance(game, models.GameOut), game
    joined = module("api.games.join_game").sync(game.id, client=bob,
                                                body=models.JoinRequest())
    assert isinstance(joined, models.GameOut) and joined.status.value == "active", joined

    rng = random.Random(f"generated-client:{game_type}")
    view_type = generated_type(models, f"{component_prefix(game_type)}View")
    move_variants = generated_variants(models, f"{component_prefix(game_type)}MoveType")
    players = {0: alice, 1: bob} if game.your_seats == [0] else {0: bob, 1: alice}
    moves_played = 0
    while moves_played < MOVE_BUDGET:
        current = module("api.games.get_game").sync(game.id, client=alice)
        assert isinstance(current, models.GameOut)
        if current.status.value == "ended":
            break
        seat = current.actors[0]
        listed = module("api.games.legal_moves").sync(game.id, client=players[seat], seat=seat)
        assert isinstance(listed, models.LegalMovesOut) and listed.moves, listed
        for move in listed.moves:
            assert isinstance(move, models.LegalMove) and move.id and move.label
            assert_one_variant_reads(move_variants, move.to_dict())
        choice = rng.choice(listed.moves)
        played = module("api.games.play_moves").sync(
            game.id, client=players[seat],
            body=models.MovesRequest(moves=[models.MoveIn(id=choice.id)],
                                     expected_version=listed.version, seat=seat))
        assert isinstance(played, models.MovesOut), played
        assert played.version > listed.version
        view = played.game.view
        assert isinstance(view, models.GameView)
        typed_view = view_type.from_dict(view.to_dict())
        assert typed_view.phase == view.phase
        moves_played += 1
    else:
        pytest.fail(f"{game_type}: not over after {MOVE_BUDGET} moves")

    assert_typed_end(models, alice, game.id, moves_played)


def generated_type(models: Any, component: str) -> Any:
    """The generator's class for a component (it spells names its own way: ...2230ADView)."""
    found = [name for name in models.__all__ if name.lower() == component.lower()]
    assert len(found) == 1, f"no generated type for {component}"
    return getattr(models, found[0])


def generated_variants(models: Any, prefix: str) -> list[Any]:
    """The classes of a `oneOf` component's variants (`<Game>MoveType0`, ...)."""
    variants = [getattr(models, name) for name in models.__all__
                if name.lower().startswith(prefix.lower())
                and name[len(prefix):].isdigit()]
    assert variants, f"no generated variants {prefix}N"
    return variants


def assert_one_variant_reads(variants: list[Any], move: dict[str, Any]) -> None:
    """Some variant of the game's move type reads the move and gives it back unchanged: a
    variant that knew none of its fields would drop them or fail."""
    for variant in variants:
        try:
            parsed = variant.from_dict(move)
        except (KeyError, TypeError, ValueError):
            continue
        if parsed.to_dict() == move:
            return
    pytest.fail(f"no variant of the game's move type reads {move}")


def assert_typed_end(models: Any, caller: Any, game_id: str, moves_played: int) -> None:
    ended = module("api.games.get_game").sync(game_id, client=caller)
    assert isinstance(ended, models.GameOut) and ended.result is not None
    sheet = ended.result
    assert isinstance(sheet, models.ScoreSheet)
    assert sorted(row.seat for row in sheet.seats) == [0, 1]
    assert all(isinstance(row.total, int) and row.rank >= 1 for row in sheet.seats)
    kinds: dict[str, int] = {}
    after = 0
    while True:
        page = module("api.games.game_events").sync(game_id, client=caller, after=after,
                                                    limit=500)
        assert isinstance(page, models.EventsPage)
        for envelope in page.items:
            kind = type(envelope).__name__
            assert kind.endswith("Envelope"), f"an untyped envelope: {envelope!r}"
            kinds[kind] = kinds.get(kind, 0) + 1
        if page.next_after is None:
            break
        after = page.next_after
    assert kinds["MovePlayedEnvelope"] == moves_played
    for kind in ("GameCreatedEnvelope", "SeatTakenEnvelope", "GameStartedEnvelope",
                 "GameEndedEnvelope", "SeedRevealedEnvelope"):
        assert kind in kinds, kinds


def test_the_generated_client_has_every_route_of_the_spec(generated: ModuleType) -> None:
    """No route was dropped on the way (the generator drops what it cannot read)."""
    import yaml

    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    operations = {op["operationId"] for path in spec["paths"].values()
                  for method, op in path.items() if method != "parameters"}
    assert generated.__file__ is not None
    api_dir = Path(generated.__file__).parent / "api"
    generated_ops = {path.stem for path in api_dir.glob("*/*.py") if path.stem != "__init__"}
    assert generated_ops == operations
