"""Single-observer information-set Monte Carlo tree search (SO-ISMCTS), over the game contract.

Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search", IEEE Transactions
on Computational Intelligence and AI in Games 4(2), 2012. One tree is grown for the observer
(the seat to move). It starts from a one-ply opinion: each root move gets `prior` visits at
its one-ply `value` (heuristic initialisation). Then every iteration
1. determinizes: `game.determinize(state, seat, rng)` deals a world the seat cannot tell from
   the true one (the true state is never read otherwise: the search is as fair as a player);
2. selects down the tree, among the children whose moves are legal in that world, by UCB1 with
   availability counts (a child's `available` counts the iterations it was legal in, and
   stands in for its parent's visits);
3. expands one untried move (at random); then, with `playout` above 0, plays out greedily in
   that world: every seat plays its one-ply best move (`evaluate` after each of its moves,
   in this world) until the observer is to choose again after another seat has moved, or
   after `playout` such choices (a seat with one legal move is no choice); then at most
   `depth` random moves (none by default); and scores the end: the rank rewards of
   `game.score` if the game is over, else the caller's `value` (one value in [0, 1] per
   seat; `evaluate` unless a `value` is given);
4. backs up: each node adds the reward of the seat whose move led into it. The new leaf adds
   that score; with `leaf_alone` (the default) the nodes above it add the score of a
   playout from the state before the leaf's move, where the tree's own choices led: a
   random move says little about its parent, and counting it made a line whose next move is
   the seat's own look worse (most random moves are poor) and one that hands the move to an
   opponent look better (its random reply is poor too). In Res Publica the search drew
   cards instead of building a City or trading: against greedy it won 0.245 of 100 games,
   0.480 with the leaf's move counted for the leaf alone. Trappist One loses by it: 0.615 ->
   0.445 in session 15, 0.555 -> 0.485 since its evaluation counts a shipment under way
   (bench/README.md, sessions 15 and 16).

Two valuations, since they do two jobs: `evaluate` chooses each seat's moves in the playouts
(a model of how the others play: greedy chooses by it), `value` says what the position a
playout reaches is worth (a chance to win). A game may fit the second to its games: Res
Publica's search won 0.710 of the 100 `t2` deals against greedy valued by its fitted chance
to win, 0.630 by `evaluate` (bench/README.md, session 46).

The greedy playout lets the search see past one ply: how the seat would finish its turn and
how the others would answer. It is on (`PLAYOUT` 12) since it was measured in all four
games (sessions 27 to 29): on the same 100 deals against greedy it lifted Trappist One from
0.590 to 0.755, Trajan from 0.820 to 0.980 and Res Publica from 0.385 to 0.575, and it
lost nothing measured elsewhere (bench/README.md, "Greedy playouts (session 27)" and after).
A playout costs some 20 evaluations: the search runs about a fifth as many iterations in
its budget.

A game may keep the tree shallow (`tree_depth`, the game's `search_tree_depth`): below the
root, UCB1 tries every move now and then, and a node's mean counts those tries, so where
values differ by hundredths a line that goes on with the seat's own moves is dragged down by
its poor ones and a line that hands the move to an opponent is lifted by the opponent's (the
Shades test). Res Publica's tree is its root's moves alone, each valued by its greedy
playout: there 400 iterations had won fewer contested deals than 80 (session 40), and the
root alone won 0.630 of the 100 `t2` deals against greedy where the full tree won 0.600
(bench/README.md, session 41).

A node is the sequence of (seat, move id) edges from the root; opponents' moves are edges
too (single observer: they are treated as seen, the paper's SO-ISMCTS). With several actors
at once (simultaneous choices) the lowest seat among them moves first in the tree; the root
is always the observer. The answer is the most visited root move; the search stops early
once no other move could catch up with it in the budget left.

`greedy` is a one-ply baseline: each move's value to the seat, averaged over a few worlds.
Neither weighs a move that only takes back the seat's own unfinished choice (`bot_moves`).

Pure: randomness only from the `rng` argument (one draw of it keys every rng the search
uses), no clock (a time budget is the caller's `time_left`), states never mutated (`play`
returns new ones). A move the search has just listed for a world's state is played with
`game.apply`, unchecked: checking it lists every move again, a third of an iteration's time
in Res Publica. The root's moves were listed for the true state, so they go through `play`.
"""

