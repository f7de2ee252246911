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
from urllib.parse import parse_qs, unquote, urlsplit

import redis
from redis.cluster import PRIMARY, ClusterNode, NodesManager, RedisCluster
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
    max_connections: int | None = None  # `?max_connections=N`: each node's pool

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
                   unquote(password) or None, db, service, _max_connections(parts.query, url))

    def _auth(self) -> dict[str, Any]:
        return {"username": self.username, "password": self.password, "ssl": self.tls}

    def _pool(self) -> dict[str, Any]:
        return {} if self.max_connections is None else {"max_connections": self.max_connections}


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


class _Nodes(NodesManager):
    """redis-py's topology cache of a cluster, but one that answers for a node it does not
    know yet when Redis redirects to it (ASK): a master just added, its first slot moving in.
    redis-py 8.1 gets None there and fails with an AttributeError, which was a 500 for
    every read of that game until the move ended (the client and its pipelines share this
    cache, so it is swapped in on the client: `events_client`)."""

    def get_node(self, host: str | None = None, port: int | None = None,
                 node_name: str | None = None) -> ClusterNode | None:
        node: ClusterNode | None = super().get_node(host, port, node_name)
        if node is None and node_name:
            address, _, number = node_name.rpartition(":")
            node = self.nodes_cache.setdefault(node_name,
                                               ClusterNode(address, int(number), PRIMARY))
        return node


def events_client(url: str, **options: Any) -> EventsClient:
    """A client for the event store at `url`: any of the schemes. `options` go to redis-py
    (timeouts); responses are never decoded (the store keeps raw hashes)."""
    parsed = RedisURL.parse(url)
    if parsed.kind == "cluster":
        nodes = [ClusterNode(host, port) for host, port in parsed.hosts]
        cluster = RedisCluster(startup_nodes=nodes, require_full_coverage=False,
                               **parsed._auth(), **{**parsed._pool(), **options})
        cluster.nodes_manager.__class__ = _Nodes  # the same cache, redirections followed
        return cluster
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
    pool = {key: value for key, value in parsed._pool().items() if key not in options}
    return sentinel.master_for(parsed.service, db=parsed.db, **pool)


def _host_port(item: str, url: str, default_port: int) -> tuple[str, int]:
    host, _, port = item.strip().rpartition(":")
    if not host:
        host, port = port, str(default_port)
    host = host.strip("[]")  # an IPv6 address is written in brackets
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise BadRedisSetting(f"{masked(url)}: '{item}' is not host:port")
    return host, int(port)


def _max_connections(query: str, url: str) -> int | None:
    """`?max_connections=N` (deploy/gunicorn.conf.py sets it under gevent), for every kind
    of URL: redis-py reads it from a single node's URL only."""
    given = parse_qs(query).get("max_connections")
    if not given:
        return None
    if not given[-1].isdigit() or int(given[-1]) < 1:
        raise BadRedisSetting(f"{masked(url)}: max_connections is a whole number above 0")
    return int(given[-1])


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
