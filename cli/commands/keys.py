"""`meeple keys`: the Ed25519 keys that sign game records (list them, rotate to a new one)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click
import redis

from cli.connections import connections
from events.exceptions import MeepleError
from events.records.key_registry import RedisKeyRegistry
from events.records.keys import Keyring
from events.store.clients import BadRedisSetting, control_client, control_url

KEYS_DIR = click.option(
    "--dir", "directory", type=click.Path(file_okay=False, path_type=Path),
    default=lambda: os.environ.get("MEEPLE_KEYS_DIR") or "var/keys",
    show_default="$MEEPLE_KEYS_DIR or var/keys", help="Where the private keys are kept.")


@click.group("keys")
def keys() -> None:
    """The keys that sign game records (GET /v1/keys publishes their public halves)."""


@keys.command("list")
@KEYS_DIR
def list_keys(directory: Path) -> None:
    """Every key, oldest first; the current one signs new records. Makes nothing."""
    if not directory.is_dir():
        raise click.BadParameter(
            f"{directory}: no such directory (the first record signed, or `meeple keys "
            "rotate`, makes it and its first key)", param_hint="--dir")
    keyring = Keyring(directory, registry())
    with _keys_of(directory, "read"):
        # Keyring.public_keys makes the first key of an empty keyring (a server publishes
        # its key before signing): not when listing.
        listed = keyring.public_keys() if keyring.has_current() and not keyring.foreign() \
            else []
        foreign = keyring.foreign()
    if foreign is not None:
        click.echo(f"the service signs with key {foreign}, which {directory} does not hold: "
                   "copy the keys directory of a host that has it here (until then the API "
                   "answers 503 keys_unavailable for records); if that key is lost for good, "
                   "`meeple keys rotate --anew` starts new keys")
    elif not listed:
        click.echo(f"no keys in {directory} yet: the first record signed creates one")
    for key in listed:
        mark = "current" if key["current"] else "       "
        click.echo(f"{key['id']}  {mark}  {key['created_at']}  {key['public_key']}")


@keys.command("rotate")
@KEYS_DIR
@click.option("--anew", is_flag=True,
              help="The service's keys were lost: make this directory's new key the one "
                   "every host must share (records signed before verify only against the "
                   "old public keys).")
def rotate(directory: Path, anew: bool) -> None:
    """Make a new current key. Old keys stay: records they signed remain verifiable.
    Running API processes pick the new key up for the records they sign next; copy the
    directory to every other host. Refused where the service's keys are not."""
    with _keys_of(directory, "write"):
        key_id = Keyring(directory, registry()).rotate(anew)
    click.echo(f"new current key {key_id} in {directory}")


def registry() -> RedisKeyRegistry | None:
    """The service's record of its first key: in the control store the settings name, else
    in `meeple run`'s private Redis (var/redis, once it has run here: the quick start);
    none without either (a keys directory no service uses yet)."""
    if control_url() is not None:
        return RedisKeyRegistry(connections().control)
    port = Path("var") / "redis" / "port"
    if not port.exists():
        return None
    url = f"redis://127.0.0.1:{port.read_text().strip()}/0"
    try:
        client = control_client(url, socket_timeout=2, socket_connect_timeout=2)
        client.ping()
    except (redis.RedisError, BadRedisSetting):
        raise click.ClickException(
            f"`meeple run`'s Redis ({url}) does not answer: the keys must agree with the "
            "service's, so start it (`make run`) first, or set MEEPLE_REDIS_URL") from None
    return RedisKeyRegistry(client)


@contextmanager
def _keys_of(directory: Path, doing: str) -> Iterator[None]:
    """A key file that cannot be read or written, as one line that says which and why."""
    try:
        yield
    except (OSError, MeepleError) as err:  # MeepleError: the Keyring's own word for an OSError
        cause = err.__cause__ if isinstance(err.__cause__, OSError) else err
        why = cause.strerror if isinstance(cause, OSError) and cause.strerror else str(cause)
        where = getattr(cause, "filename", None) or directory
        raise click.ClickException(f"cannot {doing} the keys in {directory}: {why} "
                                   f"({where})") from None
