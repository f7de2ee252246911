"""Helpers for game states, which are plain JSON data (games.contract)."""

from __future__ import annotations

from typing import Any


def clone(data: Any) -> Any:
    """A deep copy of (small) JSON data: dicts, lists and immutable leaves."""
    if isinstance(data, dict):
        return {k: clone(v) for k, v in data.items()}
    if isinstance(data, list):
        return [clone(v) for v in data]
    return data
