"""The plain text of turn emails: the table as the seat sees it, the moves with their codes,
and how to reply; and the Reply-To address that carries a fresh reply token."""

from __future__ import annotations

import unicodedata
from typing import Any

from events.mail import reply_tokens

HOW_TO_REPLY = [
    "Reply with the codes of your moves: one code plays one move; several codes (one per",
    "line, or separated by spaces or commas) are played in order, all or nothing, each",
    "numbered as the moves legal at its point would be listed. A move id (e.g. `done`)",
    "works too. Quoted text and your signature are ignored.",
]
# Keys of a view shown elsewhere in the email, or of no use to a reader.
_SKIPPED_KEYS = {"prompt", "score"}


def turn_lines(message: dict[str, Any]) -> list[str]:
    """The table (if the message carries a view), the numbered moves, how to reply."""
    lines: list[str] = []
    view = message.get("view")
    if isinstance(view, dict):
        lines += ["The table as you see it:", *view_lines(view, message.get("names") or {}), ""]
    lines.append("Your moves:")
    lines += [f"  {move['code']}. {move.get('label') or move.get('id')}  [{move.get('id')}]"
              for move in message["moves"]]
    return [*lines, "", *HOW_TO_REPLY]


def reply_to(message: dict[str, Any]) -> str | None:
    """A new reply address for this seat at this version (each email gets its own token);
    None for a game id that no address can carry (only imported games have such ids)."""
    try:
        token = reply_tokens.issue(reply_tokens.default_secret(), message["game_id"],
                                   message["seat"], message["version"])
    except ValueError:
        return None
    return reply_tokens.reply_address(token)


def view_lines(view: dict[str, Any], names: dict[Any, str]) -> list[str]:
    """A compact indented rendering of a game's view: one line per value, flat lists and
    maps on one line, seats named after their players."""
    lines: list[str] = []
    for key, value in view.items():
        if key not in _SKIPPED_KEYS and value is not None:
            lines += _lines(str(key), value, 1, names)
    return lines


def _lines(key: str, value: Any, depth: int, names: dict[Any, str]) -> list[str]:
    pad = "  " * depth
    if _is_flat(value):
        return [f"{pad}{key}: {_flat(value)}"]
    lines = [f"{pad}{key}:"]
    if isinstance(value, list) and all(_is_scalar(item) for item in value):
        return lines + [f"{pad}  {_flat(item)}" for item in value]  # lines of text, one each
    if isinstance(value, dict):
        for name, item in value.items():
            if item is not None:
                lines += _lines(str(name), item, depth + 1, names)
        return lines
    for index, item in enumerate(value):
        label = _item_label(item, index, names)
        if label.startswith("seat "):  # the label says it already
            item = {key: part for key, part in item.items() if key != "seat"}
        lines += _lines(label, item, depth + 1, names)
    return lines


def _item_label(item: Any, index: int, names: dict[Any, str]) -> str:
    if isinstance(item, dict) and isinstance(item.get("seat"), int):
        seat = item["seat"]
        name = names.get(seat) or names.get(str(seat))
        return f"seat {seat}" + (f" ({name})" if name else "")
    return f"#{index + 1}"


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _is_flat(value: Any) -> bool:
    if isinstance(value, dict):
        return all(_is_scalar(item) for item in value.values())
    if isinstance(value, list):
        # Items that hold ", " themselves ("Seaport: orange, blue") would run together.
        return all(_is_scalar(item) and ", " not in str(item) for item in value)
    return True


def _flat(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        shown = [f"{key} {_flat(item)}" for key, item in value.items() if item is not None]
        return ", ".join(shown) or "none"
    if isinstance(value, list):
        return ", ".join(_flat(item) for item in value) or "none"
    return str(value)


def header_text(text: str) -> str:
    """`text` fit for a header: control, format and line-separator characters (a CR/LF, a
    U+2028 in a player's name or a prompt) become spaces, so no value can start a header
    of its own or break the message; the email library encodes what is not ASCII."""
    cleaned = "".join(" " if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") else char
                      for char in text)
    return " ".join(cleaned.split())
