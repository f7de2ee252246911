"""One game table as the events make it: the Decider of Meeple (pure, no I/O).

`decide_*` turn a command into new events (or raise a MeepleError);
`evolve` folds one envelope into a Table. Rebuilding a table is `evolve`
over its stream, starting from `Table.empty`. Moves are re-executed with
the rng for their version, so the secret seed is an argument here and is
never part of a Table.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from enum import Enum
from typing import Any

from events.exceptions import (
    GameFull,
    GameNotStarted,
    GameOver,
    IllegalMoveError,
    InvalidOptions,
    NotSeated,
    NotYourTurn,
    RulesVersionUnavailable,
    SeatTaken,
)
from events.store import NewEvent
from games.contract import Game, IllegalMove, Move, State, find_move
from games.registry import get_game
from games.rng import Rng


class Status(str, Enum):
    OPEN = "open"  # waiting for players
    ACTIVE = "active"
    ENDED = "ended"


@dataclass(frozen=True)
class Seat:
    seat: int
    player_id: str
    name: str
    bot: bool = False


@dataclass(frozen=True)
class Table:
    id: str
    type: str = ""
    rules_version: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    seat_count: int = 0
    seats: tuple[Seat, ...] = ()
    status: Status = Status.OPEN
    version: int = 0
    head: str = ""  # hash of the envelope at `version`: the next append chains to it
    created_at: str = ""
    updated_at: str = ""
    created_by: str = ""
    seed_commitment: str = ""
    state: State | None = None
    result: dict[str, Any] | None = None  # the score sheet, once ended
    revealed_seed: str | None = None
    ratings: list[dict[str, Any]] | None = None

    @classmethod
    def empty(cls, game_id: str) -> Table:
        return cls(id=game_id)

    @property
    def game(self) -> Game:
        """The rules this game was played under; never others (DESIGN: history stays true)."""
        game = get_game(self.type)
        if self.rules_version and self.rules_version != game.rules_version:
            raise RulesVersionUnavailable(
                f"this game was played under {game.title} rules version {self.rules_version};"
                f" this server runs version {game.rules_version} and will not replay it with"
                " other rules (its record can be verified by a Meeple that has them)"
            )
        return game

    def seat_of(self, seat: int) -> Seat | None:
        return next((s for s in self.seats if s.seat == seat), None)

    def seats_of(self, player_id: str) -> list[int]:
        return sorted(s.seat for s in self.seats if s.player_id == player_id)

    def free_seats(self) -> list[int]:
        taken = {s.seat for s in self.seats}
        return [i for i in range(self.seat_count) if i not in taken]

    def actors(self) -> list[int]:
        if self.status is not Status.ACTIVE or self.state is None:
            return []
        return sorted(self.game.actors(self.state))

    def to_json(self) -> dict[str, Any]:
        # By hand, not dataclasses.asdict: that deep-copies the whole game state, which
        # is already plain JSON data and is never mutated.
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["status"] = self.status.value
        data["seats"] = [asdict(seat) for seat in self.seats]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Table:
        data = dict(data)
        data["status"] = Status(data["status"])
        data["seats"] = tuple(Seat(**s) for s in data["seats"])
        return cls(**data)


# --- evolve ---------------------------------------------------------------


def evolve(table: Table, envelope: dict[str, Any], seed: bytes | None) -> Table:
    """The table after one more event. `seed` is needed to re-execute moves."""
    kind, data, v = envelope["type"], envelope["data"], envelope["v"]
    table = replace(table, version=v, head=envelope.get("hash", ""), updated_at=envelope["at"])
    if kind == "GameCreated":
        return replace(
            table,
            type=data["type"],
            rules_version=data["rules_version"],
            options=data["options"],
            seat_count=data["seats"],
            created_at=envelope["at"],
            created_by=envelope["by"],
            seed_commitment=data["seed_commitment"],
        )
    if kind == "SeatTaken":
        seat = Seat(data["seat"], data["player_id"], data["name"], data["bot"])
        return replace(table, seats=tuple(sorted((*table.seats, seat), key=lambda s: s.seat)))
    if kind == "GameStarted":
        state = table.game.setup(table.seat_count, table.options, _rng(seed, v))
        return replace(table, status=Status.ACTIVE, state=state)
    if kind == "MovePlayed":
        assert table.state is not None
        state, _ = table.game.play(table.state, data["seat"], data["move"], _rng(seed, v))
        return replace(table, state=state)
    if kind == "GameEnded":
        return replace(table, status=Status.ENDED, result=data["scores"])
    if kind == "SeedRevealed":
        return replace(table, revealed_seed=data["seed"])
    if kind == "GameScored":
        return replace(table, ratings=data["ratings"])
    return table  # events that do not change the table (e.g. future message types)


def _rng(seed: bytes | None, version: int) -> Rng:
    if seed is None:
        raise ValueError("re-executing moves needs the game's seed")
    return Rng(seed, version)


# --- decide ---------------------------------------------------------------


def decide_create(
    game: Game, seats: int, options: dict[str, Any], seed_commitment: str
) -> NewEvent:
    if not game.min_players <= seats <= game.max_players:
        raise InvalidOptions(
            f"{game.title} is for {game.min_players} to {game.max_players} players, not {seats}"
        )
    data = {
        "type": game.id,
        "rules_version": game.rules_version,
        "options": options,
        "seats": seats,
        "seed_commitment": seed_commitment,
    }
    return NewEvent("GameCreated", data, "system")


def decide_join(
    table: Table, player_id: str, name: str, seat: int | None, bot: bool = False
) -> list[NewEvent]:
    """SeatTaken, and GameStarted when that fills the table."""
    if table.status is not Status.OPEN:
        raise GameFull("the game has already started")
    free = table.free_seats()
    if not free:
        raise GameFull("every seat is taken")
    if seat is None:
        seat = free[0]
    elif seat not in free:
        if 0 <= seat < table.seat_count:
            raise SeatTaken(f"seat {seat} is taken")
        raise SeatTaken(f"there is no seat {seat}; seats are 0 to {table.seat_count - 1}")
    taken = NewEvent(
        "SeatTaken", {"seat": seat, "player_id": player_id, "name": name, "bot": bot}, player_id
    )
    if len(free) == 1:
        return [taken, NewEvent("GameStarted", {}, "system")]
    return [taken]


@dataclass(frozen=True)
class Decision:
    events: list[NewEvent]
    table: Table  # the table after those events


def decide_moves(
    table: Table,
    player_id: str,
    seat: int | None,
    moves: list[Move],
    seed: bytes,
) -> Decision:
    """MovePlayed for each move, all or nothing; GameEnded and SeedRevealed at the end."""
    if table.status is Status.OPEN:
        raise GameNotStarted("the game has not started: seats are still free")
    if table.status is Status.ENDED:
        raise GameOver("the game is over")
    mine = table.seats_of(player_id)
    if not mine:
        raise NotSeated("you have no seat at this table")
    if seat is not None and seat not in mine:
        raise NotSeated(f"seat {seat} is not yours")
    game, state, version = table.game, table.state, table.version
    assert state is not None
    events: list[NewEvent] = []
    for index, move in enumerate(moves):
        if game.is_over(state):
            raise IllegalMoveError("game_over", "the game ended before this move", index)
        acting = _acting_seat(game.actors(state), mine, seat, index)
        version += 1
        try:
            legal = game.legal_moves(state, acting)
            chosen = find_move(legal, move)
            state, facts = game.play(state, acting, chosen, Rng(seed, version))
        except IllegalMove as err:
            raise IllegalMoveError(err.code, err.detail, index) from None
        # The id alone decides a move (labels are presentation), and keeps the log small.
        played = {"seat": acting, "move": {"id": chosen["id"]}, "facts": facts}
        events.append(NewEvent("MovePlayed", played, player_id))
    new_table = replace(table, state=state, version=version)
    if game.is_over(state):
        sheet = game.score(state)
        events.append(NewEvent("GameEnded", {"scores": sheet}, "system"))
        events.append(NewEvent("SeedRevealed", {"seed": seed.hex()}, "system"))
        new_table = replace(
            new_table, status=Status.ENDED, result=sheet, revealed_seed=seed.hex(),
            version=version + 2,
        )
    return Decision(events, new_table)


def _acting_seat(actors: set[int], mine: list[int], wanted: int | None, index: int) -> int:
    if wanted is not None:
        if wanted not in actors:
            raise NotYourTurn(f"seat {wanted} has nothing to do now (move {index})")
        return wanted
    for seat in mine:
        if seat in actors:
            return seat
    raise NotYourTurn(f"none of your seats has anything to do now (move {index})")