from __future__ import annotations

import hashlib
import math
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from games.contract import Game, Move, Seat, State
from games.rng import Rng
from games.standings import final_standing as rank_rewards  # by seat, from the ranks

Evaluate = Callable[[State], Sequence[float]]  # state -> one value in [0, 1] per seat
Edge = tuple[Seat, str]  # (the seat that moves, the move's id)
_EIGHT_WORDS = struct.Struct(">8Q")  # one BLAKE2b block: eight big-endian words

# Random moves played after the greedy playout, before the evaluation: none, since random
# play in these games mostly adds noise (bench/README.md, "Bots": the search's settings).
DEPTH = 0
PLAYOUT = 12  # the greedy playout's choices at most (it ends at the observer's next choice)
LEAF_ALONE = True  # a new leaf's random move counts for the leaf alone (see `iterate`)
PLAYOUT_MOVES = 30  # moves a playout's greedy weighs at most (a random subset of more)
EXPLORATION = 0.7  # UCB1's constant; the paper's choice for rewards in [0, 1]
SAMPLES = 4  # worlds greedy values a move in
GREEDY_PLAYS = 100  # moves greedy plays for its values at most (fewer worlds for many moves)
PRIOR_VISITS = 10  # the weight of greedy's value of each root move, in visits
PRIOR_PLAYS = 40  # moves played for those values at most (fewer worlds for many moves)


@dataclass(frozen=True)
class Budget:
    """When the search stops: after `iterations`, or once `time_left()` (seconds) is no more
    than 0, whichever comes first; always after at least one iteration. The search also stops
    once its answer is settled: when no other move could catch up with the most visited one
    in the iterations left (at the pace so far, for a time budget)."""

    iterations: int | None = None
    time_left: Callable[[], float] | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.time_left is None:
            raise ValueError("a budget needs iterations, a time limit, or both")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError("iterations must be at least 1")

    def iterations_left(self, done: int, seconds_at_start: float) -> float:
        """How many more iterations the budget allows, `done` having taken the time since
        `time_left()` was `seconds_at_start`: 0 once it is spent."""
        left = math.inf if self.iterations is None else float(self.iterations - done)
        if self.time_left is not None:
            seconds = self.time_left()
            if seconds <= 0:
                return 0.0
            used = seconds_at_start - seconds
            if used > 0:
                left = min(left, done * seconds / used)
        return max(0.0, left)


