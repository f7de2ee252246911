"""Checks every game must pass (DESIGN §2 and §7), whatever its rules.

Over 500 lines on purpose: it is the one contract suite every game (and the toy game that
tests it) must pass, and a check is easier to trust when all of them are read together.

Each `check_*` is a plain function `(game, players, seed, *, options=None, max_moves=...)`: it
plays one random legal game from `seed` and raises AssertionError at the first broken rule of the
contract. tests/games/test_conformance.py drives them with hypothesis for every registered game.

Randomness, one convention everywhere (`game_rng`, `move_version`):
- `setup` gets `Rng(seed, 0)`; the k-th move (k = 1, 2, ...) is played with
  `Rng(seed, move_version(k))`, where `move_version(k) == k`;
- the bot has its own stream (`harness_rng(seed, "bot")`): it picks an actor uniformly, then one
  of that actor's legal moves uniformly; determinizations and probes have their own streams too,
  so the harness never disturbs the game's stream.

Score sheets: `{"ranking": [...], "seats": [{"seat", "total", "breakdown", "rank", ...}]}`. Higher
totals rank better; equal totals share the rank unless the entries carry a `tiebreak` value (any
JSON value that compares, e.g. a list of ints), in which case (total, tiebreak) orders them.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from marshmallow import ValidationError
from marshmallow import fields as mm_fields

from games.contract import Fact, Game, IllegalMove, Move, Seat, State
from games.rng import Rng
from games.text import Section

MAX_MOVES = 10_000  # a random playout longer than this counts as "never ends"
SETUP_VERSION = 0
SeedLike = int | bytes

# Moves that are never legal, whatever the state: not an object, or no string id.
MALFORMED_MOVES: list[Any] = [{}, {"id": 5}, "x", None, [], {"id": None}, {"id": ["draw"]},
                              {"label": "no id"}]


# -- randomness ------------------------------------------------------------------------------


def as_seed(seed: SeedLike) -> bytes:
    """Hypothesis draws integers; the platform's rng wants bytes."""
    return seed if isinstance(seed, bytes) else str(seed).encode()


def move_version(index: int) -> int:
    """The event version of the index-th move (1-based): setup is version 0, moves count on."""
    return SETUP_VERSION + index


def game_rng(seed: bytes, version: int) -> Rng:
    """The rng the platform hands the game at `version` (setup: SETUP_VERSION)."""
    return Rng(seed, version)


def harness_rng(seed: bytes, purpose: str, n: int = 0) -> Rng:
    """A stream for the test harness itself, independent of the game's own."""
    return Rng(b"meeple/conformance/" + purpose.encode() + b"/" + seed, n)


# -- small helpers ---------------------------------------------------------------------------


def default_options(game: Game) -> dict[str, Any]:
    return dict(game.options().load({}))


def option_variants(game: Game) -> list[dict[str, Any]]:
    """The default options, plus each boolean option flipped on its own (when that validates)."""
    schema = game.options()
    base = default_options(game)
    variants = [base]
    for name, spec in schema.fields.items():
        if not isinstance(spec, mm_fields.Boolean):
            continue
        try:
            variant = dict(schema.load({name: not base.get(name, False)}))
        except ValidationError:
            continue
        if variant not in variants:
            variants.append(variant)
    return variants


def seats_and_spectator(players: int) -> list[Seat | None]:
    return [*range(players), None]


def sampled(seed: bytes, purpose: str, index: int, every: int) -> bool:
    """Whether a per-step check looks at move `index`: one move in `every`, drawn at random
    (every=1: all of them). Long games then cost the expensive checks less per game, so they
    can see more games, and so more kinds of positions, for the same time."""
    return every <= 1 or harness_rng(seed, f"sample/{purpose}", index).randbelow(every) == 0


def seats_to_check(seed: bytes, purpose: str, index: int, players: int,
                   all_seats: bool) -> list[Seat]:
    """Every seat, or one random seat: the expensive per-seat checks sample one per step."""
    if all_seats:
        return list(range(players))
    return [harness_rng(seed, f"seat/{purpose}", index).randbelow(players)]


def visible_facts(facts: list[Fact], seat: Seat | None) -> list[Fact]:
    """The facts `seat` may read (the spectator, None, reads only facts to "all")."""
    return [f for f in facts if f["to"] == "all" or (seat is not None and seat in f["to"])]


