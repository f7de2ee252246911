"""Write the golden game records: finished games of every game type, signed with the
TEST-ONLY key beside this file. Run from the repository root:

    .venv/bin/python tests/golden/make_golden.py          # writes the records that are missing
    .venv/bin/python tests/golden/make_golden.py --check  # exit 1 if a stored one differs

A record's file name carries the rules_version it was played under. Existing files are never
overwritten: a record of an older rules_version is kept as it is (the tests re-enact it under
that version's rules, which the code keeps), and the run adds the record for the newest
rules_version. See README.md here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from events.application.offline import extend, fixed_clock, play_offline
from events.domain.envelope import NewEvent
from events.records.keys import b64url_encode, key_id_of, raw_public_key
from events.records.record import build_record, sign_record
from games.registry import get_game
from games.rng import Rng

HERE = Path(__file__).resolve().parent
KEY_FILE = HERE / "TEST-ONLY-signing-key.pem"
KEYS_FILE = HERE / "keys.json"  # the test key as GET /v1/keys would publish it
KEY_WARNING = (b"TEST ONLY: this private key signs the golden records in tests/golden/. It is\n"
               b"public, so anyone can sign with it: never trust it outside these tests.\n")


# (game type, players, options, bot seats, with a GameScored event as the scoring worker
# appends it)
GOLDEN: list[tuple[str, int, dict[str, Any], tuple[int, ...], bool]] = [
    ("res-publica-2230ad", 2, {}, (), True),
    ("res-publica-2230ad", 3, {}, (2,), False),
    ("asking-for-trobils", 2, {"short_game": True}, (), False),
    ("asking-for-trobils", 3, {}, (0,), True),
    # Trappist One: one record per combination of its two variants
    ("trappist-one", 2, {}, (), True),
    ("trappist-one", 3, {"expert_scoring": True}, (1,), False),
    ("trappist-one", 4, {"exodite": True}, (3,), False),
    ("trappist-one", 2, {"expert_scoring": True, "exodite": True}, (0,), False),
    ("trajan", 2, {}, (), True),
    ("trajan", 3, {}, (2,), False),
]


def test_key() -> Ed25519PrivateKey:
    if not KEY_FILE.exists():
        pem = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption())
        KEY_FILE.write_bytes(KEY_WARNING + pem)
    key = serialization.load_pem_private_key(KEY_FILE.read_bytes(), password=None)
    assert isinstance(key, Ed25519PrivateKey)
    return key


def published_keys(key: Ed25519PrivateKey) -> dict[str, Any]:
    public = key.public_key()
    return {"keys": [{"id": key_id_of(public), "alg": "Ed25519",
                      "public_key": b64url_encode(raw_public_key(public)),
                      "created_at": "2030-01-01T00:00:00.000Z", "current": True}]}


# Games whose records were made before seeds and ids named the variant (kept as they are).
NAMED_BEFORE_VARIANTS = {"res-publica-2230ad", "asking-for-trobils"}


def variant_of(options: dict[str, Any]) -> str:
    return "".join(f"-{name}" for name, on in sorted(options.items()) if on)


def file_name(game_type: str, players: int, options: dict[str, Any], rules_version: str) -> str:
    return f"{game_type}-{players}p{variant_of(options)}-r{rules_version}.json"


def make_record(game_type: str, players: int, options: dict[str, Any], bots: tuple[int, ...],
                scored: bool, key: Ed25519PrivateKey) -> dict[str, Any]:
    name = f"{game_type}/{players}"
    if game_type not in NAMED_BEFORE_VARIANTS:  # two records of one player count differ
        name += variant_of(options).replace("-", "/")
    seed = f"golden/{name}".encode()
    clock = fixed_clock()
    table, envelopes = play_offline(game_type, players, seed, Rng(b"golden bots", players),
                                    options=options, bots=bots,
                                    game_id="golden-" + name.replace("/", "-").replace("_", "-"),
                                    clock=clock)
    if scored:
        # The rows as the scoring worker writes them (events.readmodels.ratings); records
        # made before this file did so carry {"seat", "player_id", "mu_before", "mu_after"}.
        ratings = [{"seat": s.seat, "player_id": s.player_id,
                    "before": {"mu": 25.0, "sigma": 8.333}, "after": {"mu": 25.0, "sigma": 8.0}}
                   for s in table.seats if not s.bot]
        table, envelopes = extend(table, envelopes,
                                  [NewEvent("GameScored", {"ratings": ratings}, "system")],
                                  seed, clock)
    record = build_record(table, envelopes, seed, [])
    return sign_record(record, key_id_of(key.public_key()), key)


def dump(record: dict[str, Any]) -> str:
    """JSON with one event per line: readable diffs. The signature is over the canonical
    form, so the layout does not matter to it."""
    def compact(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))

    lines = ["{"]
    items = list(record.items())
    for index, (name, value) in enumerate(items):
        comma = "," if index < len(items) - 1 else ""
        if name == "events":
            lines.append('  "events": [')
            lines += [f"    {compact(e)}{',' if i < len(value) - 1 else ''}"
                      for i, e in enumerate(value)]
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(name)}: {compact(value)}{comma}")
    return "\n".join([*lines, "}"]) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare instead of writing; exit 1 if a stored record differs")
    args = parser.parse_args()
    key = test_key()
    KEYS_FILE.write_text(json.dumps(published_keys(key), indent=2) + "\n")
    status = 0
    for game_type, players, options, bots, scored in GOLDEN:
        path = HERE / file_name(game_type, players, options, get_game(game_type).rules_version)
        text = dump(make_record(game_type, players, options, bots, scored, key))
        if args.check:
            same = path.exists() and path.read_text() == text
            print(f"{'same' if same else 'DIFFERS'}: {path.name}")
            status |= 0 if same else 1
        elif path.exists():
            print(f"kept: {path.name}")
        else:
            path.write_text(text)
            print(f"wrote: {path.name}")
    return status


if __name__ == "__main__":
    sys.exit(main())
