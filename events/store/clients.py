"""One place that turns a Redis URL into a client, for every entry point (DESIGN §3).

Meeple uses Redis in two roles:
- the **event store**: the `{game}`-tagged keys only (streams, seeds, snapshots, records).
  One node, a Sentinel-watched primary, or a Redis Cluster: every key of a game shares one
  hash slot, so each game's appends stay atomic on whichever master owns it.
- the **control store**: RQ's queues, rate limits, the lobby, players, profiles, ratings,
  reply tokens. One node or a Sentinel-watched primary: RQ cannot run on a cluster
  (rq/rq#1048), and these keys are read across games.

The URL of each role:

    MEEPLE_EVENTS_URL   the event store   (default: MEEPLE_REDIS_URL)
    MEEPLE_CONTROL_URL  the control store (default: MEEPLE_REDIS_URL)

and the schemes:

    redis://[:password@]host:port[/db]           one node (rediss:// over TLS)
    redis+cluster://[:password@]host:port[,host:port...]
                                                 Redis Cluster: any of its nodes, the
                                                 client finds the rest (rediss+cluster://)
    redis+sentinel://[:password@]host:port[,host:port...]/service[/db]
                                                 the primary that these Sentinels watch
                                                 under `service` (rediss+sentinel://)

The embedded default (`make run`) is one redis-server for both roles.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

import redis
from redis.cluster import ClusterNode, RedisCluster
from redis.sentinel import Sentinel

# What the event store may run on: a node (or a Sentinel primary) or a whole cluster.
EventsClient = redis.Redis | RedisCluster

MAX_REPLICA_ACKS = 16
SCHEMES = ("redis", "rediss", "redis+cluster", "rediss+cluster", "redis+sentinel",
           "rediss+sentinel")


class BadRedisSetting(ValueError):
    """A Redis URL or setting Meeple cannot use; the message says what it expected."""


@dataclass(frozen=True)
class RedisURL:
    """A parsed URL: its kind ("node", "cluster" or "sentinel"), hosts, and the rest."""

    kind: str
    tls: bool
    hosts: tuple[tuple[str, int], ...]
    username: str | None = None
    password: str | None = None
    db: int = 0
    service: str | None = None  # Sentinel's name for the primary

    @classmethod
    def parse(cls, url: str) -> RedisURL:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in SCHEMES:
            raise BadRedisSetting(f"{masked(url)}: the scheme must be one of {', '.join(SCHEMES)}")
        kind = scheme.split("+")[1] if "+" in scheme else "node"
        userinfo, _, hostlist = parts.netloc.rpartition("@")
        username, _, password = userinfo.partition(":")
        default_port = 26379 if kind == "sentinel" else 6379
        hosts = tuple(_host_port(item, url, default_port) for item in hostlist.split(","))
        path = [p for p in parts.path.split("/") if p]
        service = None
        if kind == "sentinel":
            if not path:
                raise BadRedisSetting(f"{masked(url)}: a Sentinel URL names its service: "
                                  "redis+sentinel://host:port/<service>[/db]")
            service = path.pop(0)
        if kind == "node" and len(hosts) != 1:
            raise BadRedisSetting(f"{masked(url)}: one host for a single node; "
                              "redis+cluster:// or redis+sentinel:// for several")
        db = _db(path, url)
        if kind == "cluster" and db:
            raise BadRedisSetting(f"{masked(url)}: a cluster has database 0 only")
        return cls(kind, scheme.startswith("rediss"), hosts, unquote(username) or None,
                   unquote(password) or None, db, service)

    def _auth(self) -> dict[str, Any]:
        return {"username": self.username, "password": self.password, "ssl": self.tls}


def min_replica_acks(environ: dict[str, str] | None = None) -> int | None:
    """MEEPLE_MIN_REPLICA_ACKS: how many replicas must have an append before it is
    acknowledged; None (unset) lets the store choose (1 on a cluster or a Sentinel primary,
    0 on a single node)."""
    env = os.environ if environ is None else environ
    raw = env.get("MEEPLE_MIN_REPLICA_ACKS", "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) > MAX_REPLICA_ACKS:
        raise BadRedisSetting(f"MEEPLE_MIN_REPLICA_ACKS must be a whole number from 0 to "
                          f"{MAX_REPLICA_ACKS}, not {raw!r}")
    return int(raw)


def events_url(environ: dict[str, str] | None = None) -> str | None:
    """The event store's URL from the environment, if one is set."""
    env = os.environ if environ is None else environ
    return env.get("MEEPLE_EVENTS_URL") or env.get("MEEPLE_REDIS_URL") or None


