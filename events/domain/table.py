"""One game table as the events make it: the Decider of Meeple (pure, no I/O).

`decide_*` turn a command into new events (or raise a MeepleError);
`evolve` folds one envelope into a Table. Rebuilding a table is `evolve`
over its stream, starting from `Table.empty`. Moves are re-executed with
their random stream (games.rng: by their number among the moves, or in older
games by their version), so the secret seed is an argument here and is never
part of a Table.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import datetime
from enum import Enum
from typing import Any

from events.domain.deadlines import (
    TurnClock,
    due,
    format_time,
    next_clocks,
    rank_resigned_last,
    restarted,
)
from events.domain.envelope import NewEvent, canonical_json
from events.exceptions import (
    AlreadyResigned,
    DeadlineNotDue,
    GameFull,
    GameNotStarted,
    GameOver,
    IllegalMoveError,
    InvalidOptions,
    NotSeated,
    NotYourTurn,
    RulesVersionUnavailable,
    SeatTaken,
    StaleDeadline,
)
from games.bots import GREEDY, RANDOM, Clock, Level, bot_move, bot_rng, level_of_player
from games.contract import Game, IllegalMove, Move, State, find_move
from games.information import ends_batch
from games.registry import RULES, UnknownRulesVersion, get_game
from games.rng import (
    DRAWS_BY_MOVE,
    SEAT_SEED,
    Rng,
    move_stream,
    seats_key,
    server_made_seat_seed,
    setup_stream,
)


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
    seed: str = ""  # its contribution to the randomness, when the game deals by seats


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
    # "seats": the randomness derives from the server's seed and every seat's (rng_key);
    # "": from the server's seed alone (games made before seats contributed).
    dealing: str = ""
    # "moves": the setup draws from random stream 0 and each move from its number among the
    # moves (games.rng.setup_stream, move_stream), so that no event but a move shifts them;
    # "": from the version of GameStarted and of each move (games made before).
    draws: str = ""
    moves: int = 0  # MovePlayed events so far
    state: State | None = None
    result: dict[str, Any] | None = None  # the score sheet, once ended
    revealed_seed: str | None = None
    ratings: list[dict[str, Any]] | None = None
    # Deadlines (events.domain.deadlines): the rule from GameCreated, one clock per person who must
    # act (only when there is a rule), and the seats that resigned, in order.
    deadline: dict[str, Any] | None = None
    # Anyone may watch a public table, without an account; a private one shows itself to its
    # seats only (a spectator's view of it, to anyone else, is a 404 like no game at all).
    public: bool = True
    clocks: tuple[TurnClock, ...] = ()
    resigned: tuple[int, ...] = ()

    @classmethod
    def empty(cls, game_id: str) -> Table:
        return cls(id=game_id)

    @property
    def game(self) -> Game:
        """The rules this game was created under; never others (DESIGN: history stays true)."""
        try:
            return get_game(self.type, self.rules_version or None)
        except UnknownRulesVersion:
            newest = get_game(self.type)
            raise RulesVersionUnavailable(
                f"this game was played under {newest.title} rules version {self.rules_version},"
                f" which this server does not have (it runs {sorted(RULES[self.type])}); it"
                " will not replay it with other rules (its record can be verified by a Meeple"
                " that has them)"
            ) from None

    def rng_key(self, seed: bytes) -> bytes:
        """The key of this game's randomness, from the server's secret `seed`."""
        if self.dealing != "seats":
            return seed
        return seats_key(seed, [s.seed for s in self.seats])

    def move_rng(self, seed: bytes, later: int = 0) -> Rng:
        """The randomness of this table's next move, or of the one `later` moves after it
        (moves sent together): keyed by `rng_key(seed)`, its stream as `move_stream` numbers
        it. A plan made ahead of the use case must draw from these, as the use case does."""
        version, before = self.version + 1 + later, self.moves + later
        return Rng(self.rng_key(seed), move_stream(self.draws, version, before))

    def seat_of(self, seat: int) -> Seat | None:
        return next((s for s in self.seats if s.seat == seat), None)

    def seats_of(self, player_id: str) -> list[int]:
        return sorted(s.seat for s in self.seats if s.player_id == player_id)

    def names(self) -> list[str]:
        """Each seat's player name, by seat ("" for a seat not taken yet)."""
        names = [""] * self.seat_count
        for placed in self.seats:
            names[placed.seat] = placed.name
        return names

    def free_seats(self) -> list[int]:
        taken = {s.seat for s in self.seats}
        return [i for i in range(self.seat_count) if i not in taken]

    def actors(self) -> list[int]:
        if self.status is not Status.ACTIVE or self.state is None:
            return []
        return sorted(self.game.actors(self.state))

    def bot_played(self, seat: int) -> bool:
        """A bot's seat, or one whose player resigned: the `ai` queue plays it."""
        placed = self.seat_of(seat)
        return seat in self.resigned or (placed is not None and placed.bot)

    def played_by_people(self) -> bool:
        """Whether a person still plays some seat (not a bot's, not resigned): then a bot's
        moves wait out their floor (games.bots.move_floor), so their timing tells no one at
        the table what the bot's seat holds."""
        return any(not self.bot_played(placed.seat) for placed in self.seats)

    def bot_level(self, seat: int) -> Level | None:
        """The level of the bot that plays `seat`: a bot's own (its player id), or the
        table's stand-in level for a resigned seat; None for a seat its player plays."""
        if seat in self.resigned:
            return self.stand_in_level()
        placed = self.seat_of(seat)
        return level_of_player(placed.player_id) if placed is not None and placed.bot else None

    def stand_in_level(self) -> Level:
        """The level of the bot that takes a timed-out turn or a resigned seat: the deadline
        rule's "bot" (default greedy); random at tables whose rule predates levels."""
        if self.deadline is None:
            return GREEDY
        chosen = self.deadline.get("bot")
        return RANDOM if chosen is None else Level.parse(chosen)

    def human_actors(self) -> list[int]:
        """The seats that must act now and are played by people."""
        return [seat for seat in self.actors() if not self.bot_played(seat)]

    def turns(self) -> dict[int, int]:
        """Each acting seat's turn (the game's `turn`): a new one gets its own clock."""
        if self.state is None:
            return {}
        return {seat: self.game.turn(self.state, seat) for seat in self.actors()}

    def clock_of(self, seat: int) -> TurnClock | None:
        return next((clock for clock in self.clocks if clock.seat == seat), None)

    def due_at(self, seat: int) -> str | None:
        """When `seat`'s move is due (ISO UTC), if it is on the clock."""
        clock = self.clock_of(seat)
        if clock is None or self.deadline is None:
            return None
        return format_time(due(clock, self.deadline))

    def to_json(self) -> dict[str, Any]:
        # By hand, not dataclasses.asdict: that deep-copies the whole game state, which
        # is already plain JSON data and is never mutated.
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["status"] = self.status.value
        data["seats"] = [asdict(seat) for seat in self.seats]
        data["clocks"] = [asdict(clock) for clock in self.clocks]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Table:
        data = dict(data)
        data["status"] = Status(data["status"])
        data["seats"] = tuple(Seat(**s) for s in data["seats"])
        data["clocks"] = tuple(TurnClock(**c) for c in data.get("clocks", ()))
        data["resigned"] = tuple(data.get("resigned", ()))
        return cls(**data)