def first_difference(a: Any, b: Any, path: str = "$") -> str:
    """Where two JSON-like values first differ, for readable assertion messages."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=repr):
            if key not in a or key not in b:
                return f"{path}.{key}: only in {'second' if key not in a else 'first'}"
            if a[key] != b[key]:
                return first_difference(a[key], b[key], f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
    return f"{path}: {a!r:.200} != {b!r:.200}"


def assert_same(a: Any, b: Any, what: str) -> None:
    assert a == b, f"{what} ({first_difference(a, b)})"


def assert_json(value: Any, what: str) -> Any:
    """`value` survives json.dumps/json.loads unchanged; returns the round-tripped copy."""
    try:
        back = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise AssertionError(f"{what} is not JSON: {exc}") from exc
    assert_same(back, value, f"{what} changes in a JSON round trip")
    return back


def must_play(game: Game, state: State, seat: Seat, move: Move, rng: Rng,
              what: str) -> tuple[State, list[Fact]]:
    """Play a move the harness believes legal; a refusal is a failed check, not an error."""
    try:
        return game.play(state, seat, move, rng)
    except IllegalMove as exc:
        raise AssertionError(f"{what}: seat {seat} move {move.get('id')!r} refused: {exc}") from exc


def pick_move(game: Game, state: State, rng: Rng) -> tuple[Seat, Move]:
    """The random bot: a uniformly chosen actor, then one of its legal moves uniformly."""
    actors = sorted(game.actors(state))
    assert actors, "the game is not over but nobody may act"
    seat = rng.choice(actors)
    moves = game.legal_moves(state, seat)
    assert moves, f"seat {seat} must act but has no legal move"
    return seat, rng.choice(moves)


# -- random playouts -------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One move of a playout: `state` before it, `after` and `facts` from playing it."""

    index: int  # 1-based move number
    version: int  # move_version(index): the rng version the move was played with
    state: State
    seat: Seat
    move: Move
    after: State
    facts: list[Fact]
    snapshot: State | None  # a deep copy of `state` taken just before `play`, if asked for


class Playout:
    """One random legal game. Iterate it (once) for its steps; then `state` is the final state."""

    def __init__(self, game: Game, players: int, seed: SeedLike, *,
                 options: dict[str, Any] | None = None, max_moves: int = MAX_MOVES,
                 start: State | None = None, snapshots: bool = False,
                 snapshot_every: int = 1) -> None:
        self.game = game
        self.players = players
        self.seed = as_seed(seed)
        self.options = default_options(game) if options is None else options
        self.max_moves = max_moves
        self.snapshots = snapshots
        self.snapshot_every = snapshot_every
        self.bot = harness_rng(self.seed, "bot")
        if start is None:
            start = game.setup(players, self.options, game_rng(self.seed, SETUP_VERSION))
        self.initial: State = start
        self.state: State = start
        self.record: list[tuple[Seat, str, int]] = []  # (seat, move id, version) per move

    def __iter__(self) -> Iterator[Step]:
        index = 0
        while not self.game.is_over(self.state):
            index += 1
            assert index <= self.max_moves, f"no end after {self.max_moves} random moves"
            seat, move = pick_move(self.game, self.state, self.bot)
            snapshot = None
            if self.snapshots and sampled(self.seed, "snapshot", index, self.snapshot_every):
                snapshot = copy.deepcopy(self.state)
            version = move_version(index)
            after, facts = must_play(self.game, self.state, seat, move,
                                     game_rng(self.seed, version), f"move {index}")
            self.record.append((seat, move["id"], version))
            yield Step(index, version, self.state, seat, move, after, facts, snapshot)
            self.state = after

    def run(self) -> State:
        for _ in self:
            pass
        return self.state


# -- shared assertions -----------------------------------------------------------------------


def assert_moves_well_formed(moves: list[Move], seat: Seat) -> None:
    assert isinstance(moves, list), f"legal_moves({seat}) is not a list"
    ids = []
    for move in moves:
        assert isinstance(move, dict), f"seat {seat}: move {move!r} is not an object"
        assert isinstance(move.get("id"), str) and move["id"], f"move {move!r}: no string id"
        assert isinstance(move.get("label"), str), f"move {move['id']!r}: no string label"
        ids.append(move["id"])
    assert len(ids) == len(set(ids)), f"seat {seat}: duplicate move ids in {ids}"
    assert_json(moves, f"legal_moves({seat})")


