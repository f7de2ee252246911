"""A record's text, read as the server reads a body (events.records.reading, which
service.middleware.json_body uses too): `meeple verify` and `meeple replay` refuse what the
server refuses, in one line, never a traceback nor a message the size of the record; and the
bound on objects and arrays counts real ones, not "{" in table talk (an outside audit,
session 38)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli.commands.verify import run as verify
from events.application.offline import OfflineLog, fixed_clock, play_offline, play_random_move
from events.domain.envelope import NewEvent
from events.domain.table import Status
from events.records import reading
from events.records.record import build_record
from events.records.verify import verify_record
from games.rng import Rng
from service.middleware import json_body
from tests.records.helpers import SEED, finished_record, sign

MEEPLE = str(Path(sys.executable).with_name("meeple"))


def test_the_server_and_the_tools_read_with_the_same_code() -> None:
    assert json_body.loads is reading.strict_loads
    assert json_body.UnacceptableJson is reading.UnacceptableJson


def lone_surrogate(tmp_path: Path, where: str) -> Path:
    """A genuine record with "\\ud800" (valid JSON grammar, ASCII text) in the game's id or
    in a move's id."""
    record = finished_record("trajan")
    if where == "id":
        record["game"]["id"] = "\ud800"
    else:
        moves = [e for e in record["events"] if e["type"] == "MovePlayed"]
        moves[0]["data"]["move"]["id"] = "\ud800"
    path = tmp_path / f"record-{where}.json"
    path.write_text(json.dumps(record))
    assert "\\ud800" in path.read_text()
    return path


def meeple(*args: str) -> subprocess.CompletedProcess[str]:
    """The real command, whose stdout is a UTF-8 stream (CliRunner's is forgiving)."""
    return subprocess.run([MEEPLE, *args], capture_output=True, text=True, timeout=120)


LONE = "a string holds a lone UTF-16 surrogate"


@pytest.mark.parametrize("where", ["id", "move"])
def test_verify_refuses_a_lone_surrogate_in_one_line(tmp_path: Path, where: str) -> None:
    done = meeple("verify", str(lone_surrogate(tmp_path, where)))
    assert "Traceback" not in done.stderr, done.stderr[-600:]
    assert done.returncode == 1 and done.stdout.startswith("INVALID"), done.stdout[:300]
    assert LONE in done.stdout and "[internal]" not in done.stdout
    assert len(done.stdout) < 1000, done.stdout[:300]


def test_verify_json_refuses_a_lone_surrogate(tmp_path: Path) -> None:
    done = meeple("verify", "--json", str(lone_surrogate(tmp_path, "id")))
    assert "Traceback" not in done.stderr, done.stderr[-600:]
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["status"] == "invalid" and LONE in report["first"]["detail"]


def test_replay_refuses_a_lone_surrogate_in_one_line(tmp_path: Path) -> None:
    done = meeple("replay", str(lone_surrogate(tmp_path, "move")))
    assert "Traceback" not in done.stderr and "internal" not in done.stderr
    assert done.returncode == 1 and LONE in done.stderr and len(done.stderr) < 1000, \
        done.stderr[:300]


def genuine_text() -> str:
    return json.dumps(finished_record("res-publica-2230ad"), ensure_ascii=False)


# What the server's body reader refuses (service.middleware.json_body), as bytes of a file.
NOT_READ: dict[str, Any] = {
    "UTF-16": lambda text: text.encode("utf-16"),
    "UTF-16-BE without a BOM": lambda text: text.encode("utf-16-be"),
    "a UTF-8 byte order mark": lambda text: b"\xef\xbb\xbf" + text.encode(),
    "invalid UTF-8": lambda text: text.replace('"alice"', '"al\udcffice"', 1).encode(
        "utf-8", "surrogateescape"),
    "an encoded surrogate": lambda text: text.replace('"alice"', '"al\ud800ice"', 1).encode(
        "utf-8", "surrogatepass"),
    "NaN": lambda text: text.replace('"complete": true', '"complete": NaN', 1).encode(),
    "a 21-digit integer": lambda text: text.replace('"seats": 2', '"seats": ' + "1" * 21,
                                                     1).encode(),
    "nested too deep": lambda text: text[:-1].encode() + b', "x": ' + b"[" * 40 + b"]" * 40
    + b"}",
}