def control_url(environ: dict[str, str] | None = None) -> str | None:
    """The control store's URL from the environment, if one is set."""
    env = os.environ if environ is None else environ
    return env.get("MEEPLE_CONTROL_URL") or env.get("MEEPLE_REDIS_URL") or None


@dataclass(frozen=True)
class Connections:
    """The clients of both roles; `events` is `control` when one server holds both."""

    events: EventsClient
    control: redis.Redis


def connect(environ: dict[str, str] | None = None, **options: Any) -> Connections:
    """Clients for both roles from MEEPLE_EVENTS_URL, MEEPLE_CONTROL_URL and
    MEEPLE_REDIS_URL (BadRedisSetting if neither role has one): what every entry point uses."""
    events, control = events_url(environ), control_url(environ)
    if events is None or control is None:
        raise BadRedisSetting("no Redis configured: set MEEPLE_REDIS_URL (one server for both "
                          "roles), or MEEPLE_EVENTS_URL and MEEPLE_CONTROL_URL")
    return connect_urls(events, control, **options)


def connect_urls(events: str, control: str, **options: Any) -> Connections:
    """Clients for an event store at `events` and a control store at `control`."""
    control_side = control_client(control, **options)
    if events == control:
        return Connections(control_side, control_side)
    return Connections(events_client(events, **options), control_side)


def events_client(url: str, **options: Any) -> EventsClient:
    """A client for the event store at `url`: any of the schemes. `options` go to redis-py
    (timeouts); responses are never decoded (the store keeps raw hashes)."""
    parsed = RedisURL.parse(url)
    if parsed.kind == "cluster":
        nodes = [ClusterNode(host, port) for host, port in parsed.hosts]
        return RedisCluster(startup_nodes=nodes, require_full_coverage=False,
                            **parsed._auth(), **options)
    return _node_client(parsed, url, **options)


def control_client(url: str, **options: Any) -> redis.Redis:
    """A client for the control store at `url`: one node or a Sentinel primary."""
    parsed = RedisURL.parse(url)
    if parsed.kind == "cluster":
        raise BadRedisSetting(f"{masked(url)}: the control store holds RQ's queues, which cannot "
                          "run on a Redis Cluster; use redis:// or redis+sentinel:// "
                          "(MEEPLE_CONTROL_URL)")
    return _node_client(parsed, url, **options)


def is_cluster(client: object) -> bool:
    return isinstance(client, RedisCluster)


def _node_client(parsed: RedisURL, url: str, **options: Any) -> redis.Redis:
    if parsed.kind == "node":
        return redis.Redis.from_url(url, **options)
    # The Sentinels get the timeouts only: the password is the primary's.
    sentinel = Sentinel(list(parsed.hosts), sentinel_kwargs=dict(options),
                        **parsed._auth(), **options)
    assert parsed.service is not None
    return sentinel.master_for(parsed.service, db=parsed.db)


def _host_port(item: str, url: str, default_port: int) -> tuple[str, int]:
    host, _, port = item.strip().rpartition(":")
    if not host:
        host, port = port, str(default_port)
    host = host.strip("[]")  # an IPv6 address is written in brackets
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise BadRedisSetting(f"{masked(url)}: '{item}' is not host:port")
    return host, int(port)


def _db(path: list[str], url: str) -> int:
    if not path:
        return 0
    if len(path) > 1 or not path[0].isdigit():
        raise BadRedisSetting(f"{masked(url)}: the path is the database number")
    return int(path[0])


def masked(url: str) -> str:
    """The URL without its password, for an error message or a log line."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return url.replace(parts.netloc, "***@" + parts.netloc.rpartition("@")[2], 1)
