"""A worker process makes its Redis clients once per settings, not per job (a cluster
client costs a CLUSTER SLOTS round trip and new connections); a forked job, another
process, never uses its parent's sockets."""

from __future__ import annotations

import os

import pytest

from workers.jobs import _app


def test_jobs_of_one_process_share_its_clients_and_a_fork_makes_its_own(
        redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEEPLE_REDIS_URL", redis_url)
    first, second = _app(), _app()
    assert first is not second  # each job its own use cases (and table cache) ...
    assert first.redis is second.redis  # ... on the process's clients
    assert first.connections.events is second.connections.events
    monkeypatch.setenv("MEEPLE_EVENTS_URL", redis_url + "?x=1")  # other settings
    assert _app().redis is not first.redis
    monkeypatch.delenv("MEEPLE_EVENTS_URL")
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child: what a forked job would get
        same = _app().redis is first.redis
        os.write(write, b"same" if same else b"own")
        os._exit(0)
    os.waitpid(child, 0)
    assert os.read(read, 4) == b"own"
