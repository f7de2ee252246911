"""The Redis clients of a command, from the environment (events.store.clients), or a usage
error that says what to set."""

from __future__ import annotations

import click

from events.store.clients import BadRedisSetting, Connections, connect


def connections() -> Connections:
    """Both roles: MEEPLE_EVENTS_URL and MEEPLE_CONTROL_URL, each MEEPLE_REDIS_URL unless
    set. `meeple run` sets them for the processes it starts."""
    try:
        return connect()
    except BadRedisSetting as err:
        raise click.UsageError(f"{err} (or use `meeple run`, which starts a Redis)") from None
