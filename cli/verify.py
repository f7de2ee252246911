"""`meeple verify RECORD.json`: check a game record offline (events.records.verify); exit 0
if it is valid."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from events.records.keys import trusted_keys
from events.records.verify import Report, TrustedKeys, unreadable, verify_record


def read_json(path: Path) -> Any:
    """ValueError (with the reason) when the file is not JSON."""
    try:
        return json.loads(path.read_bytes())
    except (ValueError, RecursionError) as error:
        raise ValueError(str(error)) from None


def load_trusted_keys(path: Path | None) -> TrustedKeys | None:
    if path is None:
        return None
    try:
        return trusted_keys(read_json(path))
    except ValueError as error:
        raise click.BadParameter(f"{path}: {error}", param_hint="--keys") from None


def summary_lines(report: Report, record: Any) -> list[str]:
    """A few lines for a person: the verdict, what was checked, then each problem."""
    game = record.get("game") if isinstance(record, dict) else None
    what = ""
    if isinstance(game, dict):
        what = f" game {game.get('id')} ({game.get('type')}, rules_version " \
               f"{game.get('rules_version')})"
    verdict = {"valid": "VALID", "partial": "PARTIAL", "invalid": "INVALID"}[report.status]
    count = len(report.problems)
    lines = [f"{verdict}:{what}" + (f", {count} problem(s)" if count else "")]
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
    for kind, text in (checked.get("not_rederived") or {}).items():
        parts.append(f"{kind}: {text}")
    return "; ".join(parts)


@click.command("verify")
@click.argument("record_file", metavar="RECORD.json",
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--keys", "keys_file", metavar="KEYS.json", default=None,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The server's published keys (what GET /v1/keys answers): the record "
                   "must then be signed by one of them.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def verify(record_file: Path, keys_file: Path | None, as_json: bool) -> None:
    """Verify a game record offline: signature, hash chain, seed, and every move re-executed
    with this code's rules. Exit status 0 if it is valid, 1 if not."""
    keys = load_trusted_keys(keys_file)
    record: Any = None
    try:
        record = read_json(record_file)
        report = verify_record(record, keys)
    except ValueError as error:
        report = unreadable(str(error))
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        for line in summary_lines(report, record):
            click.echo(line)
    raise SystemExit(0 if report.ok else 1)
