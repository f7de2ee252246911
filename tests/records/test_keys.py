"""The keyring: one first key however many processes start at once, rotation that keeps old
keys, 0600 private keys, and the published list that verifiers trust."""

from __future__ import annotations

import multiprocessing
import stat
from pathlib import Path

import pytest

from events.records.keys import (
    Keyring,
    b64url_decode,
    b64url_encode,
    key_id_of,
    public_key_from_b64,
    raw_public_key,
    trusted_keys,
)
from events.records.record import build_record, sign_record
from events.records.verify import verify_record
from tests.records.helpers import GAME_TYPES, SEED, game


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_first_key_is_made_on_first_use_and_kept(tmp_path: Path) -> None:
    ring = Keyring(tmp_path / "keys")

    key_id, private = ring.current()

    assert key_id == key_id_of(private.public_key()) and len(key_id) == 16
    assert Keyring(tmp_path / "keys").current()[0] == key_id  # another process, same key
    pem = tmp_path / "keys" / f"{key_id}.pem"
    assert pem.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")  # PKCS8
    assert mode(pem) == 0o600
    assert mode(tmp_path / "keys") == 0o700
    assert not list((tmp_path / "keys").glob(".*.tmp"))


def test_public_keys_list_every_key_and_mark_the_current_one(tmp_path: Path) -> None:
    ring = Keyring(tmp_path)
    first, private = ring.current()

    second = ring.rotate()

    assert ring.current()[0] == second != first
    listed = ring.public_keys()
    assert [entry["id"] for entry in listed] == [first, second]  # oldest first
    assert [entry["current"] for entry in listed] == [False, True]
    assert {entry["alg"] for entry in listed} == {"Ed25519"}
    assert listed[0]["public_key"] == b64url_encode(raw_public_key(private.public_key()))
    assert all(entry["created_at"].endswith("Z") for entry in listed)


def test_an_old_key_still_verifies_its_records_after_a_rotation(tmp_path: Path) -> None:
    ring = Keyring(tmp_path)
    old_id, old_key = ring.current()
    table, envelopes = game(GAME_TYPES[0])
    record = sign_record(build_record(table, envelopes, SEED, []), old_id, old_key)

    ring.rotate()
    ring.rotate()

    old_public = ring.public_key(old_id)
    assert old_public is not None
    assert raw_public_key(old_public) == raw_public_key(old_key.public_key())
    report = verify_record(record, trusted_keys({"keys": ring.public_keys()}))
    assert report.ok and report.checked["signature"]["trusted"] is True


def test_a_key_id_is_looked_up_only_when_it_is_one(tmp_path: Path) -> None:
    ring = Keyring(tmp_path / "keys")
    ring.current()
    (tmp_path / "secret.pem").write_text("not yours")

    for wanted in ("0123456789abcdef", "../secret", "", "ABCDEF0123456789", "x" * 16):
        assert ring.public_key(wanted) is None


def test_an_empty_keyring_publishes_its_first_key_before_it_signs_anything(
        tmp_path: Path) -> None:
    """"GET /v1/keys lists the server's key from its first start, not from its first
    signature": listing the keys of an empty keyring makes the first key."""
    assert Keyring(tmp_path / "none").public_key("0123456789abcdef") is None
    [published] = Keyring(tmp_path / "none").public_keys()
    assert published["current"] is True
    assert Keyring(tmp_path / "none").current()[0] == published["id"]


def test_a_process_that_loses_the_race_takes_the_winners_key(tmp_path: Path) -> None:
    loser = Keyring(tmp_path)  # found no key, as the winner did, a moment before it
    winner_id, _ = Keyring(tmp_path).current()

    loser_id = loser._create_first()  # makes a candidate, then finds `current` taken

    assert loser_id == winner_id
    assert [p.stem for p in tmp_path.glob("*.pem")] == [winner_id]  # its candidate is gone
    assert [p.stem for p in tmp_path.glob("*.json")] == [winner_id]


def _first_key(path: str, start: multiprocessing.synchronize.Event,
               results: multiprocessing.Queue[str]) -> None:
    start.wait(10)
    results.put(Keyring(Path(path)).current()[0])


@pytest.mark.parametrize("attempt", range(3))
def test_processes_starting_at_once_agree_on_one_first_key(tmp_path: Path, attempt: int) -> None:
    context = multiprocessing.get_context("fork")
    start = context.Event()
    results: multiprocessing.Queue[str] = context.Queue()
    workers = [context.Process(target=_first_key, args=(str(tmp_path), start, results))
               for _ in range(6)]
    for worker in workers:
        worker.start()
    start.set()  # all at once
    ids = [results.get(timeout=30) for _ in workers]
    for worker in workers:
        worker.join(30)

    assert len(set(ids)) == 1
    assert [p.stem for p in tmp_path.glob("*.pem")] == ids[:1]
    assert Keyring(tmp_path).current()[0] == ids[0]


def test_trusted_keys_reads_what_the_server_publishes(tmp_path: Path) -> None:
    ring = Keyring(tmp_path)
    key_id, private = ring.current()

    lookup = trusted_keys({"keys": ring.public_keys()})

    found = lookup(key_id)
    assert found is not None and raw_public_key(found) == raw_public_key(private.public_key())
    assert lookup("0" * 16) is None


@pytest.mark.parametrize("published", [
    [], {"keys": "x"}, {"keys": [{"id": "a", "alg": "RSA", "public_key": "x"}]},
    {"keys": [{"id": "0000000000000000", "alg": "Ed25519",
               "public_key": b64url_encode(bytes(32))}]},
    {"keys": [{"id": 5, "alg": "Ed25519", "public_key": None}]},
])
def test_a_malformed_key_list_is_refused(published: object) -> None:
    with pytest.raises(ValueError):
        trusted_keys(published)


def test_base64url_is_strict() -> None:
    raw = bytes(range(32))
    text = b64url_encode(raw)

    assert b64url_decode(text) == raw and "=" not in text
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    # 32 bytes take 43 characters; the last one's two lowest bits are padding.
    padding_bit = alphabet[alphabet.index(text[-1]) ^ 1]
    for bad in (text + "=", text[:-1] + padding_bit, text + "*", "a"):
        with pytest.raises(ValueError):
            b64url_decode(bad)
    with pytest.raises(ValueError, match="32 bytes"):
        public_key_from_b64(b64url_encode(bytes(31)))
