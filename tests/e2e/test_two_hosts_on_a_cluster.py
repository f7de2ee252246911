"""Two API hosts (gunicorn on two ports) and two RQ workers share one Redis Cluster (issue 18):
a client that alternates between the hosts sees one consistent game, since a host's table
cache is never trusted over the store, and bot turns are played with two workers taking the
queue."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import free_port
from tests.e2e.conftest import Http, server_env, start_api, start_worker, stop_all, wait_for

RP = "res-publica-2230ad"
MOVES = 40


@pytest.fixture()
def two_hosts(redis_url: str, redis_client: Any, redis_cluster_url: str,
              tmp_path: Path) -> Iterator[list[str]]:
    """Two API hosts and two workers, the games on the session's cluster (emptied)."""
    procs, bases = [], []
    try:
        for number in range(2):
            port = free_port()
            env = server_env(redis_url, redis_cluster_url, tmp_path / "keys", port)
            procs.append(start_api(env))
            procs.append(start_worker(env, *(["--with-scheduler"] if number == 0 else [])))
            bases.append(f"http://127.0.0.1:{port}")
        for base, api in zip(bases, procs[::2], strict=True):
            wait_for(base + "/healthz", api)
        yield bases
    finally:
        stop_all(procs)


def as_player(bases: list[str], name: str) -> list[Http]:
    """One registered player, as a client of each host."""
    status, made, _ = Http(bases[0]).call("POST", "/v1/players", {"name": name})
    assert status == 201, made
    return [Http(base, made["api_key"]) for base in bases]


def test_a_client_alternating_between_hosts_sees_one_game(two_hosts: list[str]) -> None:
    alice = as_player(two_hosts, "alice")
    status, game, _ = alice[0].call("POST", "/v1/games", {"type": RP, "seats": 2})
    assert status == 201, game
    game_id = game["id"]
    status, joined, _ = alice[1].call("POST", f"/v1/games/{game_id}/join", {})
    assert status == 200 and joined["status"] == "active", joined
    version = joined["version"]
    for turn in range(MOVES):
        reader, writer = alice[turn % 2], alice[(turn + 1) % 2]  # read on one, write on the other
        status, listed, _ = reader.call("GET", f"/v1/games/{game_id}/moves")
        assert status == 200, listed
        assert listed["version"] == version, (turn, listed["version"], version)
        if not listed["moves"]:
            break
        body = {"expected_version": version, "seat": listed["seat"],
                "moves": [{"id": listed["moves"][0]["id"]}]}
        status, played, _ = writer.call("POST", f"/v1/games/{game_id}/moves", body)
        assert status == 201, (turn, played)
        version = played["version"]
    logs = [client.call("GET", f"/v1/games/{game_id}/events?limit=500")[1] for client in alice]
    assert logs[0] == logs[1] and logs[0]["items"][-1]["v"] == version


def test_bot_turns_are_played_with_two_workers_on_the_queue(two_hosts: list[str]) -> None:
    alice = as_player(two_hosts, "alice")
    status, game, _ = alice[0].call("POST", "/v1/games", {"type": RP, "seats": 2, "bots": [1]})
    assert status == 201, game
    game_id, turn = game["id"], 0
    deadline = time.monotonic() + 120
    while bot_moves(alice[turn % 2], game_id) < 10:
        assert time.monotonic() < deadline, "the bot stopped answering"
        turn += 1
        client = alice[turn % 2]
        status, listed, _ = client.call("GET", f"/v1/games/{game_id}/moves")
        if status != 200 or not listed["moves"]:  # the bot's turn: wait for a worker
            time.sleep(0.05)
            continue
        body = {"expected_version": listed["version"], "seat": listed["seat"],
                "moves": [{"id": listed["moves"][0]["id"]}]}
        status, played, _ = client.call("POST", f"/v1/games/{game_id}/moves", body)
        assert status in (201, 409), played  # 409: the bot moved in between


def bot_moves(client: Http, game_id: str) -> int:
    status, events, _ = client.call("GET", f"/v1/games/{game_id}/events?limit=500")
    assert status == 200, events
    return sum(1 for item in events["items"]
               if item["type"] == "MovePlayed" and item["by"].startswith("bot:"))
