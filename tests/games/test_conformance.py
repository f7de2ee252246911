"""Every registered game, under every rules version it still runs (games.registry.RULES: a
table is played under the version it was created with) and at every player count, against
tests/games/conformance.py.

Each check plays whole random games from hypothesis-drawn seeds. MEEPLE_PLAYOUTS (default 1000,
which keeps CI within its time; `MEEPLE_PLAYOUTS=5000 pytest tests/games/test_conformance.py`
for a deeper run) is the number of random games each game is played to the end in this
module, summed over all checks, rules versions and player counts; SHARES splits it between
the checks (the cheap end-to-end playout and replay checks get the largest shares; the ones
that work hard at a move look at a random one move in EVERY, see conformance.sampled).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from games.contract import Game
from games.registry import GAMES, RULES  # fails loudly until every registered game exists
from tests.games import conformance as conf

PLAYOUTS = int(os.environ.get("MEEPLE_PLAYOUTS", "1000"))
SHARES = {
    "playout": 0.50,
    "replay": 0.20,
    "json": 0.06,
    "no-mutation": 0.06,
    "illegal-moves": 0.06,
    "no-leaks": 0.06,
    "determinize": 0.06,
}
# The expensive checks look at one move in EVERY of a game (drawn at random per move), so that
# a game of a thousand moves costs them about what a few hundred moves cost the playout check.
EVERY = {"json": 6, "no-mutation": 6, "illegal-moves": 6, "no-leaks": 6, "determinize": 6}
assert set(SHARES) == set(conf.CHECKS) and math.isclose(sum(SHARES.values()), 1.0)

settings.register_profile(
    "meeple-conformance",
    deadline=None,  # a whole game per example
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # a smaller seed is not simpler
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
PROFILE = settings.get_profile("meeple-conformance")
SEEDS = st.integers(min_value=0, max_value=2**64 - 1)

EVERY_RULES = [game for versions in RULES.values() for game in versions.values()]
TABLES = [(game, players) for game in EVERY_RULES
          for players in range(game.min_players, game.max_players + 1)]
TABLE_IDS = [f"{game.id}-r{game.rules_version}-{players}p" for game, players in TABLES]


def examples(game: Game, check: str) -> int:
    """This check's share of PLAYOUTS for `game` (one rules version), spread evenly over the
    game's rules versions and player counts: a new rules version costs no more time, as most
    of each version's code is shared with the others."""
    tables = len(RULES[game.id]) * (game.max_players - game.min_players + 1)
    return max(1, math.ceil(PLAYOUTS * SHARES[check] / tables))


def run(check: str, game: Game, players: int,
        report: Callable[[Any], None] | None = None) -> None:
    """Run one check under hypothesis: seeds and option variants drawn, whole games played."""

    @settings(PROFILE, max_examples=examples(game, check))
    @given(seed=SEEDS, options=st.sampled_from(conf.option_variants(game)))
    def one_game(seed: int, options: dict[str, Any]) -> None:
        every = {"every": EVERY[check]} if check in EVERY else {}
        result = conf.CHECKS[check](game, players, seed, options=options, **every)
        if report is not None:
            report(result)

    one_game()


def test_registry_ids() -> None:
    assert GAMES, "no game is registered"
    for key, game in GAMES.items():
        assert key == game.id
        assert RULES[key][game.rules_version] is game, "a new table gets the newest rules"
    for key, versions in RULES.items():
        for rules_version, game in versions.items():
            assert (game.id, game.rules_version) == (key, rules_version)
            conf.check_metadata(game)


@pytest.mark.parametrize(("game", "players"), TABLES, ids=TABLE_IDS)
def test_random_playouts_end_and_score(game: Game, players: int) -> None:
    run("playout", game, players, lambda final: event(f"{players}p game ended"))


@pytest.mark.parametrize(("game", "players"), TABLES, ids=TABLE_IDS)
def test_replay_rebuilds_the_live_state(game: Game, players: int) -> None:
    run("replay", game, players)


@pytest.mark.parametrize(("game", "players"), TABLES, ids=TABLE_IDS)
def test_json_round_trip(game: Game, players: int) -> None:
    run("json", game, players)


@pytest.mark.parametrize(("game", "players"), TABLES, ids=TABLE_IDS)
def test_play_does_not_mutate(game: Game, players: int) -> None:
    run("no-mutation", game, players)


@pytest.mark.parametrize(("game", "players"), TABLES, ids=TABLE_IDS)
def test_illegal_moves_are_refused(game: Game, players: int) -> None:
    run("illegal-moves", game, players)


@pytest.mark.parametrize(("game", "players"), TABLES, ids=TABLE_IDS)
def test_no_view_or_fact_leaks(game: Game, players: int) -> None:
    informative = 0

    def count(n: int) -> None:
        nonlocal informative
        informative += n

    run("no-leaks", game, players, count)
    assert informative > 0, "determinize never hid anything: the leak check proved nothing"


@pytest.mark.parametrize(("game", "players"), TABLES, ids=TABLE_IDS)
def test_determinize(game: Game, players: int) -> None:
    run("determinize", game, players)