# --- evolve ---------------------------------------------------------------


def evolve(table: Table, envelope: dict[str, Any], seed: bytes | None) -> Table:
    """The table after one more event. `seed` is needed to re-execute moves."""
    after = _apply(table, envelope, seed)
    if after.deadline is None or envelope["type"] == "MessagePosted":
        return after  # table talk changes no one's turn: no clock moves
    restart = restarted(envelope, table.turns(), after.turns())
    clocks = next_clocks(after.clocks, after.human_actors(), envelope["v"], envelope["at"],
                         restart)
    return replace(after, clocks=clocks)


def _apply(table: Table, envelope: dict[str, Any], seed: bytes | None) -> Table:
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
            deadline=data.get("deadline"),
            dealing=data.get("dealing", ""),
            draws=data.get("draws", ""),
            public=data.get("public", True),
        )
    if kind == "SeatTaken":
        seat = Seat(data["seat"], data["player_id"], data["name"], data["bot"],
                    data.get("seed", ""))
        return replace(table, seats=tuple(sorted((*table.seats, seat), key=lambda s: s.seat)))
    if kind == "GameStarted":
        state = table.game.setup(table.seat_count, table.options,
                                 _rng(table, seed, setup_stream(table.draws, v)))
        return replace(table, status=Status.ACTIVE, state=state)
    if kind == "MovePlayed":
        assert table.state is not None
        stream = move_stream(table.draws, v, table.moves)
        state, _ = table.game.play(table.state, data["seat"], data["move"],
                                   _rng(table, seed, stream))
        return replace(table, state=state, moves=table.moves + 1)
    if kind == "GameEnded":
        return replace(table, status=Status.ENDED, result=data["scores"])
    if kind == "SeedRevealed":
        return replace(table, revealed_seed=data["seed"])
    if kind == "GameScored":
        return replace(table, ratings=data["ratings"])
    if kind == "PlayerResigned":
        return replace(table, resigned=(*table.resigned, data["seat"]))
    return table  # events that do not change the table (e.g. future message types)


