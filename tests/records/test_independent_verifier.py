"""The independent verifier (tests/records/independent_verifier.py, written from
docs/records.md alone) agrees with the document and with our records: it passes every golden
record and the vectors, and it fails every tampering of the tamper matrix (test_tamper.py)
that touches the hash chain, the seed commitment or the signature. The forgeries that only
re-executing the rules can expose pass it when the forger's key is trusted, and fail
`meeple verify` (events.records.verify), which is the point of having both."""

from __future__ import annotations

import ast
import base64
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from events.records.keys import b64url_encode, key_id_of, raw_public_key, trusted_keys
from events.records.verify import verify_record
from tests.records import independent_verifier
from tests.records.helpers import GAME_TYPES, attacker_key, finished_record, server_key
from tests.records.independent_verifier import canonical, verify
from tests.records.test_tamper import TAMPERS, Tamper

HERE = Path(__file__).resolve().parent
GOLDEN = HERE.parent / "golden"
GOLDEN_RECORDS = sorted(GOLDEN.glob("*-r*.json"))
VECTORS = HERE / "vectors"


def load(path: Path) -> Any:
    return json.loads(path.read_text())


def keys_document(*keys: Ed25519PrivateKey) -> dict[str, Any]:
    """What GET /v1/keys answers for a server holding `keys`."""
    return {"keys": [{"id": key_id_of(k.public_key()), "alg": "Ed25519",
                      "public_key": b64url_encode(raw_public_key(k.public_key())),
                      "created_at": "2030-01-01T00:00:00.000Z", "current": True}
                     for k in keys]}


# --- it is independent ------------------------------------------------------------------------

ALLOWED_IMPORTS = {"__future__", "base64", "hashlib", "re", "typing", "cryptography"}


def test_the_independent_verifier_imports_nothing_of_ours() -> None:
    source = Path(independent_verifier.__file__).read_text()
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "no relative imports"
            imported.add((node.module or "").split(".")[0])

    assert imported <= ALLOWED_IMPORTS, imported - ALLOWED_IMPORTS
    assert not imported & {"events", "games", "service", "workers", "cli", "tests"}
    assert "__import__" not in source and "importlib" not in source


# --- it accepts what our code makes -----------------------------------------------------------


@pytest.mark.parametrize("path", GOLDEN_RECORDS, ids=lambda p: p.name)
def test_every_golden_record_passes(path: Path) -> None:
    assert verify(load(path), load(GOLDEN / "keys.json")) == []


def test_there_are_golden_records_to_pass() -> None:
    assert len(GOLDEN_RECORDS) >= 4


def test_the_vector_record_passes() -> None:
    assert verify(load(VECTORS / "record.json"), load(GOLDEN / "keys.json")) == []


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_an_untouched_record_passes(game_type: str) -> None:
    assert verify(finished_record(game_type), keys_document(server_key())) == []


@pytest.mark.parametrize("index", range(len(load(VECTORS / "expected.json")["canonical_json"])))
def test_its_canonical_json_writes_the_documented_bytes(index: int) -> None:
    case = load(VECTORS / "expected.json")["canonical_json"][index]

    assert canonical(case["value"]) == bytes.fromhex(case["canonical_utf8_hex"])


def test_each_vector_hash_is_recomputed_from_the_documented_bytes() -> None:
    expected = load(VECTORS / "expected.json")
    events = load(VECTORS / "record.json")["events"]

    assert [canonical({k: v for k, v in e.items() if k != "hash"}) for e in events] == [
        e["hashed"].encode("utf-8") for e in expected["envelopes"]]


# --- the quirks of docs/records.md, held ----------------------------------------------------


def test_a_float_read_as_an_integer_breaks_the_hash() -> None:
    """Section 3: a reader that turns 25.0 into 25 (as JavaScript does) recomputes another
    hash for GameScored; the record is fine, the reader is not."""
    record = load(VECTORS / "record.json")
    scored = record["events"][-1]
    assert scored["type"] == "GameScored" and scored["data"]["ratings"][0]["before"]["mu"] == 25.0
    for rating in scored["data"]["ratings"]:
        rating["before"]["mu"] = int(rating["before"]["mu"])

    problems = verify(record, load(GOLDEN / "keys.json"))

    assert f"events[{len(record['events']) - 1}].hash does not match its content" in problems


def test_a_signature_text_with_stray_trailing_bits_is_refused() -> None:
    """Section 6: the last of 86 characters holds 4 unused bits. A lenient decoder reads the
    changed text as the very same signature; a strict one must refuse it."""
    record = load(VECTORS / "record.json")
    value = record["signature"]["value"]
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    changed = value[:-1] + alphabet[alphabet.index(value[-1]) ^ 1]  # a padding bit only
    assert base64.urlsafe_b64decode(changed + "==") == base64.urlsafe_b64decode(value + "==")
    record["signature"]["value"] = changed

    assert verify(record, load(GOLDEN / "keys.json")) == [
        "signature.value does not match the record"]


def test_a_record_signed_by_a_key_that_is_not_trusted_fails() -> None:
    record = finished_record(GAME_TYPES[0])

    assert verify(record, keys_document(attacker_key())) == [
        f"key {key_id_of(server_key().public_key())} is not a trusted key with this public key"]


def test_a_keys_document_whose_id_is_not_its_keys_fails() -> None:
    keys = keys_document(server_key())
    keys["keys"][0]["id"] = key_id_of(attacker_key().public_key())

    [problem] = verify(finished_record(GAME_TYPES[0]), keys)

    assert problem.startswith("cannot verify:") and "is not an Ed25519 key of its id" in problem


def test_an_incomplete_record_is_not_passed() -> None:
    record = finished_record(GAME_TYPES[0])
    record["complete"] = False

    assert "not a complete record: it has no seed to check" in verify(
        record, keys_document(server_key()))


