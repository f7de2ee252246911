"""A command's failure that is not a bug, as one line (click's "Error: ..." and exit 1)
rather than a traceback: cli.main.LazyGroup hands every exception of a command here.

Imported only when a command fails: its imports (redis, the use cases' errors) cost the
commands that never touch them (`meeple verify`) nothing."""

from __future__ import annotations

import click

from cli.connections import UNREACHABLE, unreachable
from events.exceptions import MeepleError


def explained(error: Exception) -> click.ClickException | None:
    """The ClickException to show for `error`, or None for one to let through (a bug: its
    traceback is what a report of it needs)."""
    if isinstance(error, UNREACHABLE):
        return unreachable(error)
    if isinstance(error, MeepleError):
        return click.ClickException(error.detail)
    return None
