"""A finished game's record is final: one complete record per game, the same bytes whenever it
is fetched after the end, and never signed by a server that did not host the game.

- A game played here: its record is built and signed once, at its first fetch after the end,
  and kept (`EventStore.put_record`). It holds the events up to `SeedRevealed`, the end of
  the game itself: what comes after (ratings, table talk after the end) is not the game, so
  neither a scoring worker nor a late message nor a key rotation changes the record.
- An imported game: its record is the one it came with, kept at import as posted (its
  original signature and origin); this server only serves it.
"""

from __future__ import annotations

import json
from typing import Any

from events.application.meeple import Meeple
from events.domain.envelope import Envelope
from events.domain.table import Status
from events.records.keys import Keyring
from events.records.record import build_record, sign_record


def finished_record(app: Meeple, game_id: str, keyring: Keyring) -> bytes:
    """The final record of an ended game (JSON bytes), built and signed at the first call."""
    kept = app.store.get_record(game_id)
    if kept is not None:
        return kept
    table = app.load(game_id)
    if table.status is not Status.ENDED:
        raise ValueError(f"game {game_id} has not ended: it has no final record yet")
    envelopes = app.events(game_id, 1, table.version)
    end = _end_of_game(envelopes)
    at_end = app.table_at(game_id, end)
    record = build_record(at_end, envelopes[:end], app.store.get_seed(game_id), [])
    key_id, private_key = keyring.current()
    return app.store.put_record(game_id, serialise(sign_record(record, key_id, private_key)))


def keep_imported(app: Meeple, game_id: str, record: dict[str, Any]) -> None:
    """Keep an imported game's record as it came (before its events are written)."""
    app.store.put_record(game_id, serialise(record))


def serialise(record: dict[str, Any]) -> bytes:
    return json.dumps(record, ensure_ascii=False).encode()


def _end_of_game(envelopes: list[Envelope]) -> int:
    """The version of `SeedRevealed`: the last event of the game itself."""
    for envelope in envelopes:
        if envelope["type"] == "SeedRevealed":
            return int(envelope["v"])
    raise ValueError("the game ended without revealing its seed")  # never: the decider does
