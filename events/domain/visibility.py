"""What a caller may see of a table and its log: hidden information is handled here only.

Before the game ends a seat sees its own moves in full, and of the other
seats' moves only the facts addressed to everyone or to one of its seats.
Once the game has ended everything is public, the seed included.
"""

from __future__ import annotations

from typing import Any

from events.domain.envelope import Envelope
from events.domain.table import Table
from games.contract import Fact


def visible_facts(facts: list[Fact], seats: list[int], ended: bool) -> list[Fact]:
    if ended:
        return list(facts)
    return [f for f in facts if f["to"] == "all" or any(s in f["to"] for s in seats)]


def redact_envelope(envelope: Envelope, seats: list[int], ended: bool) -> Envelope:
    """The envelope as the holder of `seats` may see it. Redacted ones say so."""
    if ended or envelope["type"] != "MovePlayed":
        return envelope
    data = envelope["data"]
    own = data["seat"] in seats
    facts = visible_facts(data["facts"], seats, ended)
    if own and len(facts) == len(data["facts"]):
        return envelope
    shown: dict[str, Any] = {"seat": data["seat"], "facts": facts}
    if own:
        shown["move"] = data["move"]
    return {**envelope, "data": shown, "redacted": True}


def redact_log(envelopes: list[Envelope], seats: list[int], ended: bool) -> list[Envelope]:
    """A stretch of the log as `seats` may see it.

    Before the end no envelope shows its hash or `prev` (both null). Every hash covers the
    one before it, so any hash after a redacted envelope would let a client test guesses of
    what was hidden there (a move id, a few card names) until one matched. The whole chain is
    published with the seed when the game ends; the complete record carries it."""
    if ended:
        return list(envelopes)
    return [{**redact_envelope(e, seats, ended), "hash": None, "prev": None} for e in envelopes]


def table_view(table: Table, seat: int | None) -> dict[str, Any] | None:
    """The game state as `seat` may see it (None: a spectator); None before the start."""
    if table.state is None:
        return None
    # Once the game is over, each game's own view reveals everything (the final reveal).
    return table.game.view(table.state, seat)
