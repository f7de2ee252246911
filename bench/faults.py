"""Kill -9 under load (issue 11): `meeple run` with human clients and bot games, while each
process of the stack is killed again and again.

    .venv/bin/python -m bench.faults [--humans 6] [--bot-games 20] [--rounds 3] [--json FILE]

`meeple run` in a temporary directory (its embedded game Redis, its counters Redis, gunicorn
with 2 workers, one RQ worker with the scheduler). Human clients each play a 2-seat game
against a bot with random legal moves: `GET …/moves`, then `POST …/moves` with the expected
version and an Idempotency-Key, the same key again after a 503 or a broken connection. Bot
games are 2 bots each. Meanwhile, `--rounds` times over, each of: the game Redis, the
counters Redis, one gunicorn worker, the RQ worker is killed with SIGKILL, 4 s apart.

Printed: kills, requests and their statuses, acknowledged moves and how many of them are
missing from the streams afterwards (the budget: 0), bot games finished (all), 5xx other
than 503 (none), and how long the bot games took to finish after the last kill.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.harness import machine, print_machine, progress
from cli.embedded_redis import free_port

MEEPLE = Path(sys.executable).parent / "meeple"
GAME = "res-publica-2230ad"
FINISH_SECONDS = 900


class Client:
    """A JSON client that counts statuses and never raises on a dropped connection."""

    def __init__(self, port: int, statuses: Counter[str], key: str | None = None) -> None:
        self.port, self.statuses, self.key = port, statuses, key

    def call(self, method: str, path: str, body: Any = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any]:
        sent = {"Content-Type": "application/json", **(headers or {})}
        if self.key:
            sent["Authorization"] = f"Bearer {self.key}"
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request(method, path, json.dumps(body) if body is not None else None, sent)
            response = conn.getresponse()
            raw = response.read()
            status = response.status
        except (OSError, http.client.HTTPException):  # refused, reset, or cut mid-answer
            self.statuses["connection lost"] += 1
            return 0, None
        finally:
            conn.close()
        self.statuses[str(status)] += 1
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, None


def register(client: Client, name: str) -> str:
    while True:
        status, body = client.call("POST", "/v1/players", {"name": name})
        if status == 201:
            return str(body["api_key"])
        time.sleep(0.5)


def human(port: int, name: str, stop: threading.Event, statuses: Counter[str],
          acked: list[tuple[str, str, int, str]]) -> None:
    """Play one game against a bot after another, until `stop`."""
    client = Client(port, statuses)
    client.key = register(client, name)
    rng = random.Random(name)
    game_id: str | None = None
    turn = 0
    while not stop.is_set():
        if game_id is None:
            status, game = client.call("POST", "/v1/games", {"type": GAME, "seats": 2,
                                                             "bots": [1]},
                                       {"Idempotency-Key": f"{name}-game-{turn}"})
            if status != 201:
                time.sleep(0.5)
                continue
            game_id = game["id"]
        status, listed = client.call("GET", f"/v1/games/{game_id}/moves")
        if status != 200:
            time.sleep(0.3)
            continue
        if listed.get("status") == "ended" or not listed.get("moves"):
            status, game = client.call("GET", f"/v1/games/{game_id}")
            if status == 200 and game["status"] == "ended":
                game_id, turn = None, turn + 1
            time.sleep(0.2)
            continue
        move = rng.choice(listed["moves"])
        body = {"expected_version": listed["version"], "moves": [{"id": move["id"]}]}
        key = f"{name}-{game_id}-{listed['version']}"
        for _ in range(40):  # a 503 or a lost connection: the same request again
            status, answer = client.call("POST", f"/v1/games/{game_id}/moves", body,
                                         {"Idempotency-Key": key})
            if status not in (0, 503):
                break
            time.sleep(0.25)
        if status == 201:
            acked.append((client.key, game_id, listed["version"] + 1, move["id"]))


def pid_of(path: Path) -> int | None:
    try:
        return int(path.read_text())
    except (OSError, ValueError):
        return None


def child_pids(log_path: Path) -> dict[str, int]:
    pids: dict[str, int] = {}
    for line in log_path.read_text(errors="replace").splitlines():
        if line.startswith("{"):
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("event") == "started" and "child" in entry:
                pids[entry["child"]] = entry["pid"]
    return pids


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            if f"\nPPid:\t{pid}\n" in status:
                found.append(int(entry.name))
    return found


def kill(target: str, workdir: Path, log_path: Path) -> bool:
    pids = child_pids(log_path)
    if target == "game redis":
        pid = pid_of(workdir / "var" / "redis" / "pid")
    elif target == "counters redis":
        pid = pid_of(workdir / "var" / "redis-counters" / "pid")
    elif target == "gunicorn worker":
        workers = children_of(pids["api"]) if "api" in pids else []
        pid = workers[0] if workers else None
    else:
        pid = pids.get("worker")
    if pid is None:
        return False
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--humans", type=int, default=6)
    parser.add_argument("--bot-games", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--finish-seconds", type=float, default=FINISH_SECONDS,
                        help="how long the bot games may take to finish after the last kill")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    info = machine()
    print_machine(info)
    statuses: Counter[str] = Counter()
    acked: list[tuple[str, str, int, str]] = []
    kills: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        port, smtpd = free_port(), free_port()
        log_path = workdir / "meeple-run.log"
        env = {k: v for k, v in os.environ.items()
               if k not in ("MEEPLE_REDIS_URL", "MEEPLE_RATELIMIT_REDIS_URL")}
        env.update({"MEEPLE_RATE_LIMIT": "1000000 per minute",
                    "MEEPLE_REGISTRATION_RATE_LIMIT": "1000000 per minute",
                    "MEEPLE_MAX_BOT_GAMES": "0"})  # one host runs all the bot games
        with log_path.open("wb") as log:
            run = subprocess.Popen([str(MEEPLE), "run", "--port", str(port), "--workers", "2",
                                    "--smtpd-port", str(smtpd)], cwd=workdir, env=env,
                                   stdout=log, stderr=subprocess.STDOUT)
        try:
            host = Client(port, statuses)
            deadline = time.monotonic() + 60
            while host.call("GET", "/healthz")[0] != 200 and time.monotonic() < deadline:
                time.sleep(0.3)
            host.key = register(host, "host")
            bot_games = []
            for n in range(args.bot_games):
                status, game = host.call("POST", "/v1/games", {"type": GAME, "seats": 2,
                                                               "bots": [0, 1], "join": False},
                                         {"Idempotency-Key": f"bots-{n}"})
                bot_games.append(game["id"])
            stop = threading.Event()
            threads = [threading.Thread(target=human, args=(port, f"human{n}", stop, statuses,
                                                            acked), daemon=True)
                       for n in range(args.humans)]
            for thread in threads:
                thread.start()
            targets = ("game redis", "counters redis", "gunicorn worker", "rq worker")
            for round_ in range(args.rounds):
                for target in targets:
                    time.sleep(4)
                    progress(f"round {round_ + 1}: kill -9 the {target}")
                    if kill(target, workdir, log_path):
                        kills[target] += 1
            last_kill = time.monotonic()
            time.sleep(5)
            stop.set()
            for thread in threads:
                thread.join(60)
            progress("waiting for the bot games to finish")
            unfinished = list(bot_games)
            while unfinished and time.monotonic() - last_kill < args.finish_seconds:
                unfinished = [g for g in unfinished
                              if (host.call("GET", f"/v1/games/{g}")[1] or {}).get("status")
                              != "ended"]
                time.sleep(2)
            finished_after = time.monotonic() - last_kill
            lost = missing_moves(port, statuses, acked)
        finally:
            run.send_signal(signal.SIGINT)
            try:
                run.wait(60)
            except subprocess.TimeoutExpired:
                run.kill()
    server_errors = sum(count for status, count in statuses.items()
                        if status.startswith("5") and status != "503")
    figures = {"kills": dict(kills), "requests": dict(statuses), "acked_moves": len(acked),
               "acked_moves_missing": lost, "bot_games": args.bot_games,
               "bot_games_finished": args.bot_games - len(unfinished),
               "seconds_to_finish_after_last_kill": round(finished_after, 1),
               "5xx_other_than_503": server_errors}
    for name, value in figures.items():
        print(f"{name:<36}{value}")
    if args.json:
        args.json.write_text(json.dumps({"machine": info, **figures}, indent=2))


def missing_moves(port: int, statuses: Counter[str],
                  acked: list[tuple[str, str, int, str]]) -> int:
    """Acknowledged moves not in their game's stream at the version they were given (read
    with the mover's own key: a seat sees its own moves in full)."""
    by_game: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for key, game_id, version, move_id in acked:
        by_game.setdefault((key, game_id), []).append((version, move_id))
    missing = 0
    for (key, game_id), moves in by_game.items():
        client = Client(port, statuses, key)
        events: dict[int, Any] = {}
        after: int | None = 0
        while after is not None:
            status, page = client.call("GET", f"/v1/games/{game_id}/events?after={after}"
                                       "&limit=500")
            if status != 200:
                break
            events.update((event["v"], event) for event in page["items"])
            after = page["next_after"]
        for version, move_id in moves:
            event = events.get(version)
            if event is None or event["type"] != "MovePlayed" or \
                    (event["data"].get("move") or {}).get("id") != move_id:
                missing += 1
    return missing


if __name__ == "__main__":
    main()