def assert_facts_well_formed(facts: list[Fact], players: int) -> None:
    assert isinstance(facts, list), "play must return a list of facts"
    for f in facts:
        assert isinstance(f, dict) and set(f) == {"text", "data", "to"}, f"bad fact {f!r}"
        assert isinstance(f["text"], str) and isinstance(f["data"], dict), f"bad fact {f!r}"
        to = f["to"]
        if to != "all":
            assert isinstance(to, list) and to, f"fact 'to' is neither 'all' nor seats: {f!r}"
            assert len(set(to)) == len(to), f"fact 'to' repeats a seat: {f!r}"
            assert all(isinstance(s, int) and 0 <= s < players for s in to), f"bad 'to': {f!r}"
    assert_json(facts, "facts")


def assert_turn_structure(game: Game, state: State, players: int) -> None:
    """Actors exist until the end, none after; actors have moves, nobody else has any."""
    actors = game.actors(state)
    assert isinstance(actors, set | frozenset), f"actors() returned {type(actors).__name__}"
    assert actors <= set(range(players)), f"actors {actors} are not seats of {players}"
    if game.is_over(state):
        assert not actors, f"the game is over but {actors} may still act"
    else:
        assert actors, "the game is not over but nobody may act"
    for seat in range(players):
        moves = game.legal_moves(state, seat)
        if seat in actors:
            assert moves, f"seat {seat} is an actor without a legal move"
            assert_moves_well_formed(moves, seat)
        else:
            assert moves == [], f"seat {seat} is not an actor but has moves {moves[:3]}"


def _flatten(ranking: Any) -> list[Any]:
    out: list[Any] = []
    for item in ranking:
        if isinstance(item, list):
            out += _flatten(item)
        else:
            out.append(item["seat"] if isinstance(item, dict) else item)
    return out


def assert_score_sheet(game: Game, state: State, players: int) -> None:
    """One entry per seat, integer totals, ranks that follow the totals (ties share rank)."""
    sheet = assert_json(game.score(state), "score sheet")
    entries = sheet["seats"]
    assert sorted(e["seat"] for e in entries) == list(range(players)), "not one entry per seat"
    for e in entries:
        assert type(e["total"]) is int, f"seat {e['seat']}: total {e['total']!r} is not an int"
        assert type(e["rank"]) is int, f"seat {e['seat']}: rank {e['rank']!r} is not an int"
        assert isinstance(e.get("breakdown"), dict), f"seat {e['seat']}: no breakdown"
    for e in entries:
        better = sum(o["rank"] < e["rank"] for o in entries)
        assert e["rank"] == 1 + better, f"seat {e['seat']}: rank {e['rank']}, {better} ahead"
    key = {e["seat"]: (e["total"], e.get("tiebreak")) for e in entries}
    rank = {e["seat"]: e["rank"] for e in entries}
    for a in key:
        for b in key:
            if key[a] > key[b]:
                assert rank[a] < rank[b], f"seat {a} scores {key[a]} > {key[b]} but ranks worse"
            if key[a] == key[b]:
                assert rank[a] == rank[b], f"seats {a} and {b} tie on {key[a]} but rank apart"
    order = _flatten(sheet["ranking"])
    assert sorted(order) == list(range(players)), f"ranking {order} is not every seat once"
    assert [rank[s] for s in order] == sorted(rank.values()), f"ranking {order} is out of order"


# -- the checks ------------------------------------------------------------------------------


def check_metadata(game: Game) -> None:
    assert isinstance(game, Game), "does not implement the Game protocol"
    assert isinstance(game.id, str) and game.id, "no id"
    assert isinstance(game.title, str) and isinstance(game.rules_version, str)
    assert 1 <= game.min_players <= game.max_players, "bad player range"
    assert_json(default_options(game), "default options")


def check_playout(game: Game, players: int, seed: SeedLike, **kw: Any) -> State:
    """Random legal play ends; turn structure holds at every step; the end scores properly."""
    playout = Playout(game, players, seed, **kw)
    for step in playout:
        assert_turn_structure(game, step.state, players)
        assert_facts_well_formed(step.facts, players)
    assert_turn_structure(game, playout.state, players)
    assert_score_sheet(game, playout.state, players)
    return playout.state


def check_score(game: Game, players: int, seed: SeedLike, **kw: Any) -> None:
    """The final score sheet is well formed."""
    playout = Playout(game, players, seed, **kw)
    assert_score_sheet(game, playout.run(), players)


