"""The issue's acceptance, end to end: real gunicorn, real RQ worker process, real redis.

The client here knows only openapi.yaml: every call it makes is looked up there first.
"""

from __future__ import annotations

import hashlib
import random
import time
from typing import Any

import yaml

from tests.e2e.conftest import Http

RP = "res-publica-2230ad"
TIME_LIMIT = 300  # seconds for a whole game; a stuck game fails instead of hanging


class SpecClient:
    """Calls only operations that openapi.yaml documents."""

    def __init__(self, base: str, spec: dict[str, Any], api_key: str | None = None) -> None:
        self.http = Http(base, api_key)
        self.spec = spec

    def call(self, method: str, template: str, body: Any = None, **params: Any) -> Any:
        assert method.lower() in self.spec["paths"][template], f"{method} {template} undocumented"
        path = template.format(**{k: v for k, v in params.items() if "{" + k + "}" in template})
        query = "&".join(f"{k}={v}" for k, v in params.items() if "{" + k + "}" not in template)
        status, payload, headers = self.http.call(method, path + ("?" + query if query else ""),
                                                  body)
        return status, payload


def register(base: str, spec: dict[str, Any], name: str) -> tuple[SpecClient, str]:
    status, player = SpecClient(base, spec).call("POST", "/v1/players", {"name": name})
    assert status == 201
    return SpecClient(base, spec, player["api_key"]), player["id"]


def assert_no_other_hand(game: dict[str, Any]) -> None:
    """Before the end, a view holds the hand of the caller's own seats only.

    "All players reveal their hands." once the game has ended, before the last displays
    (the 'reveal' phase), so from then on hands are public by the rules.
    """
    if game["status"] == "ended" or game["view"] is None or game["view"]["phase"] == "reveal":
        return
    for player in game["view"]["players"]:
        if player["seat"] not in game["your_seats"]:
            assert "hand" not in player, f"seat {player['seat']}'s hand leaked"


def assert_log_redacted(events: list[dict[str, Any]], seats: list[int]) -> None:
    for event in events:
        if event["type"] == "MovePlayed":
            for fact in event["data"]["facts"]:
                assert fact["to"] == "all" or set(fact["to"]) & set(seats), fact


def test_three_players_and_a_bot_play_res_publica_to_the_end_over_http(live_server):
    status, text = Http(live_server).call("GET", "/openapi.yaml")[:2]
    spec = yaml.safe_load(text)
    clients = dict(register(live_server, spec, name)[::-1] for name in ("alice", "bob", "carol"))
    alice = next(iter(clients.values()))
    status, game = alice.call("POST", "/v1/games", {"type": RP, "seats": 4, "bots": [3]})
    assert status == 201
    game_id = game["id"]
    for client in list(clients.values())[1:]:
        status, game = client.call("POST", "/v1/games/{game_id}/join", {}, game_id=game_id)
        assert status == 200
    assert game["status"] == "active"

    rng = random.Random(7)
    deadline = time.monotonic() + TIME_LIMIT
    moves_made = 0
    while game["status"] != "ended":
        assert time.monotonic() < deadline, "the game did not end in time"
        acted = False
        for client in clients.values():
            status, game = client.call("GET", "/v1/games/{game_id}", game_id=game_id)
            assert status == 200
            assert_no_other_hand(game)
            status, listed = client.call("GET", "/v1/games/{game_id}/moves", game_id=game_id)
            if not listed["moves"]:
                continue
            move = rng.choice(listed["moves"])
            status, played = client.call(
                "POST", "/v1/games/{game_id}/moves",
                {"expected_version": listed["version"], "seat": listed["seat"],
                 "moves": [{"id": move["id"]}]}, game_id=game_id)
            if status == 409 and played["code"] in ("version_conflict", "not_your_turn"):
                continue  # the bot or another seat moved in between: look again
            assert status == 201, played
            assert_no_other_hand(played["game"])
            assert_log_redacted(played["events"], played["game"]["your_seats"])
            game = played["game"]
            acted, moves_made = True, moves_made + 1
            if moves_made % 50 == 0:
                status, page = client.call("GET", "/v1/games/{game_id}/events", game_id=game_id,
                                           after=max(0, game["version"] - 100), limit=100)
                status, now = client.call("GET", "/v1/games/{game_id}", game_id=game_id)
                # The bot may have ended the game in between: then the whole log is public.
                if now["status"] != "ended":
                    assert_log_redacted(page["items"], game["your_seats"])
        if not acted:
            time.sleep(0.02)  # the bot's turn: the worker plays it
            status, game = alice.call("GET", "/v1/games/{game_id}", game_id=game_id)

    # The complete log and the final scores, with the seed revealed and matching.
    log, after = [], 0
    while after is not None:
        status, page = alice.call("GET", "/v1/games/{game_id}/events", game_id=game_id,
                                  after=after, limit=500)
        log += page["items"]
        after = page["next_after"]
    types = [e["type"] for e in log]
    assert "GameEnded" in types and "SeedRevealed" in types
    assert [e["v"] for e in log] == list(range(1, len(log) + 1))
    assert all(b["prev"] == a["hash"] for a, b in zip(log, log[1:], strict=False))
    assert not any(e.get("redacted") for e in log)  # after the end, the log is whole
    status, final = alice.call("GET", "/v1/games/{game_id}", game_id=game_id)
    assert final["status"] == "ended"
    assert sorted(row["seat"] for row in final["result"]["seats"]) == [0, 1, 2, 3]
    seed = bytes.fromhex(final["revealed_seed"])
    assert hashlib.sha256(seed).hexdigest() == final["seed_commitment"]
    assert all("hand" in p for p in final["view"]["players"])  # the final reveal
    bot_moves = [e for e in log if e["type"] == "MovePlayed" and e["data"]["seat"] == 3]
    assert bot_moves and all(e["by"].startswith("bot:") for e in bot_moves)


def test_five_bot_seats_finish_through_the_workers(live_server):
    client, _ = register(live_server, {"paths": {"/v1/players": {"post": {}}}}, "host")
    status, text = Http(live_server).call("GET", "/openapi.yaml")[:2]
    client.spec = yaml.safe_load(text)
    status, game = client.call("POST", "/v1/games", {"type": RP, "seats": 5,
                                                     "bots": [0, 1, 2, 3, 4], "join": False})
    assert status == 201 and game["status"] == "active"
    deadline = time.monotonic() + TIME_LIMIT
    while game["status"] != "ended" or not game_scored(client, game):
        assert time.monotonic() < deadline, f"stuck at version {game['version']}"
        time.sleep(0.2)
        status, game = client.call("GET", "/v1/games/{game_id}", game_id=game["id"])
    assert game["result"]["seats"]


def game_scored(client: SpecClient, game: dict[str, Any]) -> bool:
    status, page = client.call("GET", "/v1/games/{game_id}/events", game_id=game["id"],
                               after=max(0, game["version"] - 5))
    return any(e["type"] == "GameScored" for e in page["items"])