def _rng(table: Table, seed: bytes | None, stream: int) -> Rng:
    if seed is None:
        raise ValueError("re-executing moves needs the game's seed")
    return Rng(table.rng_key(seed), stream)


# --- decide ---------------------------------------------------------------


def decide_create(
    game: Game, seats: int, options: dict[str, Any], seed_commitment: str,
    deadline: dict[str, Any] | None = None, game_id: str | None = None,
    dealing: str = "", public: bool = True, draws: str = "",
) -> NewEvent:
    """GameCreated. `game_id` is in it for every game made since records name it: the id is
    then hashed into the chain, so a record relabelled as another game breaks at its first
    event (games made before keep their exact events, without it). `dealing="seats"`, for
    every game made since seats contribute seeds: each SeatTaken carries one (decide_join).
    `draws="moves"`, for every game made since: the setup and the moves draw from random
    streams numbered by the moves alone (games.rng.setup_stream, move_stream), so that
    nobody who can add other events to the log (table talk) can choose the deal with them."""
    if not game.min_players <= seats <= game.max_players:
        raise InvalidOptions(
            f"{game.title} is for {game.min_players} to {game.max_players} players, not {seats}"
        )
    data: dict[str, Any] = {} if game_id is None else {"game_id": game_id}
    data |= {
        "type": game.id,
        "rules_version": game.rules_version,
        "options": options,
        "seats": seats,
        "seed_commitment": seed_commitment,
    }
    if deadline is not None:  # only then: games without one keep their exact events
        data["deadline"] = deadline
    if dealing:
        if dealing != "seats":
            raise ValueError(f"unknown dealing {dealing!r}")
        data["dealing"] = dealing
    if draws:
        if draws != DRAWS_BY_MOVE:
            raise ValueError(f"unknown draws {draws!r}")
        data["draws"] = draws
    if not public:  # only then: public tables, the default, keep the events they always had
        data["public"] = False
    return NewEvent("GameCreated", data, "system")