def check_replay(game: Game, players: int, seed: SeedLike, **kw: Any) -> None:
    """setup + play of the recorded (seat, move id, version) rebuilds the live game exactly."""
    live = Playout(game, players, seed, **kw)
    steps = list(live)
    state = game.setup(players, live.options, game_rng(live.seed, SETUP_VERSION))
    assert_same(state, live.initial, "setup is not deterministic: same seed, other state")
    for step, (seat, move_id, version) in zip(steps, live.record, strict=True):
        rng = game_rng(live.seed, version)
        state, facts = must_play(game, state, seat, {"id": move_id}, rng, f"replay v{version}")
        assert_same(facts, step.facts, f"replay v{version}: other facts")
        assert_same(state, step.after, f"replay v{version}: other state")
    assert_same(state, live.state, "replay ends in another state")


def check_json_round_trip(game: Game, players: int, seed: SeedLike, *, every: int = 1,
                          **kw: Any) -> None:
    """States, facts and views are JSON; play from a round-tripped state gives the same result."""
    playout = Playout(game, players, seed, **kw)
    for step in playout:
        if not sampled(playout.seed, "json", step.index, every):
            continue
        state = assert_json(step.state, f"state before move {step.index}")
        rng = game_rng(playout.seed, step.version)
        after, facts = must_play(game, state, step.seat, step.move, rng, "from JSON")
        assert_same(after, step.after, f"move {step.index} from a JSON copy: other state")
        assert_same(facts, step.facts, f"move {step.index} from a JSON copy: other facts")
        described = sampled(playout.seed, "describe", step.index, 10)  # a tenth: it costs
        for seat in seats_and_spectator(players):
            view = assert_json(game.view(step.state, seat), f"view for {seat}")
            if described:
                assert_description(game, view, seat, players)
    assert_json(playout.state, "final state")


def assert_description(game: Game, view: dict[str, Any], seat: Seat | None, players: int
                       ) -> None:
    """`describe` gives titled sections of text lines, names every seat, and leaves the view
    as it was."""
    names = [f"player-{index}" for index in range(players)]
    before = copy.deepcopy(view)
    sections = game.describe(view, seat, names)
    assert_same(view, before, f"describe changed the view for {seat}")
    assert sections and all(isinstance(part, Section) for part in sections)
    for part in sections:
        assert isinstance(part.title, str) and part.title.strip(), part
        assert all(isinstance(line, str) and line.strip() for line in part.lines), part
    titles = " | ".join(part.title for part in sections)
    assert all(name in titles for name in names), f"not every seat has a section: {titles}"
    if seat is not None:
        assert names[seat] in sections[0].title, f"the viewer's section is not first: {titles}"


def check_play_does_not_mutate(game: Game, players: int, seed: SeedLike, *,
                               all_seats: bool = False, every: int = 1, **kw: Any) -> None:
    """`play` leaves its input alone, and so do the read-only members; `apply` of a listed
    move gives what `play` gave, and leaves its input alone too."""
    playout = Playout(game, players, seed, snapshots=True, snapshot_every=every, **kw)
    for step in playout:
        if step.snapshot is None:
            continue
        assert_same(step.state, step.snapshot, f"play mutated its input at move {step.index}")
        applied = game.apply(step.state, step.seat, step.move,
                             game_rng(playout.seed, step.version))
        assert_same(list(applied), [step.after, step.facts],
                    f"apply differs from play at move {step.index}")
        assert_same(step.state, step.snapshot, f"apply mutated its input at move {step.index}")
        before = copy.deepcopy(step.after)
        seats = seats_to_check(playout.seed, "touch", step.index, players, all_seats)
        rng = harness_rng(playout.seed, "touch", step.index)
        _touch_read_only(game, step.after, players, seats, rng)
        assert_same(step.after, before, f"a read-only member mutated the state after {step.index}")


def _touch_read_only(game: Game, state: State, players: int, seats: list[Seat],
                     rng: Rng) -> None:
    game.actors(state)
    game.is_over(state)
    for seat in range(players):
        game.legal_moves(state, seat)
    for seat in seats:
        game.determinize(state, seat, rng)
    for reader in seats_and_spectator(players):
        game.view(state, reader)
    if game.is_over(state):
        game.score(state)


