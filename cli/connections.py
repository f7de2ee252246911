"""The Redis clients of a command, from the environment (events.store.clients), or a usage
error that says what to set; and a Redis that does not answer as one line that names the
role and its setting (the URL without its password), not a traceback."""

from __future__ import annotations

import os
from collections.abc import Mapping

import click
import redis
from redis.exceptions import RedisClusterException

from events.store.clients import (
    BadRedisSetting,
    Connections,
    RedisURL,
    connect,
    control_url,
    events_url,
    masked,
)

# What a Redis that is down, unreachable or refusing us raises (redis-py's AuthenticationError
# is a ConnectionError; a cluster's client raises RedisClusterException when it is made).
UNREACHABLE = (redis.ConnectionError, redis.TimeoutError, RedisClusterException)
ROLES = {"events": ("the event store", "MEEPLE_EVENTS_URL", events_url),
         "control": ("the control store", "MEEPLE_CONTROL_URL", control_url)}


def connections(check: bool = True) -> Connections:
    """Both roles: MEEPLE_EVENTS_URL and MEEPLE_CONTROL_URL, each MEEPLE_REDIS_URL unless
    set. `meeple run` sets them for the processes it starts. With `check`, each role answers
    a PING first, or the command stops with a ClickException naming the role; the daemons
    (a worker that waits for its Redis, smtpd answering 451) pass False."""
    try:
        stores = connect()
    except BadRedisSetting as err:
        raise click.UsageError(f"{err} (or use `meeple run`, which starts a Redis)") from None
    except UNREACHABLE as err:  # a cluster's client connects as it is made: the event store
        raise unreachable(err, ["events"]) from None
    if check:
        roles = [(["events", "control"], stores.control)] if stores.events is stores.control \
            else [(["control"], stores.control), (["events"], stores.events)]
        for names, client in roles:
            try:
                client.ping()
            except UNREACHABLE as err:
                raise unreachable(err, names) from None
    return stores


def unreachable(error: Exception, roles: list[str] | None = None,
                environ: Mapping[str, str] | None = None) -> click.ClickException:
    """`error` of a Redis that does not answer, as one line naming the roles (the ones given,
    else those whose host the error names, else every role) and their settings."""
    env = os.environ if environ is None else environ
    settings = _settings(env, roles or ["events", "control"])
    if roles is None:
        named = [s for s in settings if any(f"{host}:{port}" in str(error)
                                            for host, port in _hosts(s[2]))]
        settings = named or settings
    where = "; ".join(f"{role}, {setting}={masked(url)}"
                      for role, setting, url in settings)
    text = str(error) or type(error).__name__  # redis-py's say the host and port, never the URL
    return click.ClickException(f"Redis does not answer ({where or 'no URL set'}): {text}")


def _settings(env: Mapping[str, str], roles: list[str]) -> list[tuple[str, str, str]]:
    """(role, the variable that set its URL, URL) of `roles`; one entry for both roles on
    the same URL."""
    found: list[tuple[str, str, str]] = []
    for name in roles:
        role, variable, url_of = ROLES[name]
        url = url_of(dict(env))
        if url is not None:
            found.append((role, variable if env.get(variable) else "MEEPLE_REDIS_URL", url))
    if len(found) == 2 and found[0][2] == found[1][2]:
        variables = dict.fromkeys((found[0][1], found[1][1]))  # one, or both in order
        return [("the event and control stores", " and ".join(variables), found[0][2])]
    return found


def _hosts(url: str) -> tuple[tuple[str, int], ...]:
    try:
        return RedisURL.parse(url).hosts
    except BadRedisSetting:
        return ()

