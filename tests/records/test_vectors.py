"""The test vectors of docs/records.md (tests/records/vectors/) against OUR code: canonical_json,
seal, envelope_hash, chain_breaks, key_id_of, sign_record and the signature check. If the
code changed a byte of the format, these fail; and the worked example of the document
quotes these same values, so the document cannot drift from the code either."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from events.domain.envelope import GENESIS, canonical_json, chain_breaks, envelope_hash, seal
from events.records.keys import b64url_decode, key_id_of, public_key_from_b64, trusted_keys
from events.records.record import FORMAT, sign_record, unsigned
from events.records.verify import verify_record

VECTORS = Path(__file__).resolve().parent / "vectors"
GOLDEN = Path(__file__).resolve().parents[1] / "golden"
DOC = Path(__file__).resolve().parents[2] / "docs" / "records.md"
EXPECTED: dict[str, Any] = json.loads((VECTORS / "expected.json").read_text())


def record() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((VECTORS / EXPECTED["record"]).read_text())
    return loaded


def published_keys() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((VECTORS / EXPECTED["keys"]).read_text())
    return loaded


def test_the_vector_is_a_complete_record_in_the_documented_layout() -> None:
    r = record()
    assert r["format"] == FORMAT == "meeple-record/1"
    assert set(r) == {"format", "game", "seed_commitment", "complete", "redacted_for", "events",
                      "seed", "scores", "signature"}
    assert r["complete"] is True and r["redacted_for"] is None
    assert all(set(e) == {"v", "type", "at", "by", "data", "prev", "hash"} for e in r["events"])
    assert [e["type"] for e in r["events"]] == [e["type"] for e in EXPECTED["envelopes"]]


@pytest.mark.parametrize("index", range(len(EXPECTED["envelopes"])))
def test_each_envelope_hashes_as_documented(index: int) -> None:
    envelope = record()["events"][index]
    want = EXPECTED["envelopes"][index]
    body = {key: value for key, value in envelope.items() if key != "hash"}

    assert canonical_json(body) == want["hashed"].encode("utf-8")
    assert envelope_hash(envelope) == want["hash"] == envelope["hash"]
    assert hashlib.sha256(want["hashed"].encode("utf-8")).hexdigest() == want["hash"]
    # Sealing the same content again makes the same envelope, hash included.
    assert seal(envelope["v"], envelope["type"], envelope["data"], envelope["by"],
                envelope["prev"], envelope["at"]) == envelope


def test_the_chain_starts_at_genesis_and_links_each_hash() -> None:
    events = record()["events"]

    assert EXPECTED["genesis_prev"] == GENESIS == "0" * 64 == events[0]["prev"]
    assert [e["prev"] for e in events[1:]] == [e["hash"] for e in events[:-1]]
    assert chain_breaks(events) == []


def test_the_seed_commitment_is_sha256_of_the_seed_bytes() -> None:
    r = record()
    revealed = next(e for e in r["events"] if e["type"] == "SeedRevealed")

    assert r["seed"] == EXPECTED["seed_hex"] == revealed["data"]["seed"]
    assert hashlib.sha256(bytes.fromhex(r["seed"])).hexdigest() == EXPECTED["seed_commitment"]
    assert EXPECTED["seed_commitment"] == r["seed_commitment"] == \
        r["events"][0]["data"]["seed_commitment"]
    # Of the bytes, not of their hex text.
    assert hashlib.sha256(r["seed"].encode()).hexdigest() != r["seed_commitment"]


def test_the_key_id_is_the_first_16_hex_digits_of_sha256_of_the_raw_public_key() -> None:
    signature = record()["signature"]
    raw = b64url_decode(signature["public_key"])

    assert len(raw) == 32 and signature["public_key"] == EXPECTED["public_key"]
    assert key_id_of(raw) == key_id_of(public_key_from_b64(signature["public_key"]))
    assert key_id_of(raw) == hashlib.sha256(raw).hexdigest()[:16] == EXPECTED["key_id"]
    [published] = published_keys()["keys"]
    assert (published["id"], published["public_key"]) == (EXPECTED["key_id"],
                                                         EXPECTED["public_key"])


def test_the_signature_is_ed25519_over_the_canonical_record_without_signature() -> None:
    r = record()
    signing_input = canonical_json(unsigned(r))

    assert len(signing_input) == EXPECTED["signing_input_length"]
    assert hashlib.sha256(signing_input).hexdigest() == EXPECTED["signing_input_sha256"]
    assert r["signature"]["value"] == EXPECTED["signature"]
    assert len(b64url_decode(EXPECTED["signature"])) == 64
    public = trusted_keys(published_keys())(EXPECTED["key_id"])
    assert public is not None
    public.verify(b64url_decode(EXPECTED["signature"]), signing_input)  # raises if not


def test_signing_again_with_the_test_key_makes_the_same_record() -> None:
    """Ed25519 is deterministic: sign_record of the unsigned record gives back every byte."""
    key = serialization.load_pem_private_key(
        (GOLDEN / "TEST-ONLY-signing-key.pem").read_bytes(), password=None)
    assert isinstance(key, Ed25519PrivateKey)
    r = record()

    assert sign_record(unsigned(r), EXPECTED["key_id"], key) == r


@pytest.mark.parametrize("index", range(len(EXPECTED["canonical_json"])))
def test_canonical_json_writes_the_documented_bytes(index: int) -> None:
    case = EXPECTED["canonical_json"][index]

    assert canonical_json(case["value"]) == case["canonical"].encode("utf-8")
    assert canonical_json(case["value"]) == bytes.fromhex(case["canonical_utf8_hex"])


def test_floats_stay_floats_through_json() -> None:
    """What section 3 asks of a reader: 25.0 is read as a float and written back as 25.0."""
    assert canonical_json(json.loads("[25.0, 25, 2.50, 1E2, -0.0]")) == b"[25.0,25,2.5,100.0,-0.0]"


def test_our_verifier_passes_the_format_and_rejects_only_the_early_end() -> None:
    """The vector's chain, seed and signature hold; only re-executing the rules shows that
    its game ends too early (docs/records.md, sections 8 and 9)."""
    r = record()

    report = verify_record(r, trusted_keys(published_keys()))

    assert report.checked["signature"] == {"key_id": EXPECTED["key_id"], "valid": True,
                                           "trusted": True}
    assert report.checked["hashes_checked"] == len(r["events"])
    assert report.checked["seed_commitment"] is True
    assert not report.ok
    assert [(p.check, p.path) for p in report.problems] == [("replay", "events[5].type")]


def test_the_document_quotes_the_vectors() -> None:
    doc = DOC.read_text()
    created, scored = EXPECTED["envelopes"][0], EXPECTED["envelopes"][-1]
    quoted = [created["hashed"], created["hash"], scored["hashed"], scored["hash"],
              EXPECTED["seed_hex"], EXPECTED["seed_commitment"], EXPECTED["key_id"],
              EXPECTED["public_key"], EXPECTED["signing_input_sha256"], EXPECTED["signature"],
              f"{EXPECTED['signing_input_length']:,}",
              f"{len(created['hashed'].encode())} bytes",
              b64url_decode(EXPECTED["public_key"]).hex()]

    assert [value for value in quoted if value not in doc] == []
