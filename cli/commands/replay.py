"""`meeple replay RECORD.json`: step through a verified game record in the terminal.

Each version shows the table in the game's words (`Game.describe`) as one seat saw it then
or, for `all`, each seat's own part and the rest as a spectator saw it; and the log of the
event at that version as that seat could read it (`events.domain.visibility`: other seats'
private facts and moves stay hidden until the game is over). Commands: n(ext), p(revious),
j N (jump to version N), s SEAT | s all (view as), q(uit). The game is re-executed from the
record alone, after it verified.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from cli.commands.verify import read_json
from events.domain.envelope import Envelope
from events.domain.table import Status, Table, evolve
from events.domain.visibility import redact_envelope, table_view
from events.records.reading import RECORD_MAX_BYTES
from events.records.verify import verify_record
from games.text import Section, as_text, seat_name

ALL = "all"
HELP = "commands: n next, p previous, j N jump to version N, s SEAT | s all view as, q quit"


class Replay:
    """The tables of a verified record, one per version (index 0: before any event)."""

    def __init__(self, record: dict[str, Any]) -> None:
        self.events: list[Envelope] = record["events"]
        seed = bytes.fromhex(record["seed"])
        table = Table.empty(record["game"]["id"])
        self.tables = [table]
        for envelope in self.events:
            table = evolve(table, envelope, seed)
            self.tables.append(table)

    @property
    def last(self) -> int:
        return len(self.events)

    @property
    def seat_count(self) -> int:
        return self.tables[-1].seat_count

    def frame(self, version: int, viewer: int | None) -> list[str]:
        """What to print at `version` for seat `viewer` (None: everyone)."""
        table, envelope = self.tables[version], self.events[version - 1]
        who = "everyone" if viewer is None else f"seat {viewer}"
        lines = [f"── v{version}/{self.last} {envelope['type']} · {envelope['at']} · "
                 f"by {envelope['by']} · viewing as {who} ──"]
        lines += ["table:", *self.table_lines(table, viewer)]
        lines += ["log:", *self.log_lines(envelope, table, viewer)]
        return lines

    def table_lines(self, table: Table, viewer: int | None) -> list[str]:
        """The table in the game's words (`Game.describe`, as the turn emails show it): as
        the viewer saw it; for everyone, each seat's own part as it saw it, then the rest
        as a spectator saw it."""
        if table.state is None:
            return ["  (no game yet: seats are being taken)"]
        names = table.names()
        if viewer is not None:
            sections = table.game.describe(table_view(table, viewer) or {}, viewer, names)
        else:
            own = [Section(f"{seat_name(names, seat)} (as they saw it)", part.lines)
                   for seat in range(table.seat_count)
                   for part in table.game.describe(table_view(table, seat) or {}, seat,
                                                   names)[:1]]
            shared = table.game.describe(table_view(table, None) or {}, None, names)
            sections = own + shared[table.seat_count:]
        return [f"  {line}" for line in as_text(sections).splitlines()]

    def log_lines(self, envelope: Envelope, table: Table, viewer: int | None) -> list[str]:
        over = table.status is Status.ENDED or (
            table.state is not None and table.game.is_over(table.state))
        shown = envelope if viewer is None else redact_envelope(envelope, [viewer], over)
        return [f"  {line}" for line in describe(shown)]


def describe(envelope: Envelope) -> list[str]:
    """Log lines of one (possibly redacted) event."""
    kind, data = envelope["type"], envelope["data"]
    if kind == "MovePlayed":
        move = data.get("move")
        head = f"seat {data['seat']} plays {move['id']!r}" if move else f"seat {data['seat']} moves"
        lines = [head, *(fact["text"] for fact in data["facts"])]
        if envelope.get("redacted"):
            hidden = "any private lines" if move else "its choice and any private lines"
            lines.append(f"(hidden from this seat until the game ends: {hidden})")
        return lines
    if kind == "GameCreated":
        return [f"a {data['type']} table (rules_version {data['rules_version']}) for "
                f"{data['seats']} seats, options {compact(data['options'])}"]
    if kind == "SeatTaken":
        bot = ", a bot" if data["bot"] else ""
        return [f"seat {data['seat']} taken by {data['name']} ({data['player_id']}{bot})"]
    if kind == "GameStarted":
        return ["the game starts"]
    if kind == "GameEnded":
        rows = sorted(data["scores"].get("seats", []), key=lambda row: row.get("rank", 0))
        return ["the game ends", *(f"rank {row.get('rank')}: seat {row.get('seat')}, "
                                   f"{row.get('total')} points" for row in rows)]
    if kind == "SeedRevealed":
        return [f"the seed is revealed: {data['seed']}"]
    return [f"{kind} {compact(data)}"]


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def parse_viewer(text: str, seat_count: int) -> int | None:
    """None for everyone; ValueError unless `text` is `all` or a seat of this game."""
    if text.strip().lower() == ALL:
        return None
    try:
        seat = int(text)
    except ValueError:
        raise ValueError(f"view as a seat number or 'all', not {text!r}") from None
    if not 0 <= seat < seat_count:
        raise ValueError(f"seats are 0 to {seat_count - 1}")
    return seat


def run_commands(replay: Replay, version: int, viewer: int | None) -> None:
    while True:
        for line in replay.frame(version, viewer):
            click.echo(line)
        try:
            command = click.prompt("replay", default="n", show_default=False).strip()
        except click.Abort:
            return  # end of input (Ctrl-D) quits like q
        word, _, argument = command.partition(" ")
        if word == "q":
            return
        try:
            version, viewer = apply(replay, word, argument.strip(), version, viewer)
        except ValueError as error:
            click.echo(f"{error}; {HELP}")


def apply(replay: Replay, word: str, argument: str, version: int,
          viewer: int | None) -> tuple[int, int | None]:
    """The (version, viewer) after one command; ValueError for a command that cannot be done."""
    if word == "n":
        if version == replay.last:
            raise ValueError(f"v{version} is the last version")
        return version + 1, viewer
    if word == "p":
        if version == 1:
            raise ValueError("v1 is the first version")
        return version - 1, viewer
    if word == "j":
        target = int(argument) if argument.isdigit() else -1
        if not 1 <= target <= replay.last:
            raise ValueError(f"jump to a version from 1 to {replay.last}")
        return target, viewer
    if word == "s":
        return version, parse_viewer(argument, replay.seat_count)
    raise ValueError(f"unknown command {word!r}")


@click.command("replay")
@click.argument("record_file", metavar="RECORD.json",
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--as", "as_seat", default=ALL, show_default=True, metavar="SEAT|all",
              help="Whose view to show: a seat number, or all (every seat's view and the "
                   "spectator's; the decks stay face down, their order is not shown).")
@click.option("--at", "at_version", type=int, default=1, show_default=True, metavar="VERSION",
              help="The version to start at.")
@click.option("--max-bytes", type=click.IntRange(min=1), default=RECORD_MAX_BYTES,
              show_default=True, metavar="N",
              help="Refuse a record file larger than this (the default is what the server "
                   "takes).")
def replay(record_file: Path, as_seat: str, at_version: int, max_bytes: int) -> None:
    """Step through a game record: the table and the log at each version, as a seat saw
    them. The record is verified first and refused if it does not verify."""
    try:
        record = read_json(record_file, max_bytes)
    except ValueError as error:
        raise click.ClickException(f"{record_file} cannot be read as a record: {error}") \
            from None
    report = verify_record(record)
    if not report.ok:
        first = report.first
        assert first is not None
        raise click.ClickException(
            f"refusing to replay a record that does not verify ({report.status}): "
            f"[{first.check}] {first.describe()}")
    game = Replay(record)
    try:
        viewer = parse_viewer(as_seat, game.seat_count)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--as") from None
    if not 1 <= at_version <= game.last:
        raise click.BadParameter(f"versions run from 1 to {game.last}", param_hint="--at")
    click.echo(HELP)
    run_commands(game, at_version, viewer)