# --- the tamper matrix of test_tamper.py ------------------------------------------------------

SIGNATURE = "signature.value does not match the record"
CHAIN = ".hash does not match its content"
# What the independent verifier must say, besides anything else, for each tampering of
# test_tamper.TAMPERS that changes a signed byte without re-signing (and so touches what it
# checks): the signature always, and the chain or seed check when the change is there.
CAUGHT: dict[str, tuple[str, ...]] = {
    "at_of_an_event": (CHAIN, SIGNATURE),
    "by_of_an_event": (CHAIN, SIGNATURE),
    "type_of_an_event": (CHAIN, SIGNATURE),
    "move_id": (CHAIN, SIGNATURE),
    "card_in_a_fact": (CHAIN, SIGNATURE),
    "text_of_a_fact": (CHAIN, SIGNATURE),
    "seat_of_a_move": (CHAIN, SIGNATURE),
    "prev_of_an_event": (".prev is not the hash before it", CHAIN, SIGNATURE),
    "the_seed": ("SHA-256 of the seed is not seed_commitment",
                 "no SeedRevealed with this seed right after GameEnded", SIGNATURE),
    "seed_in_seed_revealed": (CHAIN, "no SeedRevealed with this seed right after GameEnded",
                              SIGNATURE),
    "the_seed_commitment": ("SHA-256 of the seed is not seed_commitment",
                            "seed_commitment is not GameCreated's", SIGNATURE),
    "a_score": (SIGNATURE,),  # the header and "scores" are covered by the signature alone
    "a_score_in_game_ended": (CHAIN, SIGNATURE),
    "a_name_in_the_header": (SIGNATURE,),
    "the_options": (SIGNATURE,),
    "the_signature": (SIGNATURE,),
    "the_last_character_of_the_signature": (SIGNATURE,),
    "the_embedded_public_key": ("key_id is not its key's id", SIGNATURE,
                                "is not a trusted key with this public key"),
    # The signature block is not signed: the key id is checked against the key instead.
    "the_key_id": ("key_id is not its key's id", "is not a trusted key with this public key"),
    "two_events_swapped": (".v is", ".prev is not the hash before it", SIGNATURE),
    "one_event_dropped": (".v is", ".prev is not the hash before it", SIGNATURE),
    "the_last_events_dropped": ("no SeedRevealed with this seed right after GameEnded",
                                SIGNATURE),
    "another_seed": (CHAIN, "SHA-256 of the seed is not seed_commitment", SIGNATURE),
}
# The forgeries: the change, then the chain re-sealed and the record re-signed by the forger.
# Against the server's keys the independent verifier refuses each of them, but only because
# the forger's key is not trusted. With a trusted key (a stolen one, or a server with a bug)
# each is a record whose every hash, commitment and signature is right: what is wrong is the
# game itself, and only re-executing the rules shows it, which is `meeple verify`'s job:
REEXECUTION_ONLY: dict[str, str] = {
    "forged_card": "a card the seed never dealt: only the rules' deal of that seed shows it",
    "forged_illegal_move": "a move id the rules do not allow there",
    "forged_score": "a score sheet that is not the rules' score of the final state "
                    "(GameEnded and the record's scores agree with each other)",
    "forged_seed_and_commitment": "another seed with its own commitment, everywhere: "
                                  "the moves' facts then differ from that seed's deal",
    "forged_swap": "two moves in another order, renumbered and re-chained",
    "forged_drop": "a move left out, renumbered and re-chained",
    "forged_author": "a move credited to someone who holds no seat",
    "forged_resignation_after_the_end": "a resignation between the last move and GameEnded, "
                                        "which would rank the winner last",
    "forged_talk_after_the_end": "table talk between the last move and GameEnded",
    "forged_moves_after_resigning": "a resigned seat's moves written by its player, not by "
                                    "the bot that plays it to the end",
    "forged_talk_under_another_name": "table talk written by another seat's player",
}


def test_every_tampering_of_the_matrix_is_classified_here() -> None:
    names = [tamper.__name__ for tamper in TAMPERS]

    assert sorted(names) == sorted([*CAUGHT, *REEXECUTION_ONLY])


@pytest.mark.parametrize("tamper", TAMPERS, ids=lambda t: t.__name__)
@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_every_tampering_fails_against_the_servers_keys(game_type: str, tamper: Tamper) -> None:
    record, _, _ = tamper(finished_record(game_type))

    problems = verify(record, keys_document(server_key()))

    assert problems, "the independent verifier passed a tampered record"
    if tamper.__name__ in REEXECUTION_ONLY:  # intact, but signed by the forger's key
        assert problems == [f"key {key_id_of(attacker_key().public_key())} is not a trusted "
                            "key with this public key"]
    for fragment in CAUGHT.get(tamper.__name__, ()):
        assert any(fragment in problem for problem in problems), (fragment, problems)


@pytest.mark.parametrize("name", sorted(REEXECUTION_ONLY))
@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_a_forgery_by_a_trusted_key_needs_re_execution(game_type: str, name: str) -> None:
    tamper = next(t for t in TAMPERS if t.__name__ == name)
    record, _, _ = tamper(finished_record(game_type))
    forger_trusted = keys_document(attacker_key())

    # The three checks of docs/records.md cannot see it (see REEXECUTION_ONLY) ...
    assert verify(record, forger_trusted) == []
    # ... `meeple verify` does: the signature is valid and trusted, the game is not.
    report = verify_record(record, trusted_keys(forger_trusted))
    assert report.checked["signature"]["valid"] is True
    assert report.checked["signature"]["trusted"] is True
    assert not report.ok
    assert "replay" in {problem.check for problem in report.problems}, [
        problem.describe() for problem in report.problems]
