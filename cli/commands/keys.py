"""`meeple keys`: the Ed25519 keys that sign game records (list them, rotate to a new one)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from events.records.keys import Keyring

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
    """Every key, oldest first; the current one signs new records."""
    listed = Keyring(directory).public_keys()
    if not listed:
        click.echo(f"no keys in {directory} yet: the first record signed creates one")
    for key in listed:
        mark = "current" if key["current"] else "       "
        click.echo(f"{key['id']}  {mark}  {key['created_at']}  {key['public_key']}")


@keys.command("rotate")
@KEYS_DIR
def rotate(directory: Path) -> None:
    """Make a new current key. Old keys stay: records they signed remain verifiable.
    Running API processes pick the new key up for the records they sign next."""
    key_id = Keyring(directory).rotate()
    click.echo(f"new current key {key_id} in {directory}")
