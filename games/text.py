"""A game's table in words: what each game's `describe` returns, and the few helpers every
game's description shares (issue 16). Pure: no I/O.

A description is built from one seat's view (or a spectator's) only, never from the state,
so it can hold nothing that seat may not see. The emails, the digest, `meeple replay` and
`GET /v1/games/{id}/table` all render the same sections, each in its own format.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# How the games' texts name a seat (each game's board.who): "Seat 2" counts from 0 (Res
# Publica, Asking for Trobils), "Player 3" from 1 (Trappist One, Trajan).
_SEAT = re.compile(r"\b(?:([Ss]eat)|Player) (\d+)\b")


@dataclass(frozen=True)
class Section:
    """A titled part of the table ("Your hand", "bob", "The market"), in lines of text in
    the game's own words."""

    title: str
    lines: tuple[str, ...]

    def as_json(self) -> dict[str, object]:
        return {"title": self.title, "lines": list(self.lines)}


def section(title: str, lines: Sequence[str]) -> Section:
    return Section(title, tuple(lines))


def seat_name(names: Sequence[str], seat: int) -> str:
    """The player at `seat` by name ("Seat 2" for a seat the names do not cover)."""
    return names[seat] if 0 <= seat < len(names) and names[seat] else f"Seat {seat}"


def named(text: str, names: Sequence[str]) -> str:
    """`text` (a prompt, a log line) with each "Seat N" or "Player N" (as the game's texts
    name seats) replaced by the player's name."""
    def name(match: re.Match[str]) -> str:
        seat = int(match.group(2)) - (0 if match.group(1) else 1)
        return names[seat] if 0 <= seat < len(names) and names[seat] else match.group(0)

    return _SEAT.sub(name, text)


def counted(counts: dict[str, int], label: dict[str, str] | None = None) -> str:
    """{"wool": 2, "salt": 1} as "2 Wool, 1 Salt" (zero counts left out; "none" if empty),
    each key named by `label` when given."""
    shown = [f"{n} {(label or {}).get(key, key)}" for key, n in counts.items() if n]
    return ", ".join(shown) or "none"


def listed(items: Sequence[str]) -> str:
    """Items on one line, "none" when there are none."""
    return ", ".join(items) or "none"


def as_text(sections: Sequence[Section]) -> str:
    """Sections as plain text: a title line, its lines indented below it."""
    blocks = []
    for part in sections:
        blocks.append("\n".join([part.title, *(f"  {line}" for line in part.lines)]))
    return "\n\n".join(blocks)
