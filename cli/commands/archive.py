"""`meeple archive`: move finished games out of Redis into the archive, by hand.

The hourly housekeeping does the same a slice at a time (workers.housekeeping); this looks
at every game in Redis (or the ones named) and says what it moved.
"""

from __future__ import annotations

import math
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import click
from tqdm import tqdm

from cli.commands.keys import KEYS_DIR
from cli.connections import connections
from events.application.meeple import Meeple
from events.records.archiving import ArchivePass, archive_after, archive_finished_games
from events.records.key_registry import RedisKeyRegistry
from events.records.keys import Keyring
from events.store.archive_stores import DirectoryArchive

MAX_DAYS = 36_500  # a century: more is no age a game can have (and overflows a date)


def parse_days(ctx: click.Context, param: click.Parameter, value: float | None
               ) -> float | None:
    """`--older-than-days`: a number of days, not NaN (which every range lets through)."""
    if value is not None and math.isnan(value):
        raise click.BadParameter("not a number of days")
    return value


@click.command("archive")
@click.option("--older-than-days", type=click.FloatRange(min=0, max=MAX_DAYS), default=None,
              callback=parse_days,
              help="Archive ended games with no event for this many days "
                   "[default: $MEEPLE_ARCHIVE_AFTER_DAYS or 7].")
@click.option("--game", "games", multiple=True, metavar="ID",
              help="Only this game (repeatable); default: every game in Redis.")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Stop after archiving this many games.")
@KEYS_DIR
def archive(older_than_days: float | None, games: tuple[str, ...], limit: int | None,
            directory: Path) -> None:
    """Archive finished games (MEEPLE_ARCHIVE_URL) and delete them from Redis; every read
    of them goes on answering the same, from the archive."""
    app = Meeple.connect(connections(), dispatch=False)
    if app.store.archive is None:
        raise click.UsageError("MEEPLE_ARCHIVE_URL is none: there is nowhere to archive to")
    age = (timedelta(days=older_than_days) if older_than_days is not None
           else _setting_age())
    if age is None:
        raise click.UsageError("MEEPLE_ARCHIVE_AFTER_DAYS is off: say --older-than-days")
    if isinstance(app.store.archive, DirectoryArchive) and not app.store.archive.root.is_dir():
        _make_the_default(app.store.archive.root)
    # Sign only with a key the keyring already holds, as the housekeeping does: a key made
    # here would sign records that GET /v1/keys never lists (not the API's keys directory).
    keyring = Keyring(directory, RedisKeyRegistry(app.redis))
    signer = keyring if keyring.has_current() and keyring.foreign() is None else None
    if signer is None:
        which = ("no signing key" if keyring.foreign() is None else
                 f"not the service's signing key ({keyring.foreign()})")
        click.echo(f"{which} in {directory.absolute()}: only games whose final record is "
                   "already signed are archived", err=True)
    click.echo(f"archiving ended games with no event for {_days(age)} to {app.store.archive!r}",
               err=True)
    with tqdm(total=len(games) or None, unit="game", desc="looked at",
              disable=None) as bar:
        done = archive_finished_games(
            app, signer, datetime.now(UTC), age, game_ids=games or None,
            limit=limit, on_game=lambda _: bar.update(1))
    click.echo(report(done))
    if done.failed:
        raise SystemExit(1)


def _make_the_default(root: Path) -> None:
    """The default archive, `var/archive`, made in a Meeple working directory (its `var/`
    holds `meeple run`'s Redis and keys): the API makes it at its first archived game, so
    until then it is missing, and an archive by hand makes it as the API would. Any other
    missing directory is refused: one the API never wrote to is likely not the one it reads
    (a relative path taken from another working directory, a typo), and games archived
    there would vanish from it."""
    default = os.environ.get("MEEPLE_ARCHIVE_URL", "").strip() == ""
    if default and root.parent.is_dir():
        root.mkdir()
        click.echo(f"made the archive directory {root.absolute()} (the default: "
                   "MEEPLE_ARCHIVE_URL is not set)", err=True)
        return
    where = ("this is no Meeple working directory (it has no var/): run this where the API "
             "runs, or set MEEPLE_ARCHIVE_URL to its archive" if default else
             "set MEEPLE_ARCHIVE_URL to the API's archive (or make the directory to start a "
             "new one)")
    raise click.UsageError(f"the archive directory {root.absolute()} does not exist: {where}")


def report(done: ArchivePass) -> str:
    moved = len(done.moved)
    lines = [f"looked at {done.looked_at} games in Redis: archived {moved}"]
    if moved:
        lines.append(f"  {done.redis_bytes / 1024:,.1f} KiB in Redis became "
                     f"{done.document_bytes / 1024:,.1f} KiB in the archive "
                     f"({done.document_bytes / moved / 1024:,.1f} KiB a game)")
    for count, why in ((done.not_ended, "not ended"), (done.too_recent, "too recent"),
                       (done.moved_on, "changed while being archived: left in Redis")):
        if count:
            lines.append(f"  {count} {why}")
    lines += [f"  failed: {failure}" for failure in done.failed]
    return "\n".join(lines)


def _setting_age() -> timedelta | None:
    """MEEPLE_ARCHIVE_AFTER_DAYS (archive_after), or a usage error that names it."""
    try:
        age = archive_after()
        if age is not None and age > timedelta(days=MAX_DAYS):
            raise ValueError(f"more than {MAX_DAYS:,} days")
    except (ValueError, OverflowError) as err:
        raw = os.environ.get("MEEPLE_ARCHIVE_AFTER_DAYS")
        raise click.UsageError(f"MEEPLE_ARCHIVE_AFTER_DAYS={raw!r}: {err}") from None
    return age


def _days(age: timedelta) -> str:
    days = age.total_seconds() / 86400
    return f"{days:g} day" + ("" if days == 1 else "s")