def choose(game: Game, state: State, seat: Seat, rng: Rng, budget: Budget, evaluate: Evaluate,
           *, value: Evaluate | None = None, playout: int | None = None,
           depth: int | None = None, exploration: float | None = None,
           prior: int | None = None, settle: bool = True, leaf_alone: bool | None = None,
           tree_depth: int | None = None) -> Move:
    """The move for `seat` (one of `game.actors(state)`), exactly as `game.legal_moves` lists
    it, by SO-ISMCTS; a seat with one legal move gets it at once. Each root move starts with
    `prior` visits at its one-ply value (0: none). Playouts make at most `playout` greedy
    choices (0: none), then `depth` random moves. The tree grows `tree_depth` moves deep at
    most (None: no limit; 1: the root's moves alone, each played out). With `settle`, the
    search ends as soon as the rest of the budget could not change its answer (see `Budget`).
    `value` (None: `evaluate`) is what the search's positions are worth: its leaves, and the
    prior's one-ply values; `evaluate` chooses the playouts' moves, the model of how every
    seat plays (greedy's own choice)."""
    if tree_depth is not None and tree_depth < 1:
        raise ValueError("tree_depth must be at least 1 (None: no limit)")
    moves = _own_moves(game, state, seat)
    if len(moves) == 1:
        return moves[0]
    streams = _Streams(rng)
    prior = PRIOR_VISITS if prior is None else prior  # read now: a trial may set them
    depth = DEPTH if depth is None else depth
    exploration = EXPLORATION if exploration is None else exploration
    value = evaluate if value is None else value
    search = _Search(game, seat, moves, evaluate, value,
                     PLAYOUT if playout is None else playout, depth, exploration,
                     LEAF_ALONE if leaf_alone is None else leaf_alone, tree_depth)
    if prior:
        samples = max(1, min(SAMPLES, PRIOR_PLAYS // len(moves)))
        values = _greedy_values(game, state, seat, moves, value, streams, samples)
        search.seed_root(values, prior)
    done = 0
    at_start = budget.time_left() if budget.time_left is not None else math.inf
    while True:
        world_rng = streams.iteration(done)
        world = _World(game, game.determinize(state, seat, world_rng), world_rng)
        search.iterate(world)
        done += 1
        left = budget.iterations_left(done, at_start)
        if left <= 0 or (settle and search.settled(left)):
            return search.best()


def greedy(game: Game, state: State, seat: Seat, rng: Rng, evaluate: Evaluate,
           samples: int = SAMPLES) -> Move:
    """The move with the best value to `seat` one move ahead: each is played in the same
    `samples` determinizations (fewer when there are more than GREEDY_PLAYS / samples moves,
    at least one) and valued by `evaluate` (by the score, if the game ends); a tie is broken
    at random. (Always taking the first of tied moves can choose the same
    do-nothing move again and again; in Res Publica it walked a trial evaluation round "use
    a New Colony", "cancel" for thousands of moves, before take-backs were left out.)"""
    if samples < 1:
        raise ValueError("greedy needs at least one sample")
    moves = _own_moves(game, state, seat)
    if len(moves) == 1:
        return moves[0]
    streams = _Streams(rng)
    samples = max(1, min(samples, GREEDY_PLAYS // len(moves)))
    values = _greedy_values(game, state, seat, moves, evaluate, streams, samples)
    top = max(values)
    tied = [move for move, value in zip(moves, values, strict=True) if value == top]
    return tied[streams.tie_break().randbelow(len(tied))]


# -- internals -------------------------------------------------------------------------------


def _own_moves(game: Game, state: State, seat: Seat) -> list[Move]:
    moves = bot_moves(game, state, seat)
    if not moves:
        raise ValueError(f"seat {seat} has no legal move")
    return moves


def bot_moves(game: Game, state: State, seat: Seat) -> list[Move]:
    """The moves the search and greedy weigh, for every seat: the legal ones but those that
    only take back the seat's own unfinished choice (`game.take_backs`), unless nothing else
    is legal. A take-back leaves the state as it was before the choice began, so a bot that
    liked the choice again would loop: in a Res Publica tournament the search drafted and
    cancelled trades for over 10,000 moves of one turn."""
    moves = game.legal_moves(state, seat)
    kept = [move for move in moves if move.get("kind") not in game.take_backs]
    return kept or moves


def _greedy_values(game: Game, state: State, seat: Seat, moves: list[Move], evaluate: Evaluate,
                   streams: _Streams, samples: int) -> list[float]:
    """Each move's value to `seat` one move ahead, averaged over the same `samples` worlds;
    in world k every move is played with the same rng (common random numbers)."""
    worlds = [game.determinize(state, seat, streams.greedy(k)) for k in range(samples)]
    values = []
    for move in moves:
        total = 0.0
        for k, world in enumerate(worlds):
            after, _ = game.play(world, seat, move, streams.greedy_play(k))
            total += _rewards(game, after, evaluate)[seat]
        values.append(total / samples)
    return values


def _rewards(game: Game, state: State, evaluate: Evaluate) -> Sequence[float]:
    return rank_rewards(game.score(state)) if game.is_over(state) else evaluate(state)


class SearchRng(Rng):
    """An `Rng` for the search's own draws (worlds, playouts, tie-breaks): the same interface,
    its words drawn from keyed BLAKE2b blocks of 64 bytes instead of HMAC-SHA256 blocks of 32.
    The game's own randomness must be reproducible by a verifier in any language; the
    search's only by this code (the same key always gives the same draws), and the HMAC was
    a quarter of an iteration's time. Only where the words come from differs: `Rng`'s draws
    (randbelow, shuffle, choice) are shared, its HMAC key is not set up."""

    def __init__(self, key: bytes, number: int) -> None:
        self._block_key = hashlib.blake2b(key + b"#" + str(number).encode(),
                                          digest_size=32).digest()
        self._counter = 0
        self._words: list[int] = []

    def _next_word(self) -> int:
        if not self._words:
            block = hashlib.blake2b(self._counter.to_bytes(8, "big"), key=self._block_key).digest()
            self._counter += 1
            self._words = list(reversed(_EIGHT_WORDS.unpack(block)))
        return self._words.pop()


class _Streams:
    """The search's randomness: one 32-byte key drawn from the caller's rng, and from it an
    rng per purpose and number, so that the same inputs always give the same move."""

    def __init__(self, rng: Rng) -> None:
        self._key = b"".join(rng.randbelow(1 << 64).to_bytes(8, "big") for _ in range(4))

    def iteration(self, number: int) -> Rng:
        """One search iteration's: its world, its tree choices and its plays, in that order."""
        return SearchRng(self._key + b"/iteration", number)

    def greedy(self, world: int) -> Rng:
        return SearchRng(self._key + b"/greedy", world)

    def greedy_play(self, world: int) -> Rng:
        return SearchRng(self._key + b"/greedy/play", world)

    def tie_break(self) -> Rng:
        return SearchRng(self._key + b"/tie", 0)


class _World:
    """One iteration's determinized state, moved on by `play`; `rng` is the iteration's."""

    def __init__(self, game: Game, state: State, rng: Rng) -> None:
        self.game = game
        self.state = state
        self.rng = rng

    def mover(self) -> Seat | None:
        """Who moves next: the lowest of the actors; None once the game is over."""
        if self.game.is_over(self.state):
            return None
        actors = self.game.actors(self.state)
        return min(actors) if actors else None

    def play(self, seat: Seat, move: Move) -> None:
        self.state, _ = self.game.play(self.state, seat, move, self.rng)

    def apply(self, seat: Seat, move: Move) -> None:
        """`play` for a move listed by `bot_moves` for this world's state (unchecked)."""
        self.state, _ = self.game.apply(self.state, seat, move, self.rng)


class _Node:
    """Statistics of one information set's edge: the seat that moved into it, its visits, the
    sum of that seat's rewards, and how many iterations found its move legal."""

    __slots__ = ("available", "children", "seat", "total", "visits")

    def __init__(self, seat: Seat | None) -> None:
        self.seat = seat
        self.visits = 0
        self.total = 0.0
        self.available = 0
        self.children: dict[Edge, _Node] = {}

    def ucb(self, exploration: float) -> float:
        return (self.total / self.visits
                + exploration * math.sqrt(math.log(self.available) / self.visits))


class _Search:
    """The observer's tree, grown one iteration (one determinized world) at a time."""

    def __init__(self, game: Game, seat: Seat, moves: list[Move], evaluate: Evaluate,
                 value: Evaluate, playout: int, depth: int, exploration: float,
                 leaf_alone: bool, tree_depth: int | None = None) -> None:
        self.game = game
        self.seat = seat
        self.moves = moves
        self.evaluate = evaluate  # the playouts' choices
        self.value = value  # the leaves' worth
        self.playout = playout
        self.leaf_alone = leaf_alone
        self.depth = depth
        self.exploration = exploration
        self.tree_depth = tree_depth
        self.root = _Node(None)

    def iterate(self, world: _World) -> None:
        path, before = self._descend(world)
        if self.leaf_alone and before is not None and len(path) > 2:
            # The new leaf's move was drawn at random: it is the leaf's value alone. The nodes
            # above it are valued where the tree's own choices led (the playout starts before
            # that move), else a random own move would drag a line down and a random
            # opponent's move lift it.
            leaf = _rewards(self.game, world.state, self.value)
            world.state = before
            above = self._played_out(world)
        else:
            leaf = above = self._played_out(world)
        for node in path:
            node.visits += 1
            if node.seat is not None:
                node.total += (leaf if node is path[-1] else above)[node.seat]

    def _played_out(self, world: _World) -> Sequence[float]:
        self._greedy_playout(world)
        self._random_playout(world)
        return _rewards(self.game, world.state, self.value)

    def seed_root(self, values: list[float], visits: int) -> None:
        """Start each root move with `visits` visits at `values` (its greedy value): the
        search begins where greedy ends, and the playouts must show a move better or worse
        before the choice moves away from greedy's (heuristic initialisation, as Gelly and
        Silver's prior knowledge in MoGo, 2007)."""
        for move, value in zip(self.moves, values, strict=True):
            child = self.root.children[(self.seat, move["id"])] = _Node(self.seat)
            child.visits = child.available = visits
            child.total = value * visits

    def settled(self, left: float) -> bool:
        """Whether `left` more iterations could not change `best()`: the most visited root
        move leads the next by more than that (a tie would go by the mean, so not equal)."""
        visits = sorted((child.visits for child in self.root.children.values()), reverse=True)
        visits += [0] * (len(self.moves) - len(visits))
        return visits[0] - visits[1] > left

    def best(self) -> Move:
        """The most visited root move; among equally visited ones the best on average (with
        few iterations many are visited once), then the first in `legal_moves` order."""
        children = self.root.children
        keys = [(children[edge].visits, children[edge].total / children[edge].visits)
                if (edge := (self.seat, m["id"])) in children else (0, 0.0)
                for m in self.moves]
        return self.moves[keys.index(max(keys))]

    def _descend(self, world: _World) -> tuple[list[_Node], State | None]:
        """Selection and expansion: the path from the root to the new (or a terminal) node,
        and the state before the new node's move (None if no node was new: the game ended
        in the tree, or the path reached `tree_depth`, and the playout starts where it ends)."""
        node, path = self.root, [self.root]
        seat: Seat | None = self.seat
        moves = self.moves  # the root's moves are the observer's own: the same in every world
        while seat is not None:
            before = world.state
            node, move, new = self._step(node, seat, moves, world.rng)
            # The root's moves were listed for the true state: checked again in this world.
            (world.play if moves is self.moves else world.apply)(seat, move)
            path.append(node)
            if new:
                return path, before
            if len(path) - 1 == self.tree_depth:
                return path, None
            seat = world.mover()
            if seat is not None:
                moves = bot_moves(self.game, world.state, seat)
        return path, None

    def _step(self, node: _Node, seat: Seat, moves: list[Move], rng: Rng
              ) -> tuple[_Node, Move, bool]:
        """The child to go to among `moves` (legal in this world): an untried one at random,
        else the best by UCB1; counts each tried legal child available once more."""
        edges = [(seat, move["id"]) for move in moves]
        children = node.children
        untried = [k for k, edge in enumerate(edges) if edge not in children]
        for edge in edges:
            if edge in children:
                children[edge].available += 1
        if untried:
            k = untried[rng.randbelow(len(untried))]
            children[edges[k]] = child = _Node(seat)
            child.available = 1
        else:
            scores = [children[edge].ucb(self.exploration) for edge in edges]
            k = scores.index(max(scores))
            child = children[edges[k]]
        return child, moves[k], bool(untried)

    def _greedy_playout(self, world: _World) -> None:
        """Every seat plays its one-ply best move in this world, until the observer is to
        choose again after another seat has moved, or `playout` choices have been made
        (0: no playout at all, not even of moves without a choice). The observer's forced
        moves are played through: in Res Publica its "pass" to a request it cannot answer
        comes early in the opponent's turn, and stopping there hid the rest of that turn
        (against greedy: 0.570 stopping, 0.650 played through on the same 100 deals, 0.585
        on 100 others; bench/README.md, session 31)."""
        if not self.playout:
            return
        choices, others_moved = 0, False
        while (seat := world.mover()) is not None:
            if seat != self.seat:
                others_moved = True
            moves = bot_moves(self.game, world.state, seat)
            if len(moves) > 1:
                if (seat == self.seat and others_moved) or choices == self.playout:
                    return
                choices += 1
            world.apply(seat, self._best_in_world(world, seat, moves))

    def _best_in_world(self, world: _World, seat: Seat, moves: list[Move]) -> Move:
        """The move with the best value to `seat` one move ahead in this world (the first of
        equals), among at most PLAYOUT_MOVES of `moves` drawn at random."""
        if len(moves) == 1:
            return moves[0]
        if len(moves) > PLAYOUT_MOVES:
            moves = list(moves)
            world.rng.shuffle(moves)
            moves = moves[:PLAYOUT_MOVES]
        best, best_value = moves[0], -math.inf
        for move in moves:
            after, _ = self.game.apply(world.state, seat, move, world.rng)
            value = _rewards(self.game, after, self.evaluate)[seat]
            if value > best_value:
                best, best_value = move, value
        return best

    def _random_playout(self, world: _World) -> None:
        for _ in range(self.depth):
            seat = world.mover()
            if seat is None:
                return
            world.apply(seat, world.rng.choice(bot_moves(self.game, world.state, seat)))
