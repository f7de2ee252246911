"""`meeple rebuild-lobby`: refill the cross-game lobby from every game stream."""

from __future__ import annotations

import os

import click
import redis

from events.application.meeple import Meeple


@click.command("rebuild-lobby")
def rebuild_lobby() -> None:
    """Re-derive every game's lobby entry from its events (safe to run at any time)."""
    url = os.environ.get("MEEPLE_REDIS_URL")
    if not url:
        raise click.UsageError("MEEPLE_REDIS_URL is not set")
    count = Meeple(redis.Redis.from_url(url)).rebuild_lobby()
    click.echo(f"{count} games in the lobby")
