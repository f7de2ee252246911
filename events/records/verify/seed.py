"""Check 5, seed: SHA-256(seed) is the seed commitment, and SeedRevealed, right after
GameEnded, carries that seed. With the seed known, it also says which seats' seeds the server
made from it (games.rng.server_made_seat_seed) and which the seats brought: a player who sent
no seed can check that the server did not choose hers."""

from __future__ import annotations

import hashlib
from typing import Any

from events.records.verify.fields import HEX, is_int
from events.records.verify.paths import json_path
from events.records.verify.verification import Verification
from games.rng import server_made_seat_seed


def check_seed(v: Verification, created: dict[str, Any] | None) -> bytes | None:
    """The seed to re-execute with: one that matches the commitment (the record's, else
    SeedRevealed's). None when none does: re-executing with a seed already shown to be
    wrong would only add noise before the real problem."""
    commitment = created["seed_commitment"] if created else v.record["seed_commitment"]
    seed = v.record["seed"]
    if not isinstance(seed, str) or not HEX.fullmatch(seed):
        v.findings.add("seed", "seed", "a complete record carries the seed, as lowercase hex",
                       found=seed)
        seed = None
    elif not _matches_commitment(v, "seed", seed, commitment):
        seed = None
    revealed = _check_seed_revealed(v, v.record["seed"], commitment)
    usable = seed or revealed
    v.checked["seed_commitment"] = usable is not None
    if usable is None:
        v.findings.add("seed", "seed", "cannot re-execute the moves: no seed in this record "
                       "matches the seed commitment")
        return None
    _tell_seat_seeds_apart(v, bytes.fromhex(usable))
    return bytes.fromhex(usable)


def _tell_seat_seeds_apart(v: Verification, seed: bytes) -> None:
    """checked["seat_seeds"]: the seats whose seed is the one the server makes from its own
    (a bot's, a player's who sent none) and those whose seed is any other (brought)."""
    made: list[int] = []
    brought: list[int] = []
    for event in v.events:
        if not isinstance(event, dict) or event.get("type") != "SeatTaken":
            continue
        data = event.get("data")
        if not isinstance(data, dict) or not is_int(data.get("seat")) \
                or not isinstance(data.get("seed"), str):
            continue
        seat = data["seat"]
        (made if data["seed"] == server_made_seat_seed(seed, seat) else brought).append(seat)
    if made or brought:
        v.checked["seat_seeds"] = {"made_by_server": sorted(made), "brought": sorted(brought)}


def _matches_commitment(v: Verification, path: str, seed: str, commitment: str) -> bool:
    digest = hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    if digest != commitment:
        v.findings.add("seed", path, "SHA-256 of the seed is not the seed commitment of "
                       "GameCreated", expected=commitment, found=digest)
    return digest == commitment


def _check_seed_revealed(v: Verification, seed: Any, commitment: str) -> str | None:
    """SeedRevealed's seed if it is right after GameEnded and matches the commitment."""
    ended = v.first_index("GameEnded")
    if ended is None:
        return None  # the header check reports a "complete" game without GameEnded
    after = ended + 1
    revealed = v.events[after] if after < len(v.events) else None
    if not isinstance(revealed, dict) or revealed.get("type") != "SeedRevealed":
        found = revealed.get("type") if isinstance(revealed, dict) else None
        v.findings.add("seed", json_path("events", after) + ".type" if revealed else "events",
                       "SeedRevealed must come right after GameEnded", expected="SeedRevealed",
                       found=found)
        return None
    data = revealed.get("data")
    shown = data.get("seed") if isinstance(data, dict) else None
    path = json_path("events", after, "data", "seed")
    if not isinstance(shown, str) or not HEX.fullmatch(shown):
        v.findings.add("seed", path, "SeedRevealed carries the seed as lowercase hex",
                       found=shown)
        return None
    if shown != seed:
        v.findings.add("seed", "seed", f"is not the seed that SeedRevealed ({path}) carries",
                       expected=shown, found=seed)
    return shown if _matches_commitment(v, path, shown, commitment) else None
