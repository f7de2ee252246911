"""`meeple rebuild-lobby`: refill the cross-game lobby from every game stream."""

from __future__ import annotations

import click

from cli.connections import connections
from events.application.meeple import Meeple


@click.command("rebuild-lobby")
def rebuild_lobby() -> None:
    """Re-derive every game's lobby entry from its events (safe to run at any time)."""
    count = Meeple.connect(connections(), dispatch=False).rebuild_lobby()
    click.echo(f"{count} games in the lobby")