def illegal_probes(legal: dict[Seat, list[Move]], players: int, seen: set[str],
                   rng: Rng) -> list[tuple[Any, Any]]:
    """(seat, move) pairs that must be refused, one of each kind, given the actors' legal moves.

    A random actor sends a malformed move, a made-up id, and an id that is not its own now
    (another seat's, or one seen earlier); a non-actor or a seat outside the table sends a
    legal move, in full and as a bare id.
    """
    actor = rng.choice(sorted(legal))
    own = {m["id"] for m in legal[actor]}
    probes: list[tuple[Any, Any]] = [
        (actor, rng.choice(MALFORMED_MOVES)),
        (actor, {"id": f"no-such-move-{rng.randbelow(1 << 30)}", "label": "made up"}),
    ]
    foreign = sorted(seen - own)
    if foreign:
        probes.append((actor, {"id": rng.choice(foreign)}))
    outsiders = [s for s in range(players) if s not in legal] + [-1, players]
    some_legal = rng.choice(legal[actor])
    probes.append((rng.choice(outsiders), some_legal))
    probes.append((rng.choice(outsiders), {"id": some_legal["id"]}))
    return probes


def assert_refused(game: Game, state: State, before: State, seat: Any, move: Any,
                   rng: Rng) -> None:
    """`play` raises IllegalMove (not another exception) and leaves `state` equal to `before`."""
    try:
        game.play(state, seat, move, rng)
    except IllegalMove as exc:
        assert isinstance(exc.code, str) and exc.code, f"IllegalMove without a code: {exc!r}"
    except Exception as exc:
        raise AssertionError(f"seat {seat!r} move {move!r}: {exc!r} instead of IllegalMove"
                             ) from exc
    else:
        raise AssertionError(f"play accepted an illegal move: seat {seat!r}, {move!r}")
    assert_same(state, before, f"refusing seat {seat!r} move {move!r} changed the state")


def check_illegal_moves(game: Game, players: int, seed: SeedLike, *, every: int = 1,
                        **kw: Any) -> None:
    """Malformed, made-up, foreign, stale and out-of-turn moves: IllegalMove, no change."""
    playout = Playout(game, players, seed, **kw)
    seen: set[str] = set()
    for step in playout:
        legal = {seat: game.legal_moves(step.state, seat) for seat in game.actors(step.state)}
        seen |= {m["id"] for moves in legal.values() for m in moves}
        if not sampled(playout.seed, "probe", step.index, every):
            continue
        rng = harness_rng(playout.seed, "probe", step.index)
        before = copy.deepcopy(step.state)
        for seat, move in illegal_probes(legal, players, seen, rng):
            rng = game_rng(playout.seed, step.version)
            assert_refused(game, step.state, before, seat, move, rng)


def check_no_leaks(game: Game, players: int, seed: SeedLike, *, all_seats: bool = False,
                   every: int = 1, **kw: Any) -> int:
    """Views and facts depend only on what their reader may know.

    For a seat s, `determinize(state, s)` is another world s cannot tell apart from the real
    one: view(·, s) and the spectator's view must be equal in both. And if the move just played
    is legal there too and s still cannot tell the worlds apart afterwards, the facts s may read
    must be equal as well (likewise for the spectator, in a world determinized for the mover).
    s is one random seat per step, or every seat with `all_seats`. Returns how many
    determinizations differed from the real state (0: the check proved nothing here).
    """
    playout = Playout(game, players, seed, **kw)
    informative = 0
    for step in playout:
        if not sampled(playout.seed, "leaks", step.index, every):
            continue
        spectator = game.view(step.state, None)
        for seat in seats_to_check(playout.seed, "leaks", step.index, players, all_seats):
            other = game.determinize(step.state, seat, _det_rng(playout.seed, step.index, seat))
            informative += other != step.state
            where = f"before move {step.index}"
            assert_same(game.view(other, seat), game.view(step.state, seat),
                        f"view for seat {seat} shows what it cannot know, {where}")
            assert_same(game.view(other, None), spectator,
                        f"spectator view shows what seat {seat} cannot know, {where}")
            if seat != step.seat:
                _assert_facts_hidden(game, playout.seed, step, other, seat)
        other = game.determinize(step.state, step.seat, _det_rng(playout.seed, step.index, -1))
        _assert_facts_hidden(game, playout.seed, step, other, None)
    return informative


