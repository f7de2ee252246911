"""JSON Schemas (draft 2020-12) of each game's `view` and of its moves, for third-party clients.

Why: a client that renders a table or picks moves needs to know the shape of what `view(state,
seat)` and `legal_moves` return, field by field, without reading our Python. Each game keeps
them as data beside its rules, `games/<package>/schema.json`:

    {"$schema": ..., "title": ..., "$defs": {...}, "view": {...}, "move": {...}}

`view` covers a seat's view and a spectator's under every rules version of the game; `move`
covers one element of `legal_moves`. This module hands each out as a self-contained schema
(the file's `$defs` copied in, so every `"$ref": "#/$defs/..."` resolves), reading each file
once; tests/games/test_view_schemas.py holds the schemas to what the games really produce.

Pure: it reads only the games' own schema files (the way the games read their card data) and
imports no game package, so looking up a schema never loads any rules.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

from games.registry import PACKAGES

Schema = dict[str, Any]

DRAFT = "https://json-schema.org/draft/2020-12/schema"
FILE = "schema.json"
PARTS = ("view", "move")

# What every move of every game has: a string `id` (what a client sends back to play it) and
# a human `label`; any other field is the game's own.
MOVE_COMMON: Schema = {
    "$schema": DRAFT,
    "title": "A legal move (any game)",
    "type": "object",
    "properties": {
        "id": {"type": "string", "minLength": 1,
               "description": "Unique among the legal moves now: send it back to play the move."},
        "label": {"type": "string", "description": "The move for a person."},
    },
    "required": ["id", "label"],
    "additionalProperties": True,
}


def schema_path(game_id: str) -> Path:
    """The schema file of the game's package (KeyError for an unknown game id)."""
    package = PACKAGES[game_id]  # "games.<package>"
    return Path(__file__).parent.joinpath(*package.split(".")[1:], FILE)


@cache
def _document(game_id: str) -> Schema:
    """The game's schema file, read and checked once."""
    document: Schema = json.loads(schema_path(game_id).read_text())
    missing = [key for key in ("$schema", "title", "$defs", *PARTS) if key not in document]
    if missing:
        raise ValueError(f"{schema_path(game_id)} lacks {missing}")
    if document["$schema"] != DRAFT:
        raise ValueError(f"{schema_path(game_id)} is not a draft 2020-12 schema")
    return document


def _part(game_id: str, part: str) -> Schema:
    """One part of the game's schema file as a schema of its own, with the shared `$defs`."""
    document = _document(game_id)
    schema: Schema = {"$schema": DRAFT, "title": f"{document['title']}: {part}",
                      "$defs": document["$defs"], **document[part]}
    return copy.deepcopy(schema)  # the cached document stays as read, whatever callers do


def view_schema(game_id: str) -> Schema:
    """The schema of `view(state, seat)` for a seat or a spectator, under any rules version."""
    return _part(game_id, "view")


def move_schema(game_id: str) -> Schema:
    """The schema of one element of `legal_moves(state, seat)`."""
    return _part(game_id, "move")