@pytest.mark.parametrize("how", sorted(NOT_READ))
def test_the_tools_refuse_what_the_server_refuses(tmp_path: Path, how: str, capsys) -> None:
    data = NOT_READ[how](genuine_text())
    with pytest.raises(reading.UnacceptableJson):
        json_body.loads(data)  # the server: a 400
    path = tmp_path / "record.json"
    path.write_bytes(data)
    assert verify([str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("INVALID") and "not a JSON document" in out and len(out) < 1000, out
    done = meeple("replay", str(path))
    assert done.returncode == 1 and "cannot be read as a record" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_a_genuine_record_still_reads(tmp_path: Path, capsys) -> None:
    path = tmp_path / "record.json"
    path.write_text(genuine_text())
    assert verify([str(path)]) == 0, capsys.readouterr().out


def test_an_internal_error_is_one_short_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever fails inside the verifier, its report says so in a line, never with the
    record in it (a UnicodeEncodeError's repr repeats the whole text it failed on)."""
    record = finished_record("trajan")
    whole = json.dumps(record)

    def fails(*_: Any) -> None:
        raise UnicodeEncodeError("utf-8", whole, 5, 6, "surrogates not allowed")

    monkeypatch.setattr("events.records.verify.run.check_chain", fails)
    report = verify_record(record)
    assert report.first is not None and report.first.check == "internal"
    assert len(report.first.detail) < 400 and "surrogates not allowed" in report.first.detail


# --- the bound on objects and arrays ---------------------------------------------------------


def brace_talk_record() -> dict[str, Any]:
    """The auditor's griefer: 401 messages of 500 "{" in a genuine Trajan game (40 minutes
    at 10 messages a minute, in a game that lasts days)."""
    rng = Rng(b"audit braces", 2)
    table, envelopes = play_offline("trajan", 2, SEED, rng, moves=3, game_id="g-braces",
                                    clock=fixed_clock())
    log = OfflineLog(table.id, SEED, fixed_clock())
    log.table, log.envelopes = table, list(envelopes)
    for _ in range(401):
        log.append([NewEvent("MessagePosted", {"seat": 0, "text": "{" * 500}, "p_alice")])
    while log.table.status is not Status.ENDED:
        play_random_move(log, rng)
    return sign(build_record(log.table, log.envelopes, SEED, []))


def test_braces_in_table_talk_are_not_objects(tmp_path: Path, capsys) -> None:
    record = brace_talk_record()
    assert verify_record(record).ok  # the record itself is genuine and valid
    text = json.dumps(record, ensure_ascii=False).encode()
    assert text.count(b"{") > reading.RECORD_MAX_CONTAINERS  # the cheap count trips
    assert reading.too_large(text) is None
    path = tmp_path / "record.json"
    path.write_bytes(text)
    assert verify([str(path)]) == 0, capsys.readouterr().out[:300]


def test_real_objects_past_the_bound_are_still_refused() -> None:
    text = ("[" + "{}," * 200_000 + "{}]").encode()
    assert reading.too_large(text) == "more than 200,000 JSON objects and arrays"
    # Escaped quotes and backslashes do not end a string early, nor hide objects after it.
    tricky = (b'["' + b'\\"{' * 200_001 + b'\\\\", ' + b"{}, " * 200_001 + b"{}]")
    assert reading.containers(tricky) == 200_003
    braces_only = (b'["' + b'\\"{' * 200_001 + b'"]')
    assert reading.containers(braces_only) == 1
    assert json.loads(braces_only)[0].count("{") == 200_001


def test_text_that_is_not_json_is_never_undercounted() -> None:
    """An unterminated string: every "{" after its quote is counted (the parser would stop
    there, having built no more than that)."""
    text = b'[{}, "' + b"{" * 300_000
    assert reading.containers(text) == 300_002
