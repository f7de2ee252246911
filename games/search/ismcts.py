"""Single-observer information-set Monte Carlo tree search (SO-ISMCTS), over the game contract.

Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search", IEEE Transactions
on Computational Intelligence and AI in Games 4(2), 2012. One tree is grown for the observer
(the seat to move); every iteration
1. determinizes: `game.determinize(state, seat, rng)` deals a world the seat cannot tell from
   the true one (the true state is never read otherwise: the search is as fair as a player);
2. selects down the tree, among the children whose moves are legal in that world, by UCB1 with
   availability counts (a child's `available` counts the iterations it was legal in, and
   stands in for its parent's visits);
3. expands one untried move, then plays uniformly random legal moves for at most `depth`
   moves, and scores the end: the rank rewards of `game.score` if the game is over, else the
   caller's `evaluate` (one value in [0, 1] per seat);
4. backs up: each node adds the reward of the seat whose move led into it.

A node is the sequence of (seat, move id) edges from the root; opponents' moves are edges
too (single observer: they are treated as seen, the paper's SO-ISMCTS). With several actors
at once (simultaneous choices) the lowest seat among them moves first in the tree; the root
is always the observer. The answer is the most visited root move.

`greedy` is a one-ply baseline: each move's value to the seat, averaged over a few worlds.

Pure: randomness only from the `rng` argument (each iteration and each `play` get an `Rng` of
their own, derived from one draw of it), no clock (a time budget is the caller's `deadline`),
states never mutated (`play` returns new ones).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from games.contract import Game, Move, Seat, State
from games.rng import Rng
from games.standings import final_standing as rank_rewards  # by seat, from the ranks

Evaluate = Callable[[State], Sequence[float]]  # state -> one value in [0, 1] per seat
Edge = tuple[Seat, str]  # (the seat that moves, the move's id)

# Random playouts are cut after this many moves and scored by the game's evaluation: random
# play in these games mostly adds noise, and short playouts leave the budget to the tree
# (4 beat 0 and 40 against greedy in a first Trappist One trial; bench/README.md).
DEPTH = 4
EXPLORATION = 0.7  # UCB1's constant; the paper's choice for rewards in [0, 1]
SAMPLES = 4


@dataclass(frozen=True)
class Budget:
    """When the search stops: after `iterations`, or once `deadline()` says time is up,
    whichever comes first; always after at least one iteration."""

    iterations: int | None = None
    deadline: Callable[[], bool] | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.deadline is None:
            raise ValueError("a budget needs iterations, a deadline, or both")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError("iterations must be at least 1")

    def spent(self, done: int) -> bool:
        if self.iterations is not None and done >= self.iterations:
            return True
        return self.deadline is not None and self.deadline()




def choose(game: Game, state: State, seat: Seat, rng: Rng, budget: Budget, evaluate: Evaluate,
           *, depth: int = DEPTH, exploration: float = EXPLORATION) -> Move:
    """The move for `seat` (one of `game.actors(state)`), exactly as `game.legal_moves` lists
    it, by SO-ISMCTS; a seat with one legal move gets it at once."""
    moves = _own_moves(game, state, seat)
    if len(moves) == 1:
        return moves[0]
    streams = _Streams(rng)
    search = _Search(game, seat, moves, evaluate, depth, exploration)
    done = 0
    while True:
        world = _World(game, game.determinize(state, seat, streams.determinize(done)),
                       streams, done)
        search.iterate(world)
        done += 1
        if budget.spent(done):
            return search.best()


def greedy(game: Game, state: State, seat: Seat, rng: Rng, evaluate: Evaluate,
           samples: int = SAMPLES) -> Move:
    """The move with the best value to `seat` one move ahead: each is played in the same
    `samples` determinizations and valued by `evaluate` (by the score, if the game ends);
    ties go to the first in `legal_moves` order."""
    if samples < 1:
        raise ValueError("greedy needs at least one sample")
    moves = _own_moves(game, state, seat)
    if len(moves) == 1:
        return moves[0]
    streams = _Streams(rng)
    worlds = [game.determinize(state, seat, streams.determinize(k)) for k in range(samples)]
    values = [_greedy_value(game, worlds, seat, move, evaluate, streams) for move in moves]
    return moves[values.index(max(values))]


# -- internals -------------------------------------------------------------------------------


def _own_moves(game: Game, state: State, seat: Seat) -> list[Move]:
    moves = game.legal_moves(state, seat)
    if not moves:
        raise ValueError(f"seat {seat} has no legal move")
    return moves


def _greedy_value(game: Game, worlds: list[State], seat: Seat, move: Move, evaluate: Evaluate,
                  streams: _Streams) -> float:
    total = 0.0
    for k, world in enumerate(worlds):
        after, _ = game.play(world, seat, move, streams.play(k, 0))
        total += _rewards(game, after, evaluate)[seat]
    return total / len(worlds)


def _rewards(game: Game, state: State, evaluate: Evaluate) -> Sequence[float]:
    return rank_rewards(game.score(state)) if game.is_over(state) else evaluate(state)


class _Streams:
    """The search's randomness: one 32-byte key drawn from the caller's rng, and from it an
    `Rng` per purpose and number, so that the same inputs always give the same move."""

    def __init__(self, rng: Rng) -> None:
        self._key = b"".join(rng.randbelow(1 << 64).to_bytes(8, "big") for _ in range(4))

    def determinize(self, iteration: int) -> Rng:
        return Rng(self._key + b"/determinize", iteration)

    def choices(self, iteration: int) -> Rng:
        return Rng(self._key + b"/choices", iteration)

    def play(self, iteration: int, index: int) -> Rng:
        return Rng(self._key + b"/play/" + str(iteration).encode(), index)


class _World:
    """One iteration's determinized state, moved on by `play` (each call its own rng)."""

    def __init__(self, game: Game, state: State, streams: _Streams, iteration: int) -> None:
        self.game = game
        self.state = state
        self.choices = streams.choices(iteration)
        self._streams = streams
        self._iteration = iteration
        self._plays = 0

    def mover(self) -> Seat | None:
        """Who moves next: the lowest of the actors; None once the game is over."""
        if self.game.is_over(self.state):
            return None
        actors = self.game.actors(self.state)
        return min(actors) if actors else None

    def play(self, seat: Seat, move: Move) -> None:
        rng = self._streams.play(self._iteration, self._plays)
        self._plays += 1
        self.state, _ = self.game.play(self.state, seat, move, rng)


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
                 depth: int, exploration: float) -> None:
        self.game = game
        self.seat = seat
        self.moves = moves
        self.evaluate = evaluate
        self.depth = depth
        self.exploration = exploration
        self.root = _Node(None)

    def iterate(self, world: _World) -> None:
        path = self._descend(world)
        self._playout(world)
        rewards = _rewards(self.game, world.state, self.evaluate)
        for node in path:
            node.visits += 1
            if node.seat is not None:
                node.total += rewards[node.seat]

    def best(self) -> Move:
        """The most visited root move; among equally visited ones the best on average (with
        few iterations many are visited once), then the first in `legal_moves` order."""
        children = self.root.children
        keys = [(children[edge].visits, children[edge].total / children[edge].visits)
                if (edge := (self.seat, m["id"])) in children else (0, 0.0)
                for m in self.moves]
        return self.moves[keys.index(max(keys))]

    def _descend(self, world: _World) -> list[_Node]:
        """Selection and expansion: the path from the root to the new (or a terminal) node."""
        node, path = self.root, [self.root]
        seat: Seat | None = self.seat
        moves = self.moves  # the root's moves are the observer's own: the same in every world
        while seat is not None:
            node, move, new = self._step(node, seat, moves, world.choices)
            world.play(seat, move)
            path.append(node)
            seat = None if new else world.mover()
            if seat is not None:
                moves = self.game.legal_moves(world.state, seat)
        return path

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

    def _playout(self, world: _World) -> None:
        for _ in range(self.depth):
            seat = world.mover()
            if seat is None:
                return
            world.play(seat, world.choices.choice(self.game.legal_moves(world.state, seat)))
