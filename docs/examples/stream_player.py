"""A complete Meeple client: it registers, opens a table against bots, and plays a whole
game, woken by the server's stream of your turns instead of polling. Python 3.11 and the
standard library only.

    python docs/examples/stream_player.py --api http://127.0.0.1:8000 --game trajan

It does what docs/clients.md describes, in order:
1. register (`POST /v1/players`): the API key comes once;
2. open a table whose other seats are bots (`POST /v1/games`, with an Idempotency-Key);
3. listen to `GET /v1/players/me/stream` (Server-Sent Events): on each `your_turn` for
   the game, play a random legal move with the version it saw, and go on from the answer's
   `your_moves` while a seat of ours still must act;
4. on `409 version_conflict`, read the moves again and retry; on `429` and `503`, wait
   `Retry-After` seconds and retry with the same Idempotency-Key;
5. on `game_ended`, print the score sheet and stop.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

RETRIED = (429, 503)  # wait Retry-After, then send the same request again


class ApiError(Exception):
    def __init__(self, status: int, problem: dict[str, Any]) -> None:
        super().__init__(f"{status} {problem.get('code')}: {problem.get('detail')}")
        self.status = status
        self.problem = problem


class Meeple:
    """JSON over HTTP with the retries every client needs."""

    def __init__(self, api: str, key: str | None = None) -> None:
        self.api = api.rstrip("/")
        self.key = key

    def call(self, method: str, path: str, body: Any = None,
             headers: dict[str, str] | None = None) -> Any:
        for _ in range(10):
            request = urllib.request.Request(
                self.api + path, method=method,
                data=None if body is None else json.dumps(body).encode())
            request.add_header("Content-Type", "application/json")
            if self.key:
                request.add_header("Authorization", f"Bearer {self.key}")
            for name, value in (headers or {}).items():
                request.add_header(name, value)
            try:
                with urllib.request.urlopen(request, timeout=30) as answer:
                    return json.loads(answer.read() or b"null")
            except urllib.error.HTTPError as error:
                problem = json.loads(error.read() or b"{}")
                if error.code in RETRIED:
                    time.sleep(float(error.headers.get("Retry-After", "1")))
                    continue
                raise ApiError(error.code, problem) from None
        raise RuntimeError(f"{method} {path}: still refused after 10 tries")

    def stream(self, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """(event, data) for each Server-Sent Event of `path`, for as long as it is open."""
        url = urlsplit(self.api + path)
        connection = http.client.HTTPConnection(url.hostname or "", url.port or 80,
                                                timeout=60)
        connection.request("GET", url.path, headers={
            "Authorization": f"Bearer {self.key}", "Accept": "text/event-stream"})
        answer = connection.getresponse()
        if answer.status != 200:
            raise ApiError(answer.status, json.loads(answer.read() or b"{}"))
        event, data = "message", []
        while True:
            line = answer.readline().decode()
            if not line:
                return  # the server closed the stream
            line = line.rstrip("\r\n")
            if line.startswith(":"):
                continue  # a keepalive
            if line.startswith("event:"):
                event = line.removeprefix("event:").strip()
            elif line.startswith("data:"):
                data.append(line.removeprefix("data:").strip())
            elif not line and data:
                yield event, json.loads("\n".join(data))
                event, data = "message", []


def play_turn(meeple: Meeple, game_id: str, rng: random.Random) -> int:
    """Play until no seat of ours must act; returns how many moves were played."""
    listed = meeple.call("GET", f"/v1/games/{game_id}/moves")
    played = 0
    while listed["moves"]:
        move = rng.choice(listed["moves"])
        try:
            answer = meeple.call("POST", f"/v1/games/{game_id}/moves", {
                "expected_version": listed["version"], "seat": listed["seat"],
                "moves": [{"id": move["id"]}]}, {"Idempotency-Key": str(uuid.uuid4())})
        except ApiError as error:
            if error.problem.get("code") == "version_conflict":
                listed = meeple.call("GET", f"/v1/games/{game_id}/moves")  # someone moved
                continue
            raise
        played += 1
        listed = answer["your_moves"]  # what GET …/moves would say now
        if answer["game"]["status"] == "ended":
            break
    return played


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--api", default="http://127.0.0.1:8000")
    parser.add_argument("--game", default="trajan", help="a game type id")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--name", default="stream-player")
    parser.add_argument("--seed", default="example", help="for our random choices")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)

    meeple = Meeple(args.api)
    me = meeple.call("POST", "/v1/players", {"name": args.name})
    meeple.key = me["api_key"]
    game = meeple.call("POST", "/v1/games", {
        "type": args.game, "seats": args.seats, "bots": list(range(1, args.seats))},
        {"Idempotency-Key": str(uuid.uuid4())})
    print(f"game {game['id']} ({args.game}): {game['status']}", flush=True)

    moves = 0
    for event, data in meeple.stream("/v1/players/me/stream"):
        if data.get("game_id") != game["id"]:
            continue
        if event == "your_turn":
            moves += play_turn(meeple, game["id"], rng)
        elif event == "game_ended":
            sheet = data["result"]
            for row in sorted(sheet["seats"], key=lambda row: row["rank"]):
                print(f"rank {row['rank']}: seat {row['seat']}, {row['total']} points",
                      flush=True)
            print(f"ended after {moves} moves of ours", flush=True)
            return 0
    print("the stream closed before the end", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