def decide_join(
    table: Table, player_id: str, name: str, seat: int | None, bot: bool = False,
    seed: str | None = None, server_seed: bytes | None = None,
) -> list[NewEvent]:
    """SeatTaken, and GameStarted when that fills the table. `seed`: the seat's contribution
    to the randomness (SEAT_SEED), which a game that deals by seats needs and others refuse;
    without one, the seat's seed is made from the server's committed `server_seed`
    (games.rng.server_made_seat_seed)."""
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
    data: dict[str, Any] = {"seat": seat, "player_id": player_id, "name": name, "bot": bot}
    if table.dealing == "seats":
        if seed is None and server_seed is not None:
            seed = server_made_seat_seed(server_seed, seat)
        if seed is None:
            raise ValueError("a seat at a game that deals by seats brings a seed")
        if not re.fullmatch(SEAT_SEED, seed):
            raise InvalidOptions("a seat's seed is 1 to 64 letters, digits, '-' or '_'")
        data["seed"] = seed
    elif seed is not None:
        raise InvalidOptions("this game was made before seats contributed seeds: its "
                             "randomness is the server's committed seed alone; join without one")
    taken = NewEvent("SeatTaken", data, player_id)
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
    _check_in_play(table)
    seated = table.seats_of(player_id)
    if not seated:
        raise NotSeated("you have no seat at this table")
    if seat is not None and seat not in seated:
        raise NotSeated(f"seat {seat} is not yours")
    mine = [s for s in seated if s not in table.resigned]
    if not mine or (seat is not None and seat in table.resigned):
        raise AlreadyResigned("you resigned that seat: the bot plays it now")
    return _decide_plays(table, mine, seat, moves, seed, player_id)


def decide_moves_for(table: Table, seat: int, moves: list[Move], seed: bytes,
                     by: str = "system") -> Decision:
    """Moves the system plays for a seat whose player is not at the controls: a resigned
    seat's (the `ai` queue), or a timed-out seat's. The caller decides that it may."""
    _check_in_play(table)
    return _decide_plays(table, [seat], seat, moves, seed, by)


def _check_in_play(table: Table) -> None:
    if table.status is Status.OPEN:
        raise GameNotStarted("the game has not started: seats are still free")
    if table.status is Status.ENDED:
        raise GameOver("the game is over")


def _decide_plays(table: Table, mine: list[int], seat: int | None, moves: list[Move],
                  seed: bytes, by: str) -> Decision:
    game, state, version, played = table.game, table.state, table.version, table.moves
    assert state is not None
    key = table.rng_key(seed)
    events: list[NewEvent] = []
    for index, move in enumerate(moves):
        if game.is_over(state):
            raise IllegalMoveError("game_over", "the game ended before this move", index)
        acting = _acting_seat(game.actors(state), mine, seat, index)
        version += 1
        try:
            legal = game.legal_moves(state, acting)
            chosen = find_move(legal, move)
            before = state
            state, facts = game.play(state, acting, chosen, table.move_rng(seed, index))
        except IllegalMove as err:
            raise IllegalMoveError(err.code, err.detail, index) from None
        if index < len(moves) - 1 and ends_batch(game, before, acting, chosen, key, version):
            raise IllegalMoveError(
                "reveals_hidden_information",
                f"move {index} ({chosen['id']}) shows you something you cannot know yet (a "
                "draw, a hidden card): it must be the last of the moves sent together; send "
                "the rest once you have seen it", index + 1)
        # The id alone decides a move (labels are presentation), and keeps the log small.
        recorded = {"seat": acting, "move": {"id": chosen["id"]}, "facts": facts}
        events.append(NewEvent("MovePlayed", recorded, by))
        played += 1
    new_table = replace(table, state=state, version=version, moves=played)
    if game.is_over(state):
        sheet = rank_resigned_last(game.score(state), table.resigned)
        events.append(NewEvent("GameEnded", {"scores": sheet}, "system"))
        events.append(NewEvent("SeedRevealed", {"seed": seed.hex()}, "system"))
        new_table = replace(
            new_table, status=Status.ENDED, result=sheet, revealed_seed=seed.hex(),
            version=version + 2,
        )
    return Decision(events, new_table)


# At most this many moves are played for a timed-out seat in one go (a seat of a real game
# stops acting long before; the cap only guards against a rules bug looping forever).
TIMEOUT_MOVE_CAP = 500