def _det_rng(seed: bytes, index: int, seat: int) -> Rng:
    return harness_rng(seed, f"determinize/{seat}", index)


def _assert_facts_hidden(game: Game, seed: bytes, step: Step, other: State,
                         reader: Seat | None) -> None:
    """Replay step's move in `other`, a world `reader` cannot tell from the real one."""
    if step.move["id"] not in {m["id"] for m in game.legal_moves(other, step.seat)}:
        return
    rng = game_rng(seed, step.version)
    after, facts = must_play(game, other, step.seat, {"id": step.move["id"]}, rng,
                             "move in a determinized state")
    if game.view(after, reader) != game.view(step.after, reader):
        return  # the move showed `reader` something that tells the worlds apart
    assert_same([as_read(f) for f in visible_facts(facts, reader)],
                [as_read(f) for f in visible_facts(step.facts, reader)],
                f"move {step.index}: the facts for {reader} tell it what its view does not")


def as_read(fact: Fact) -> dict[str, Any]:
    """A fact for comparing two worlds: a private fact's text as its words in sorted order.
    A private fact lists what its seat came by in the order it came by them ("You draw 2
    titanium, 1 solar": cards drawn one after another, as at a real table), which tells the
    seat nothing of a card it does not hold once the cards are its own (its view and the
    fact's data must still be equal). Seen by hypothesis once in Trappist One: a world dealt
    for a seat that then draws the same cards in another order."""
    if fact["to"] == "all":
        return dict(fact)
    return {**fact, "text": sorted(re.findall(r"\w+", fact["text"]))}


def check_determinize(game: Game, players: int, seed: SeedLike, *, all_seats: bool = False,
                      every: int = 1, **kw: Any) -> None:
    """Determinized states are reproducible, keep what is public, and play to the end.

    Checks one random seat per step (every seat with `all_seats`), and plays one determinized
    state, at a random step, to the end.
    """
    playout = Playout(game, players, seed, **kw)
    chooser = harness_rng(playout.seed, "rollout")
    chosen: tuple[State, int] | None = None
    for step in playout:
        if chooser.randbelow(step.index) == 0:  # reservoir: a uniformly random step
            chosen = (step.state, step.index)
        if not sampled(playout.seed, "determinize", step.index, every):
            continue
        for seat in seats_to_check(playout.seed, "determinize", step.index, players, all_seats):
            _assert_determinization(game, step.state, seat, players, playout.seed, step.index)
    if chosen is not None:
        _roll_out(game, players, playout.seed, *chosen, max_moves=playout.max_moves)


def _assert_determinization(game: Game, state: State, seat: Seat, players: int, seed: bytes,
                            index: int) -> None:
    other = game.determinize(state, seat, _det_rng(seed, index, seat))
    where = f"determinize(state before move {index}, {seat})"
    assert_same(other, game.determinize(state, seat, _det_rng(seed, index, seat)),
                f"{where} is not a function of its rng")
    assert_json(other, where)
    assert game.is_over(other) == game.is_over(state), f"{where} changed is_over"
    assert game.actors(other) == game.actors(state), f"{where} changed who acts"
    assert_same(game.view(other, seat), game.view(state, seat), f"{where} changed seat's view")
    assert_same(game.legal_moves(other, seat), game.legal_moves(state, seat),
                f"{where} changed seat's own legal moves")
    assert_turn_structure(game, other, players)
    mover, move = pick_move(game, other, harness_rng(seed, f"try/{seat}", index))
    must_play(game, other, mover, move, game_rng(seed, move_version(index)), where)


def _roll_out(game: Game, players: int, seed: bytes, state: State, index: int,
              max_moves: int) -> None:
    """Random play from a determinization of `state` reaches a proper end."""
    seat = harness_rng(seed, "rollout-seat", index).randbelow(players)
    other = game.determinize(state, seat, _det_rng(seed, index, seat))
    rollout = Playout(game, players, seed + b"/rollout", start=other, max_moves=max_moves)
    assert_score_sheet(game, rollout.run(), players)


# Every per-game check, by name, for the test modules to parametrize over.
CHECKS: dict[str, Callable[..., Any]] = {
    "playout": check_playout,
    "replay": check_replay,
    "json": check_json_round_trip,
    "no-mutation": check_play_does_not_mutate,
    "illegal-moves": check_illegal_moves,
    "no-leaks": check_no_leaks,
    "determinize": check_determinize,
}
