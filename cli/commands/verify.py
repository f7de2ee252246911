"""`meeple verify RECORD.json`: check a game record offline (events.records.verify); exit 0
if it is valid, 1 if not, 2 for a usage error.

It runs on every page view of a record (issue 12: under 0.3 s, start-up included), so it is
an argparse command that the `meeple` script runs before loading click (cli.main.run): click
alone is some 50 ms of imports. Under click (`meeple --log-level … verify`, CliRunner) the
`verify` command of cli.main hands its arguments here unparsed."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from events.records.keys import trusted_keys
from events.records.reading import RECORD_MAX_BYTES, parse_record
from events.records.verify import Report, TrustedKeys, unreadable, verify_record


def read_json(path: Path, max_bytes: int = RECORD_MAX_BYTES) -> Any:
    """ValueError (with the reason, one line) when the file is not JSON a record may be, as
    the server reads it (events.records.reading): too large, not UTF-8, a key twice in one
    object, a lone surrogate, NaN, nested too deep..."""
    size = path.stat().st_size
    if size > max_bytes:  # before reading it: a hostile file costs nothing
        raise ValueError(f"{size:,} bytes, more than a record may hold ({max_bytes:,}; "
                         "see --max-bytes)")
    return parse_record(path.read_bytes(), max_bytes)


def load_trusted_keys(path: Path | None, parser: argparse.ArgumentParser) -> TrustedKeys | None:
    if path is None:
        return None
    try:
        return trusted_keys(read_json(path))
    except ValueError as error:
        parser.error(f"argument --keys: {path}: {error}")


def summary_lines(report: Report, record: Any) -> list[str]:
    """A few lines for a person: the verdict, what was checked, then each problem."""
    game = record.get("game") if isinstance(record, dict) else None
    said = []  # "VALID: game g-1 (trajan, rules_version 1)", "INVALID: 1 problem(s)"
    if isinstance(game, dict):
        said.append(f"game {game.get('id')} ({game.get('type')}, rules_version "
                    f"{game.get('rules_version')})")
    if report.problems:
        said.append(f"{len(report.problems)} problem(s)")
    verdict = {"valid": "VALID", "partial": "PARTIAL", "invalid": "INVALID"}[report.status]
    lines = [f"{verdict}: {', '.join(said)}" if said else verdict]
    lines.append("checked: " + _checked_text(report.checked))
    lines += [f"  [{problem.check}] {problem.describe()}" for problem in report.problems]
    if report.not_listed:
        stop = (" (the verifier stopped there: a record that wrong needs no more looking "
                "at)" if report.stopped else "")
        lines.append(f"  ... and {report.not_listed} more problem(s), not listed{stop}")
    return lines


def _checked_text(checked: dict[str, Any]) -> str:
    parts = [f"{checked.get('events', 0)} events"]
    signature = checked.get("signature")
    if isinstance(signature, dict):
        trust = {True: "trusted", False: "NOT trusted", None: "trust not checked"}
        state = "valid" if signature.get("valid") else "INVALID"
        parts.append(f"signature {state} by key {signature.get('key_id')} "
                     f"({trust[signature.get('trusted')]})")
    for key, label in (("hashes_checked", "hashes"), ("redacted_events", "redacted events"),
                       ("moves_reexecuted", "moves re-executed"),
                       ("facts_compared", "facts compared")):
        if key in checked:
            parts.append(f"{checked[key]} {label}")
    if checked.get("seed_commitment"):
        parts.append("seed matches its commitment")
    seats = checked.get("seat_seeds")
    if isinstance(seats, dict):
        parts += [f"{label}: {', '.join(map(str, seats[key]))}" for key, label in
                  (("made_by_server", "seat seeds made from the server's seed (sent none)"),
                   ("brought", "seat seeds brought by the seats"))
                  if seats.get(key)]
    randomness = checked.get("randomness")
    if isinstance(randomness, dict):
        parts.append("keyed by " + ("the server's seed and every seat's"
                                    if randomness.get("dealing") == "seats"
                                    else "the server's seed alone")
                     + ", draws numbered by " + ("the moves" if randomness.get("draws") == "moves"
                                                 else "the versions (an older record)"))
    for kind, text in (checked.get("not_rederived") or {}).items():
        parts.append(f"{kind}: {text}")
    return "; ".join(parts)


def a_file(text: str) -> Path:
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text}: no such file" if not path.exists()
                                         else f"{text}: not a file")
    return path


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(
        prog="meeple verify",
        description="Verify a game record offline: signature, hash chain, seed, and every "
                    "move re-executed with this code's rules. Exit status 0 if it is valid, "
                    "1 if not.")
    made.add_argument("record_file", metavar="RECORD.json", type=a_file)
    made.add_argument("--keys", dest="keys_file", metavar="KEYS.json", type=a_file,
                      help="The server's published keys (what GET /v1/keys answers): the "
                           "record must then be signed by one of them.")
    made.add_argument("--json", dest="as_json", action="store_true",
                      help="Print the report as JSON.")
    made.add_argument("--max-bytes", type=positive, default=RECORD_MAX_BYTES, metavar="N",
                      help="Refuse a record file larger than this (default: "
                           f"{RECORD_MAX_BYTES:,}, what the server takes).")
    return made


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: must be at least 1")
    return value


def run(argv: list[str]) -> int:
    """`meeple verify` with these arguments; the exit status."""
    arguments = parser()
    options = arguments.parse_args(argv)
    keys = load_trusted_keys(options.keys_file, arguments)
    record: Any = None
    try:
        record = read_json(options.record_file, options.max_bytes)
        report = verify_record(record, keys)
    except ValueError as error:
        report = unreadable(str(error))
    if options.as_json:
        text = json.dumps(report.to_json(), indent=2, ensure_ascii=False)
    else:
        text = "\n".join(summary_lines(report, record))
    sys.stdout.write(printable(text) + "\n")
    return 0 if report.ok else 1


def printable(text: str) -> str:
    """`text`, unless it holds what UTF-8 cannot (a lone surrogate, which only a record made
    in memory carries): then with those escaped, never a crash on writing it."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode()
    return text
