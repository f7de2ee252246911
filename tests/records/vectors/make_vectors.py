"""Write the test vectors of docs/records.md: a tiny signed record and its expected values.
Run once from the repository root (it never overwrites; delete both files to remake them):

    .venv/bin/python tests/records/vectors/make_vectors.py

record.json is built and signed by our own code (build_record, sign_record) with the
TEST-ONLY key of tests/golden, from events sealed with `seal`. It is deliberately tiny, so it
is NOT a game played to its end: GameEnded follows the first move. Its hash chain, seed
commitment and signature are valid; re-executing it (`meeple verify`) rejects it, because
the rules say the game is not over at that point. That is on purpose: it shows what the
format checks alone cannot see. A whole real game is in tests/golden/.

It carries what a reimplementation most often gets wrong: a non-ASCII name (UTF-8, not
\\u escapes), a GameScored event after SeedRevealed with floats (25.0 is written "25.0"),
and a private fact (`"to": [0]`).

expected.json holds the values the document promises, as this code made them the day the
vectors were written: each envelope's hashed bytes and hash, the seed commitment, the key
id, the length and SHA-256 of the signing input, the signature; and a few canonical JSON
vectors (value -> exact bytes). test_vectors.py holds our code to them from then on, and
independent_verifier.py (written from docs/records.md alone) checks them too.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from openskill.models import PlackettLuce

from events.application.offline import fixed_clock
from events.domain.envelope import GENESIS, Envelope, canonical_json, seal
from events.domain.table import Table, decide_moves, evolve
from events.records.keys import key_id_of
from events.records.record import build_record, sign_record, unsigned
from games.registry import get_game

HERE = Path(__file__).resolve().parent
KEY_FILE = HERE.parents[1] / "golden" / "TEST-ONLY-signing-key.pem"
GAME_TYPE, RULES_VERSION = "res-publica-2230ad", "1"
SEED = hashlib.sha256(b"meeple record vectors").digest()  # 32 bytes, as a server's seeds
GAME_ID = "vectors-2p"

# value -> the exact canonical bytes (as UTF-8 text in expected.json)
CANONICAL_CASES: list[Any] = [
    {"b": 1, "a": [3, 1, 2], "A": None, "_": False, "é": True},
    "quote \" backslash \\ slash / tab \t newline \n nul \x00 unit \x1f del \x7f",
    "Zoë € 😀 \u2028",
    [0, -7, 12345678901234567890, 25.0, 8.333333333333334, 0.1, -0.0, 1e16, 1e-05, 1e22],
    {"\ue000": "private use (U+E000)", "😀": "U+1F600: sorts after U+E000 here"},
]


def test_key() -> Ed25519PrivateKey:
    key = serialization.load_pem_private_key(KEY_FILE.read_bytes(), password=None)
    assert isinstance(key, Ed25519PrivateKey)
    return key


def make_record(key: Ed25519PrivateKey) -> dict[str, Any]:
    game = get_game(GAME_TYPE, RULES_VERSION)
    clock = fixed_clock()
    envelopes: list[Envelope] = []
    table = Table.empty(GAME_ID)

    def append(type_: str, data: dict[str, Any], by: str) -> None:
        nonlocal table
        prev = envelopes[-1]["hash"] if envelopes else GENESIS
        v = len(envelopes) + 1
        envelopes.append(seal(v, type_, data, by, prev, clock(v)))
        table = evolve(table, envelopes[-1], SEED)

    append("GameCreated", {"type": game.id, "rules_version": game.rules_version,
                           "options": {}, "seats": 2,
                           "seed_commitment": hashlib.sha256(SEED).hexdigest()}, "system")
    players = [("p_alice", "alice"), ("p_zoe", "Zoë")]
    for seat, (player_id, name) in enumerate(players):
        append("SeatTaken", {"seat": seat, "player_id": player_id, "name": name, "bot": False},
               player_id)
    append("GameStarted", {}, "system")
    assert table.state is not None
    seat = min(game.actors(table.state))
    player_id = players[seat][0]
    # The move with a private fact, if the first seat has one (res-publica's "draw" does).
    moves = game.legal_moves(table.state, seat)
    move = next((m for m in moves if m["id"] == "draw"), moves[0])
    decision = decide_moves(table, player_id, seat, [{"id": move["id"]}], SEED)
    [played] = decision.events
    append(played.type, played.data, played.by)
    assert table.state is not None
    append("GameEnded", {"scores": game.score(table.state)}, "system")  # early: see above
    append("SeedRevealed", {"seed": SEED.hex()}, "system")
    model = PlackettLuce()
    before = [model.rating() for _ in players]
    ranks = {row["seat"]: row["rank"] for row in table.result["seats"]} if table.result else {}
    after = model.rate([[rating] for rating in before], ranks=[ranks[0], ranks[1]])
    append("GameScored", {"ratings": [
        {"seat": s, "player_id": players[s][0],
         "before": {"mu": before[s].mu, "sigma": before[s].sigma},
         "after": {"mu": after[s][0].mu, "sigma": after[s][0].sigma}}
        for s in range(len(players))]}, "system")
    record = build_record(table, envelopes, SEED, [])
    return sign_record(record, key_id_of(key.public_key()), key)


def expected_values(record: dict[str, Any]) -> dict[str, Any]:
    signing_input = canonical_json(unsigned(record))
    return {
        "record": "record.json",
        "keys": "../../golden/keys.json",
        "genesis_prev": GENESIS,
        "envelopes": [
            {"v": e["v"], "type": e["type"],
             "hashed": canonical_json(
                 {k: x for k, x in e.items() if k != "hash"}).decode("utf-8"),
             "hash": hashlib.sha256(canonical_json(
                 {k: x for k, x in e.items() if k != "hash"})).hexdigest()}
            for e in record["events"]
        ],
        "seed_hex": record["seed"],
        "seed_commitment": hashlib.sha256(bytes.fromhex(record["seed"])).hexdigest(),
        "key_id": record["signature"]["key_id"],
        "public_key": record["signature"]["public_key"],
        "signing_input_length": len(signing_input),
        "signing_input_sha256": hashlib.sha256(signing_input).hexdigest(),
        "signature": record["signature"]["value"],
        "canonical_json": [{"value": case, "canonical": canonical_json(case).decode("utf-8"),
                            "canonical_utf8_hex": canonical_json(case).hex()}
                           for case in CANONICAL_CASES],
    }


def main() -> int:
    record_file, expected_file = HERE / "record.json", HERE / "expected.json"
    if record_file.exists() or expected_file.exists():
        print("kept: the vectors exist (delete record.json and expected.json to remake them)")
        return 0
    record = make_record(test_key())
    record_file.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    # Written as the reader will read them: through JSON, so the values are the parsed ones.
    reread = json.loads(record_file.read_text())
    # ASCII only (\\u escapes in this file): nothing invisible; "canonical_utf8_hex" has the
    # exact bytes.
    expected_file.write_text(json.dumps(expected_values(reread), indent=2) + "\n")
    print(f"wrote: {record_file.name}, {expected_file.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
