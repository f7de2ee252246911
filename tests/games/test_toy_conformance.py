"""The conformance suite passes a correct game and fails each deliberately broken one."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.contract import Fact, Move, ScoreSheet, Seat, State, fact
from games.rng import Rng
from tests.games import conformance as conf
from tests.games.toy_game import GAME, ToyGame

PLAYER_COUNTS = range(GAME.min_players, GAME.max_players + 1)
SEEDS = st.integers(min_value=0, max_value=2**64 - 1)


# -- the correct toy passes everything -----------------------------------------------------


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("name", sorted(conf.CHECKS))
@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, options=st.sampled_from(conf.option_variants(GAME)))
def test_toy_passes(name: str, players: int, seed: int, options: dict[str, Any]) -> None:
    conf.CHECKS[name](GAME, players, seed, options=options)


def test_toy_metadata_and_variants() -> None:
    conf.check_metadata(GAME)
    assert conf.option_variants(GAME) == [{"short": False}, {"short": True}]


def test_leak_check_is_not_vacuous_on_the_toy() -> None:
    assert conf.check_no_leaks(GAME, 3, 7) > 0


def test_visible_facts() -> None:
    facts = [fact("public"), fact("to 1", to=[1]), fact("to 0 and 2", to=[0, 2])]
    assert [f["text"] for f in conf.visible_facts(facts, None)] == ["public"]
    assert [f["text"] for f in conf.visible_facts(facts, 1)] == ["public", "to 1"]
    assert [f["text"] for f in conf.visible_facts(facts, 2)] == ["public", "to 0 and 2"]


def test_replay_convention() -> None:
    assert conf.move_version(1) == 1 and conf.SETUP_VERSION == 0
    playout = conf.Playout(GAME, 2, 5)
    playout.run()
    assert [version for _, _, version in playout.record] == list(range(1, len(playout.record) + 1))


# -- each broken toy fails the matching check ------------------------------------------------


class LeakyView(ToyGame):
    """Shows everyone every hand."""

    def view(self, state: State, seat: Seat | None) -> dict[str, Any]:
        return {**super().view(state, seat), "hands": state["hands"]}


class MutatesItsInput(ToyGame):
    """Copies the state shallowly, then rebinds entries of the shared inner lists."""

    def _copy(self, state: State) -> State:
        return dict(state)


class AppliesAnotherMove(ToyGame):
    """Its unchecked `apply` plays the first legal move, whichever it is given."""

    def apply(self, state: State, seat: Seat, move: Move, rng: Rng) -> tuple[State, list[Fact]]:
        return self.play(state, seat, self.legal_moves(state, seat)[0], rng)


class AcceptsUnlistedMoves(ToyGame):
    """Trusts the card a "play:<n>" or "ante:<n>" id names instead of looking it up."""

    def _lookup(self, state: State, seat: Seat, move: Move) -> Move:
        kind, _, card = str(move.get("id") if isinstance(move, dict) else "").partition(":")
        if kind in ("ante", "play") and card.isdigit():
            return {"id": move["id"], "card": int(card)}
        return super()._lookup(state, seat, move)


class NondeterministicSetup(ToyGame):
    """Deals from fresh OS entropy instead of the rng it is given."""

    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> State:
        return super().setup(players, options, Rng(os.urandom(16), 0))


class LeakyFacts(ToyGame):
    """Tells everyone which card was drawn."""

    def _draw(self, state: State, seat: Seat, rng: Rng) -> list[Fact]:
        return [{**f, "to": "all"} for f in super()._draw(state, seat, rng)]


class LowestWins(ToyGame):
    """Ranks the totals the wrong way round."""

    def score(self, state: State) -> ScoreSheet:
        sheet = super().score(state)
        for entry in sheet["seats"]:
            entry["rank"] = 1 + sum(o["total"] < entry["total"] for o in sheet["seats"])
        return sheet


class PeekingDeterminize(ToyGame):
    """Resamples the seat's own hand too, so the seat's view changes."""

    def determinize(self, state: State, seat: Seat, rng: Rng) -> State:
        other = (seat + 1) % len(state["hands"])
        return super().determinize(super().determinize(state, seat, rng), other, rng)


class IntKeysInState(ToyGame):
    """Keeps a dict keyed by seat numbers, which JSON turns into strings."""

    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> State:
        state = super().setup(players, options, rng)
        return {**state, "dealt": {seat: len(hand) for seat, hand in enumerate(state["hands"])}}


class EveryoneActs(ToyGame):
    """Lists every seat as an actor during the turns, though only one has moves."""

    def actors(self, state: State) -> set[Seat]:
        if state["phase"] == "turns":
            return set(range(len(state["hands"])))
        return super().actors(state)

    def legal_moves(self, state: State, seat: Seat) -> list[Move]:
        if state["phase"] == "turns" and seat != state["turn"]:
            return []
        return super().legal_moves(state, seat)


Check = Callable[..., Any]

BROKEN: list[tuple[ToyGame, Check, str]] = [
    (LeakyView(), conf.check_no_leaks, "view for seat .* shows what it cannot know"),
    (MutatesItsInput(), conf.check_play_does_not_mutate, "play mutated its input"),
    (AppliesAnotherMove(), conf.check_play_does_not_mutate, "apply differs from play"),
    (AcceptsUnlistedMoves(), conf.check_illegal_moves, "play accepted an illegal move"),
    (NondeterministicSetup(), conf.check_replay, "setup is not deterministic"),
    (LeakyFacts(), conf.check_no_leaks, "the facts for .* tell it what its view does not"),
    (LowestWins(), conf.check_score, "ranks worse"),
    (PeekingDeterminize(), conf.check_determinize, "changed seat's view"),
    (IntKeysInState(), conf.check_json_round_trip, "changes in a JSON round trip"),
    (EveryoneActs(), conf.check_playout, "actor without a legal move|has no legal move"),
]


@pytest.mark.parametrize(("game", "check", "message"), BROKEN,
                         ids=[type(game).__name__ for game, _, _ in BROKEN])
def test_suite_catches(game: ToyGame, check: Check, message: str) -> None:
    with pytest.raises(AssertionError, match=message):
        for seed in range(50):
            for players in PLAYER_COUNTS:
                check(game, players, seed)


@pytest.mark.parametrize(("game", "check", "message"), BROKEN,
                         ids=[type(game).__name__ for game, _, _ in BROKEN])
def test_the_correct_toy_passes_the_same_runs(game: ToyGame, check: Check, message: str) -> None:
    """The control: the failures above come from the bugs, not from the seeds."""
    for seed in range(50):
        for players in PLAYER_COUNTS:
            check(GAME, players, seed)


@pytest.mark.parametrize("check", [conf.check_no_leaks, conf.check_determinize,
                                   conf.check_play_does_not_mutate])
def test_toy_passes_with_every_seat_at_every_step(check: Check) -> None:
    for seed in range(10):
        for players in PLAYER_COUNTS:
            check(GAME, players, seed, all_seats=True)


SAMPLED = [(game, check, message) for game, check, message in BROKEN
           if check in (conf.check_no_leaks, conf.check_play_does_not_mutate,
                        conf.check_illegal_moves, conf.check_determinize,
                        conf.check_json_round_trip)]


@pytest.mark.parametrize(("game", "check", "message"), SAMPLED,
                         ids=[type(game).__name__ for game, _, _ in SAMPLED])
def test_suite_catches_with_sampled_steps(game: ToyGame, check: Check, message: str) -> None:
    """test_conformance looks at one move in six in the expensive checks: bugs are still found."""
    with pytest.raises(AssertionError, match=message):
        for seed in range(50):
            for players in PLAYER_COUNTS:
                check(game, players, seed, every=6)
