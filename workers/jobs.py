"""The RQ jobs. Each is idempotent: it re-reads the game and does nothing when stale."""

from __future__ import annotations

import functools
import math
import os
import time

import structlog

from events.accounts.players import bot_player
from events.application.meeple import Meeple, wait_until
from events.domain.envelope import NewEvent
from events.domain.table import Status, Table
from events.exceptions import GameOver, IllegalMoveError, NotYourTurn, VersionConflict
from events.readmodels.ratings import Ratings
from events.store.clients import Connections, connect
from games.bots import GREEDY, OVER_BUDGET, Level, bot_move, bot_rng, move_floor

log = structlog.get_logger()

# The searching bots of one game think this long in all (seconds, MEEPLE_BOT_THINKING_SECONDS);
# then they play greedy. Anyone may seat five ismcts-5000ms bots at a table of their own, and
# such a game would hold an `ai` worker for hours: this bounds what one table costs.
THINKING_PER_GAME = 1800.0
THINKING_KEPT = 30 * 24 * 3600  # a game's thinking total is forgotten after 30 days unplayed


def _app() -> Meeple:
    """The use cases for one job, on this process's Redis clients (made once per process and
    settings: a cluster client costs ~27 ms to make, CLUSTER SLOTS and new connections, more
    than a bot's move; a forked job is another process, with clients of its own). The
    Meeple itself, and so its table cache, is the job's own."""
    settings = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("MEEPLE_")))
    return Meeple.connect(_connections(os.getpid(), settings))


@functools.lru_cache(maxsize=8)
def _connections(pid: int, settings: tuple[tuple[str, str], ...]) -> Connections:
    return connect(dict(settings))


def play_bot_turn(game_id: str, version: int, seat: int) -> str:
    """Play one move for a bot seat at its level, if the game is still at `version`."""
    app = _app()
    table = app.load(game_id)
    level = table.bot_level(seat)
    if table.version != version or seat not in table.actors() or level is None:
        return "stale"
    assert table.state is not None
    seed = app.store.get_seed(game_id) or b""
    thinks = _thinking_level(app, game_id, level)
    started = time.monotonic()
    move = bot_move(table.game, table.state, seat, bot_rng(seed, version, seat), thinks,
                    time.monotonic)
    _count_thinking(app, game_id, seat, level, time.monotonic() - started, thinks)
    if table.played_by_people():  # when it moves must not tell what its seat holds
        wait_until(started + move_floor(thinks))
    at: int | None = version
    while at is not None:
        try:
            if seat in table.resigned:  # its player resigned: the system plays it
                app.play_for_seat(game_id, seat, [{"id": move["id"]}], at)
            else:
                app.play_moves(bot_player(seat, level.id), game_id, [{"id": move["id"]}], at,
                               seat)
            return "played"
        except VersionConflict:
            # Table talk while it thought changes neither the state nor whose turn it is:
            # the move stands (else chat every few seconds starved a searching bot for good).
            at = app.talk_since(game_id, at)
        except (NotYourTurn, GameOver):
            break
        except IllegalMoveError:
            log.error("bot move rejected", game_id=game_id, version=version, seat=seat)
            raise
    return "stale"  # someone else moved first; the dispatcher queued the next job


def thinking_limit() -> float:
    """The seconds the searching bots of one game may think in all: MEEPLE_BOT_THINKING_SECONDS
    (0 or more), else THINKING_PER_GAME; ValueError says what is wrong with a bad value
    (`meeple run` and `meeple worker` check it before they start)."""
    raw = os.environ.get("MEEPLE_BOT_THINKING_SECONDS", "").strip()
    if not raw:
        return THINKING_PER_GAME
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds >= 0):
        raise ValueError(f"MEEPLE_BOT_THINKING_SECONDS is a number of seconds, 0 or more "
                         f"(the searching bots' thinking time per game), not {raw!r}")
    return seconds


def _thinking_key(app: Meeple, game_id: str) -> str:
    return f"{app.prefix}:ai:thinking:{game_id}"


def _thinking_level(app: Meeple, game_id: str, level: Level) -> Level:
    """The level the bot plays this move at: its own, or greedy once the game's searching
    bots have thought THINKING_PER_GAME seconds in all."""
    if level.kind != "ismcts":
        return level
    limit = thinking_limit()
    spent = float(app.redis.get(_thinking_key(app, game_id)) or 0.0)
    return GREEDY if spent >= limit else level


def _count_thinking(app: Meeple, game_id: str, seat: int, level: Level, seconds: float,
                    played: Level | None = None) -> None:
    """Count the bot's moves, and log and count those that missed their time budget by more
    than OVER_BUDGET, and those played at greedy once the game's thinking was spent
    (`played`; `meeple stats` shows all three). A search's time adds to the game's total."""
    played = played or level
    over = played.ms is not None and seconds * 1000 > played.ms * OVER_BUDGET
    pipe = app.redis.pipeline()
    pipe.hincrby(f"{app.prefix}:ai:moves", level.id, 1)
    if over:
        pipe.hincrby(f"{app.prefix}:ai:over_budget", level.id, 1)
    if played != level:
        pipe.hincrby(f"{app.prefix}:ai:thinking_spent", level.id, 1)
    if played.kind == "ismcts":
        pipe.incrbyfloat(_thinking_key(app, game_id), seconds)
        pipe.expire(_thinking_key(app, game_id), THINKING_KEPT)
    pipe.execute()
    if over:
        log.warning("bot move over budget", game_id=game_id, seat=seat, level=level.id,
                    ms=round(seconds * 1000))


def rated(app: Meeple, table: Table) -> bool:
    """Whether a finished game moves the public leaderboard: not a private game (the
    ratings would tell anyone its result), nor one in which no person made a move (bots and
    stand-ins played it all: it says nothing of the people, and two accounts of one person
    resigning against each other farmed ratings so). A table of bots alone is rated: the
    leaderboard lists the levels."""
    if not table.public:
        return False
    people = {s.player_id for s in table.seats if not s.bot}
    return not people or any(envelope["type"] == "MovePlayed" and envelope["by"] in people
               for envelope in app.events(table.id, 1, table.version))


def score_game(game_id: str) -> str:
    """Append GameScored for a finished game and update the leaderboard, exactly once."""
    app = _app()
    ratings = Ratings(app.redis)
    table = app.load(game_id)
    if table.status is not Status.ENDED:
        return "not ended"
    if app.store.origin(game_id) is not None:
        return "imported: never rated"
    if table.ratings is not None:
        ratings.apply(table.type, table.ratings)  # idempotent: re-set the recorded values
        return "already scored"
    with ratings.lock(table.type):
        rows = ratings.compute(table) if rated(app, table) else []
        try:
            app.append_system_events(
                game_id, [NewEvent("GameScored", {"ratings": rows}, "system")], table.version
            )
        except VersionConflict:
            return score_game(game_id)  # something was appended meanwhile: look again
        ratings.apply(table.type, rows)
    return "scored"
