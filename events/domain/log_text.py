"""The game log in words, as one reader may read it (issue 16): what the turn email opens
with ("since your last turn") and the digest's table talk. Pure: envelopes in, lines out.

Callers pass envelopes already redacted for the reader (`visibility.redact_log`), so a line
here can hold nothing that reader may not see; seats are named (`games.text.named`).
"""

from __future__ import annotations

from collections.abc import Sequence

from events.domain.envelope import Envelope
from games.text import named, seat_name

# At most this many lines open a turn email; older ones are summed up in one line.
SINCE_LINES = 40
# The author of the moves played for a seat whose time ran out or whose player resigned.
SYSTEM = "system"


def event_lines(envelope: Envelope, names: Sequence[str]) -> list[str]:
    """Lines of one (redacted) event; none for events a player needs no words for."""
    kind, data = envelope["type"], envelope["data"]
    if kind == "MovePlayed":
        # A move that says nothing to this reader (a step of a proposal being put together)
        # is left out: the move that completes it says what it was.
        return [named(fact["text"], names) for fact in data["facts"]]
    if kind == "MessagePosted":
        return [f"{seat_name(names, data['seat'])} said: \u201c{data['text']}\u201d"]
    if kind == "TurnTimedOut":
        return [f"{seat_name(names, data['seat'])}'s time ran out."]
    if kind == "PlayerResigned":
        return [f"{seat_name(names, data['seat'])} resigned; a bot plays on for them."]
    if kind == "GameStarted":
        return ["The game began."]
    if kind == "GameEnded":
        return ["The game ended."]
    return []


def since_last_turn(envelopes: list[Envelope], seat: int) -> list[Envelope]:
    """The envelopes after `seat`'s player's last move (all of them if they have not moved
    yet). A move the system made for the seat (its time ran out, or its player resigned) is
    no turn of theirs: the player has yet to read that their time ran out, and what then
    was played for them."""
    for index in range(len(envelopes) - 1, -1, -1):
        if _own_move(envelopes[index], seat):
            return envelopes[index + 1:]
    return envelopes


def _own_move(envelope: Envelope, seat: int) -> bool:
    return (envelope["type"] == "MovePlayed" and envelope["data"]["seat"] == seat
            and envelope["by"] != SYSTEM)


def since_lines(envelopes: list[Envelope], seat: int, names: Sequence[str],
                limit: int = SINCE_LINES) -> list[str]:
    """What happened since `seat` last moved, in words, the newest `limit` lines."""
    lines = [line for envelope in since_last_turn(envelopes, seat)
             for line in event_lines(envelope, names)]
    if len(lines) > limit:
        return [f"({len(lines) - limit} earlier lines are in the game's log)",
                *lines[-limit:]]
    return lines


def last_news(envelopes: list[Envelope], seat: int, names: Sequence[str]) -> str | None:
    """The first line of the latest move by another seat ("alice requests 1 Mechanized
    Warfare."): what a subject line says happened."""
    for envelope in reversed(envelopes):
        if envelope["type"] == "MovePlayed" and envelope["data"]["seat"] != seat:
            lines = event_lines(envelope, names)
            return lines[0] if lines else None
        if envelope["type"] == "MovePlayed":
            return None
    return None
