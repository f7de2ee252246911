"""Trajan end to end (issue 14, Acceptance: "a 3-seat game, 2 humans over HTTP and a bot
through a real worker, is played to the end; its record verifies offline").

Two people play random legal moves over real HTTP through gunicorn; seat 1 is a bot played
by a real `meeple worker` (RQ). A person's turn is many moves (a tray, the markers sown one
by one, the action and its options): each move is one request, the next one chosen from the
legal moves the answer lists (`your_moves`), as a client does. No answer shows a person
another seat's commodity cards (their hand sizes are public). After the end the scoring
worker rates the two people and the bot, and the trajan leaderboard lists them; the finished
record and the server's keys, downloaded over HTTP, are checked by `meeple verify --keys`
(the CLI, in a subprocess): VALID, signed by a trusted key, every move re-executed; a copy
where one of a person's moves is swapped for another move legal at that point is INVALID.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

from games.registry import get_game
from tests.e2e.conftest import download, game_log, leaderboard_when, meeple_verify, register

TRAJAN = "trajan"
BOT = 1
PEOPLE_SEATS = (0, 2)
TIME_LIMIT = 300  # seconds; a 3-seat game of random moves is some 400 moves


def assert_no_other_hand(view: dict[str, Any] | None, seat: int, where: str) -> int:
    """A person's own hand and the others' sizes only; returns how many of the others'
    cards were held back (their hand sizes but the cards seen taken from a discard pile)."""
    if view is None or view["phase"] == "over":
        return 0
    held = 0
    for entry in view["players"]:
        assert isinstance(entry["hand_size"], int), f"{where}: no hand size"
        if entry["seat"] == seat:
            assert "hand" in entry and sum(entry["hand"].values()) == entry["hand_size"]
            continue
        assert "hand" not in entry, f"{where}: seat {seat} is shown seat {entry['seat']}'s hand"
        held += entry["hand_size"] - sum(entry.get("known_cards", {}).values())
    return held


def assert_facts_mine(events: list[dict[str, Any]], seat: int, where: str) -> None:
    for event in events:
        assert event["type"] != "SeedRevealed", where
        if event["type"] == "MovePlayed":
            for fact in event["data"]["facts"]:
                assert fact["to"] == "all" or seat in fact["to"], f"{where}: {fact}"
            if event["data"]["seat"] != seat:
                assert "move" not in event["data"], f"{where}: another seat's move"


def test_three_seats_two_people_over_http_and_a_bot_by_a_worker_then_meeple_verify(
        live_server: str, tmp_path: Path) -> None:
    ann, ben = register(live_server, "ann"), register(live_server, "ben")
    status, game, _ = ann.call("POST", "/v1/games", {"type": TRAJAN, "seats": 3, "bots": [BOT]})
    assert status == 201, game
    game_id = game["id"]
    status, game, _ = ben.call("POST", f"/v1/games/{game_id}/join", {})
    assert status == 200, game
    assert game["status"] == "active" and game["actors"] == [0]
    people = dict(zip(PEOPLE_SEATS, (ann, ben), strict=True))
    ann_id, ben_id = (p.call("GET", "/v1/players/me")[1]["id"] for p in (ann, ben))
    for seat, person in people.items():
        assert person.call("GET", f"/v1/games/{game_id}")[1]["your_seats"] == [seat]

    rng = random.Random(2014)
    deadline = time.monotonic() + TIME_LIMIT
    moves = conflicts = held = 0
    listed: dict[str, Any] | None = None  # the legal moves an answer gave the mover
    while game["status"] != "ended":
        assert time.monotonic() < deadline, f"not over in time, at version {game['version']}"
        (seat,) = game["actors"]  # one seat acts at a time
        if seat not in people:  # the bot's turn: the worker plays it
            time.sleep(0.02)
            status, game, _ = ann.call("GET", f"/v1/games/{game_id}")
            assert status == 200, game
            held += assert_no_other_hand(game["view"], 0, "GET game")
            continue
        person = people[seat]
        if listed is None or listed["seat"] != seat or listed["version"] != game["version"]:
            status, listed, _ = person.call("GET", f"/v1/games/{game_id}/moves?seat={seat}")
            assert status == 200, listed
        assert listed["seat"] == seat and listed["moves"], listed
        move = rng.choice(listed["moves"])
        status, played, _ = person.call(
            "POST", f"/v1/games/{game_id}/moves",
            {"expected_version": listed["version"], "seat": seat, "moves": [{"id": move["id"]}]})
        if status == 409:  # cannot happen with one actor at a time, but a client retries
            assert played["code"] == "version_conflict", played
            conflicts += 1
            listed = None
            game = ann.call("GET", f"/v1/games/{game_id}")[1]
            continue
        assert status == 201, played
        moves += 1
        game, listed = played["game"], played["your_moves"]
        if game["status"] == "ended":
            break
        where = f"POST move {moves} (seat {seat})"
        held += assert_no_other_hand(game["view"], seat, where)
        assert_facts_mine(played["events"], seat, where)
        if moves % 50 == 0:  # now and then, the log and the state as the person reads them
            assert_facts_mine(game_log(person, game_id), seat, "events")
            status, state, _ = person.call("GET", f"/v1/games/{game_id}/state")
            assert status == 200, state
            # The bot may have played the last move since: an ended game shows everything.
            assert (state["full_state"] is None) == (state["status"] != "ended"), state
            held += assert_no_other_hand(state["view"], seat, "GET state")

    # The end, as the API tells it.
    assert moves > 100 and held > 0, (moves, held)
    status, final, _ = ben.call("GET", f"/v1/games/{game_id}")
    assert final["status"] == "ended" and final["revealed_seed"]
    assert final["view"]["phase"] == "over"
    assert sorted(row["seat"] for row in final["result"]["seats"]) == [0, 1, 2]
    log = game_log(ann, game_id)
    played_moves = [e for e in log if e["type"] == "MovePlayed"]
    by_bot = [e for e in played_moves if e["data"]["seat"] == BOT]
    assert by_bot and all(e["by"] == "bot:random" for e in by_bot)
    assert all(e["by"] in (ann_id, ben_id) for e in played_moves if e["data"]["seat"] != BOT)
    assert len(played_moves) == moves + len(by_bot)
    types = [e["type"] for e in log]
    assert types.index("GameEnded") + 1 == types.index("SeedRevealed")

    # The scoring worker rates the two people and the bot: Trajan's leaderboard lists them,
    # the bot by its level (issue 17).
    rows = leaderboard_when(ann, TRAJAN, 3)
    assert sorted((row["player_id"], row["bot"], row["level"]) for row in rows) == sorted(
        [(ann_id, False, None), (ben_id, False, None), ("bot:random", True, "random")]), rows

    # The record, as a person downloads it, and the server's published keys.
    record_file, keys_file = tmp_path / "record.json", tmp_path / "keys.json"
    record_file.write_bytes(download(ben, f"/v1/games/{game_id}/record"))
    keys_file.write_bytes(download(ann, "/v1/keys"))
    record = json.loads(record_file.read_bytes())
    assert record["complete"] is True and record["game"]["id"] == game_id
    assert record["game"]["type"] == TRAJAN and record["seed"] == final["revealed_seed"]
    done = meeple_verify(record_file, "--keys", keys_file)
    assert done.returncode == 0, done.stdout + done.stderr
    first = done.stdout.splitlines()[0]
    rules = record["game"]["rules_version"]
    assert first == f"VALID: game {game_id} ({TRAJAN}, rules_version {rules})", done.stdout
    assert "(trusted)" in done.stdout
    report = meeple_verify(record_file, "--keys", keys_file, "--json")
    assert report.returncode == 0, report.stdout + report.stderr
    checked = json.loads(report.stdout)
    assert checked["ok"] is True and checked["problems"] == []
    assert checked["checked"]["moves_reexecuted"] == len(played_moves)
    assert checked["checked"]["events"] == len(record["events"])

    # And it is not a verifier that finds everything valid: one of ann's moves, in the middle
    # of the game, swapped for another move that was legal then, is caught.
    forged = json.loads(record_file.read_bytes())
    trajan = get_game(TRAJAN, rules)
    candidates = [e for e in forged["events"] if e["type"] == "MovePlayed"
                  and e["data"]["seat"] == 0]
    for event in candidates[len(candidates) // 2:]:
        status, before, _ = ann.call("GET", f"/v1/games/{game_id}/state?version={event['v'] - 1}")
        assert status == 200 and before["full_state"] is not None, before
        others = [m["id"] for m in trajan.legal_moves(before["full_state"], 0)
                  if m["id"] != event["data"]["move"]["id"]]
        if others:
            event["data"]["move"] = {"id": others[0]}
            break
    else:
        raise AssertionError("ann never had a choice in the second half of the game")
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    refused = meeple_verify(tmp_path / "forged.json", "--keys", keys_file)
    assert refused.returncode == 1 and refused.stdout.startswith("INVALID"), refused.stdout
    # Not only the seal: re-executed, the game goes otherwise than recorded from that move.
    assert "[replay] events[" in refused.stdout, refused.stdout
    print(f"\n{len(played_moves)} moves ({moves} by people, {len(by_bot)} by the bot), "
          f"{conflicts} version conflicts, {held} cards of others held back")
