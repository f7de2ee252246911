"""`meeple verify` and `meeple replay`, through click's CliRunner."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cli.main import main
from events.records.keys import b64url_encode, key_id_of, raw_public_key
from events.records.record import build_record
from games.registry import GAMES
from tests.records.helpers import SEED, attacker_key, finished_record, forge, game, sign

GOLDEN_KEYS = Path(__file__).resolve().parents[1] / "golden" / "keys.json"


def write(tmp_path: Path, record: Any, name: str = "record.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(record))
    return path


def run(*args: str, stdin: str | None = None) -> Any:
    return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)


def published(key: Any) -> dict[str, Any]:
    public = key.public_key()
    return {"keys": [{"id": key_id_of(public), "alg": "Ed25519",
                      "public_key": b64url_encode(raw_public_key(public))}]}


# --- verify ---------------------------------------------------------------------------------


def test_verify_a_valid_record_exits_0(tmp_path: Path) -> None:
    result = run("verify", str(write(tmp_path, finished_record("res-publica-2230ad"))))

    assert result.exit_code == 0, result.output
    assert result.output.startswith("VALID: game g-res-publica-2230ad-2 (res-publica-2230ad")
    assert "moves re-executed" in result.output and "trust not checked" in result.output
    assert ("keyed by the server's seed and every seat's, draws numbered by the moves"
            in result.output)


def test_verify_a_tampered_record_exits_1_and_names_the_place(tmp_path: Path) -> None:
    record = finished_record("asking-for-trobils")
    record["events"][20]["at"] = record["events"][20]["at"].replace(".000Z", ".001Z")

    result = run("verify", str(write(tmp_path, record)))

    assert result.exit_code == 1
    assert result.output.startswith("INVALID:")
    assert "[chain] events[20].hash: hash does not match the content" in result.output


def test_verify_of_a_junk_record_lists_the_first_problems_and_counts_the_rest(
        tmp_path: Path) -> None:
    junk = {"format": "meeple-record/1", "game": {}, "seed_commitment": "", "complete": True,
            "redacted_for": None, "events": [{}] * 5000, "seed": None, "scores": None,
            "signature": {}}
    result = run("verify", str(write(tmp_path, junk)))
    assert result.exit_code == 1
    assert result.output.count("  [") == 100
    assert "more problem(s), not listed (the verifier stopped there" in result.output


def test_verify_refuses_a_key_given_twice(tmp_path: Path) -> None:
    """docs/records.md, section 3: "A record whose text holds two members with the same key
    is not a valid record: Python's reader keeps the last one, another reader may keep the
    first." A genuine signed record with a second `total` put before a seat's real one: a
    reader keeping the first would see another score."""
    text = json.dumps(finished_record("res-publica-2230ad"))
    forged = text.replace('"total": ', '"total": 99, "total": ', 1)
    path = tmp_path / "record.json"
    path.write_text(forged)

    result = run("verify", str(path))

    assert result.exit_code == 1, result.output
    assert result.output.startswith("INVALID:")
    assert "the key 'total' appears twice in one object" in result.output


def test_verify_refuses_a_file_larger_than_a_record_before_reading_it(tmp_path: Path) -> None:
    path = write(tmp_path, finished_record("trappist-one"))
    size = path.stat().st_size

    small = run("verify", "--max-bytes", str(size - 1), str(path))
    default = run("verify", str(path))

    assert small.exit_code == 1 and small.output.startswith("INVALID:")
    assert f"{size:,} bytes, more than a record may hold ({size - 1:,}; see --max-bytes)" \
        in small.output
    assert default.exit_code == 0, default.output


def test_verify_refuses_more_objects_than_a_record_holds(tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    path.write_text("[" + "{}," * 200_000 + "{}]")

    result = run("verify", str(path))

    assert result.exit_code == 1
    assert "more than 200,000 JSON objects and arrays" in result.output


def test_verify_json_prints_the_report(tmp_path: Path) -> None:
    record = finished_record("asking-for-trobils")
    record["seed"] = record["seed"][:-1] + ("0" if record["seed"][-1] != "0" else "1")

    result = run("verify", "--json", str(write(tmp_path, record)))

    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["ok"] is False and report["status"] == "invalid"
    assert report["first"]["path"] == "seed" and report["first"]["check"] == "seed"
    assert {"check", "version", "path", "expected", "found", "detail"} == set(report["first"])


def test_verify_with_keys_requires_a_trusted_key(tmp_path: Path) -> None:
    record = finished_record("res-publica-2230ad")
    keys = write(tmp_path, published(attacker_key()), "keys.json")

    untrusted = run("verify", "--keys", str(keys), str(write(tmp_path, record)))
    forged = run("verify", "--keys", str(keys), str(write(tmp_path, forge(record))))

    assert untrusted.exit_code == 1
    assert "is not one of the trusted keys" in untrusted.output
    assert "NOT trusted" in untrusted.output
    assert forged.exit_code == 0, forged.output  # signed by the key the file trusts
    assert "(trusted)" in forged.output


def test_verify_a_golden_record_with_the_published_test_key() -> None:
    golden = sorted(GOLDEN_KEYS.parent.glob("*-r1.json"))[0]

    result = run("verify", "--keys", str(GOLDEN_KEYS), str(golden))

    assert result.exit_code == 0, result.output
    assert "(trusted)" in result.output


def test_verify_a_partial_record_exits_1_and_says_partial(tmp_path: Path) -> None:
    table, envelopes = game("res-publica-2230ad", moves=30)

    result = run("verify", str(write(tmp_path, sign(build_record(table, envelopes, SEED, [1])))))

    assert result.exit_code == 1
    assert result.output.startswith("PARTIAL:")
    assert "cannot be re-executed" in result.output


@pytest.mark.parametrize("content", ["not json {", "[1, 2]", '{"format": "other/1"}', ""])
def test_verify_anything_else_is_a_clean_failure(tmp_path: Path, content: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(content)

    result = run("verify", "--json", str(path))

    assert result.exit_code == 1
    assert json.loads(result.output)["problems"][0]["check"] == "format"


@pytest.mark.parametrize("record", [{"format": "meeple-record/1"}, [1, 2]])
def test_verify_of_a_record_without_a_game_header_counts_its_problems_plainly(
        tmp_path: Path, record: Any) -> None:
    """It said "INVALID:, 1 problem(s)" (an outside audit)."""
    result = run("verify", str(write(tmp_path, record)))

    assert result.exit_code == 1
    first = result.output.splitlines()[0]
    assert re.fullmatch(r"INVALID: \d+ problem\(s\)", first), first


def test_verify_a_bad_keys_file_is_a_usage_error(tmp_path: Path) -> None:
    keys = write(tmp_path, {"keys": [{"id": "x"}]}, "keys.json")

    result = run("verify", "--keys", str(keys), str(write(tmp_path, {})))

    assert result.exit_code == 2 and "--keys" in result.output


# --- replay ---------------------------------------------------------------------------------


def private_fact(record: dict[str, Any], of_seat: int) -> tuple[int, str]:
    """(version, text) of the first fact only `of_seat` may read."""
    for e in record["events"]:
        if e["type"] == "MovePlayed":
            for fact in e["data"]["facts"]:
                if fact["to"] == [of_seat]:
                    return e["v"], fact["text"]
    raise AssertionError("no private fact")


def test_replay_steps_through_the_game(tmp_path: Path) -> None:
    record = finished_record("res-publica-2230ad")
    last = len(record["events"])

    result = run("replay", str(write(tmp_path, record)), stdin="n\nn\nn\nn\np\nj 9\nq\n")

    assert result.exit_code == 0, result.output
    headers = [line for line in result.output.splitlines() if line.startswith("── v")]
    assert [h.split()[1] for h in headers] == [f"v{v}/{last}" for v in (1, 2, 3, 4, 5, 4, 9)]
    version = GAMES["res-publica-2230ad"].rules_version
    assert f"a res-publica-2230ad table (rules_version {version}) for 2 seats" in result.output
    assert "seat 1 taken by bob (p_bob)" in result.output
    assert "the game starts" in result.output


def test_replay_as_a_seat_hides_the_others_private_lines(tmp_path: Path) -> None:
    record = finished_record("res-publica-2230ad")
    v, secret = private_fact(record, of_seat=1)
    path = write(tmp_path, record)

    as_seat_0 = run("replay", str(path), "--as", "0", "--at", str(v), stdin="q\n")
    as_seat_1 = run("replay", str(path), "--as", "1", "--at", str(v), stdin="q\n")
    as_all = run("replay", str(path), "--at", str(v), stdin="s 0\ns all\nq\n")

    assert secret not in as_seat_0.output
    assert "hidden from this seat until the game ends" in as_seat_0.output
    assert "viewing as seat 0" in as_seat_0.output
    assert secret in as_seat_1.output
    assert as_all.output.count(secret) == 2  # everyone, then seat 0 (hidden), then all again
    assert "viewing as everyone" in as_all.output


def test_replay_shows_the_table_as_the_seat_sees_it(tmp_path: Path) -> None:
    record = finished_record("res-publica-2230ad")
    path = write(tmp_path, record)

    as_seat_0 = run("replay", str(path), "--as", "0", "--at", "10", stdin="q\n")
    as_all = run("replay", str(path), "--as", "all", "--at", "10", stdin="q\n")

    # The table in the game's words (Game.describe): seat 0 sees its own hand by name, the
    # others' as counts; `all` shows every seat's own part as it saw it.
    names = [e["data"]["name"] for e in record["events"] if e["type"] == "SeatTaken"]
    assert f"You ({names[0]})" in as_seat_0.output and "Hand (" in as_seat_0.output
    assert re.search(r"Hand: \d+ cards", as_seat_0.output)
    assert all(f"{name} (as they saw it)" in as_all.output for name in names)
    assert as_all.output.count("Hand (") == len(names) and "Race deck" in as_all.output


def test_replay_end_of_input_quits(tmp_path: Path) -> None:
    path = write(tmp_path, finished_record("asking-for-trobils"))

    result = run("replay", str(path), "--at", "5", stdin="")

    assert result.exit_code == 0 and "v5/" in result.output


def test_replay_explains_a_command_it_cannot_do(tmp_path: Path) -> None:
    path = write(tmp_path, finished_record("asking-for-trobils"))

    result = run("replay", str(path), stdin="p\nj 99999\ns 7\nx\nq\n")

    assert result.exit_code == 0
    assert "v1 is the first version" in result.output
    assert "jump to a version from 1 to" in result.output
    assert "seats are 0 to 1" in result.output
    assert "unknown command 'x'" in result.output


def test_replay_refuses_a_record_that_does_not_verify(tmp_path: Path) -> None:
    record = finished_record("asking-for-trobils")
    k = next(i for i, e in enumerate(record["events"]) if e["type"] == "MovePlayed")
    record["events"][k]["data"]["move"]["id"] = "~" + record["events"][k]["data"]["move"]["id"]

    result = run("replay", str(write(tmp_path, record)), stdin="q\n")

    assert result.exit_code == 1
    assert "refusing to replay" in result.output
    assert f"events[{k}]" in result.output


def test_replay_refuses_a_partial_record(tmp_path: Path) -> None:
    table, envelopes = game("res-publica-2230ad", moves=30)

    result = run("replay", str(write(tmp_path, sign(build_record(table, envelopes, SEED, [0])))))

    assert result.exit_code == 1 and "(partial)" in result.output


@pytest.mark.parametrize("args", [["--as", "9"], ["--as", "x"], ["--at", "0"]])
def test_replay_bad_options_are_usage_errors(tmp_path: Path, args: list[str]) -> None:
    path = write(tmp_path, finished_record("res-publica-2230ad"))

    result = run("replay", str(path), *args, stdin="q\n")

    assert result.exit_code == 2


def test_replay_takes_max_bytes_as_verify_does(tmp_path: Path) -> None:
    """Its refusal of a large file names --max-bytes: replay has that option too (it did not:
    an outside audit)."""
    path = write(tmp_path, finished_record("trappist-one"))
    size = path.stat().st_size

    small = run("replay", "--max-bytes", str(size - 1), str(path), stdin="q\n")
    enough = run("replay", "--max-bytes", str(size), str(path), stdin="q\n")

    assert small.exit_code == 1
    assert f"{size:,} bytes, more than a record may hold ({size - 1:,}; see --max-bytes)" \
        in small.output
    assert enough.exit_code == 0, enough.output