def decide_timeout(table: Table, seat: int, started: int, seed: bytes, now: datetime,
                   timer: Clock | None = None, chosen: dict[str, str] | None = None
                   ) -> Decision:
    """TurnTimedOut for `seat`, whose turn started at version `started`, and the table's
    consequence. StaleDeadline if that turn is over; DeadlineNotDue before its time.
    `timer`: for a stand-in bot with a time budget (read only to stop its search);
    `chosen`: the stand-in's earlier choices by state (`decide_bot_turn`)."""
    clock = table.clock_of(seat)
    if table.deadline is None or table.status is not Status.ACTIVE or clock is None \
            or clock.version != started:
        raise StaleDeadline(f"seat {seat} is not on the clock started at version {started}")
    if now < due(clock, table.deadline):
        raise DeadlineNotDue(f"seat {seat} has until {due(clock, table.deadline).isoformat()}")
    timed_out = NewEvent("TurnTimedOut", {"seat": seat, "started": started}, "system")
    after = replace(table, version=table.version + 1)
    if table.deadline["on_expiry"] == "resign":
        resigned = decide_resign(after, seat, "system")
        return Decision([timed_out, *resigned.events], resigned.table)
    played = decide_bot_turn(after, seat, seed, table.stand_in_level(), timer, chosen=chosen)
    return Decision([timed_out, *played.events], played.table)


def decide_bot_turn(table: Table, seat: int, seed: bytes, level: Level,
                    timer: Clock | None = None, by: str = "system",
                    chosen: dict[str, str] | None = None) -> Decision:
    """A `level` bot's moves for `seat` until this turn of its is over: it no longer has to
    act, its next turn began (the game's `turn`), or the game ended. `chosen`: move ids by
    the state they were chosen in, read and filled: a decision made again on the same
    states (after table talk) chooses as before without searching again."""
    events: list[NewEvent] = []
    turn = table.turns().get(seat)
    for _ in range(TIMEOUT_MOVE_CAP):
        turns = table.turns()
        if table.status is not Status.ACTIVE or seat not in turns or turns[seat] != turn:
            break
        assert table.state is not None
        key = hashlib.sha256(canonical_json(table.state)).hexdigest()
        move_id = chosen.get(key) if chosen is not None else None
        if move_id is None:
            move_id = bot_move(table.game, table.state, seat,
                               bot_rng(seed, table.version, seat), level, timer)["id"]
            if chosen is not None:
                chosen[key] = move_id
        decision = decide_moves_for(table, seat, [{"id": move_id}], seed, by)
        events += decision.events
        table = decision.table
    return Decision(events, table)


def decide_resign(table: Table, seat: int, by: str) -> Decision:
    """PlayerResigned: from now on the bot plays the seat, and it ranks last at the end."""
    _check_in_play(table)
    if seat in table.resigned:
        raise AlreadyResigned(f"seat {seat} has resigned already")
    placed = table.seat_of(seat)
    if placed is None or placed.bot:
        raise NotSeated(f"seat {seat} is not a player's seat")
    event = NewEvent("PlayerResigned", {"seat": seat}, by)
    return Decision([event], replace(table, version=table.version + 1,
                                     resigned=(*table.resigned, seat)))


def after_append(decided: Table, before: Table, envelopes: list[dict[str, Any]],
                 seed: bytes | None) -> Table:
    """The table once a decision's events are stored as `envelopes`. Usually the decided
    table with the stored version, head and time; a table on the clock folds them instead,
    since its turn clocks need the time of each event (the same as rebuilding it)."""
    if before.deadline is not None:
        for envelope in envelopes:
            before = evolve(before, envelope, seed)
        return before
    last = envelopes[-1]
    return replace(decided, version=last["v"], head=last["hash"], updated_at=last["at"])


def _acting_seat(actors: set[int], mine: list[int], wanted: int | None, index: int) -> int:
    if wanted is not None:
        if wanted not in actors:
            raise NotYourTurn(f"seat {wanted} has nothing to do now (move {index})")
        return wanted
    for seat in mine:
        if seat in actors:
            return seat
    raise NotYourTurn(f"none of your seats has anything to do now (move {index})")

