"""Trappist One end to end: four seats, two people playing over real HTTP through gunicorn,
two bots played by a real `meeple worker` (RQ), to the end; then the finished game's record,
fetched over HTTP, is verified offline by `meeple verify` (the CLI, in a subprocess), which
must find it valid, signed by the key the server publishes, every move re-executed.

All four seats are actors at once in the secret starting choice: the people and the worker
race there, and a person's move guarded by a version a bot has just moved past is refused
(409 `version_conflict`) and sent again on the new version, as a client does.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

from tests.e2e.conftest import download, game_log, leaderboard_when, meeple_verify, register

TRAPPIST = "trappist-one"
BOTS = [1, 3]
TIME_LIMIT = 300  # seconds; a 4-seat game of random moves is some 150 to 250 moves
SECRET_KEYS = ("hand", "cargo", "hangar", "scrapyard", "pick")


def assert_own_secrets_only(view: dict[str, Any], seat: int) -> None:
    if view["phase"] == "over":
        return
    for entry in view["players"]:
        shown = [key for key in SECRET_KEYS if key in entry]
        if entry["seat"] == seat:
            assert "hand" in shown, entry
        else:
            assert not shown, f"seat {seat} is shown seat {entry['seat']}'s {shown}"


def test_four_seats_two_bots_two_people_over_http_then_meeple_verify_finds_it_valid(
        live_server: str, tmp_path: Path) -> None:
    ann, ben = register(live_server, "ann"), register(live_server, "ben")
    status, game, _ = ann.call("POST", "/v1/games", {"type": TRAPPIST, "seats": 4, "bots": BOTS})
    assert status == 201, game
    game_id = game["id"]
    status, game, _ = ben.call("POST", f"/v1/games/{game_id}/join", {})
    assert status == 200, game
    assert game["status"] == "active" and game["view"]["phase"] == "choose"
    assert game["actors"] == [0, 1, 2, 3]
    people = {0: ann, 2: ben}
    ann_id, ben_id = (p.call("GET", "/v1/players/me")[1]["id"] for p in (ann, ben))
    for seat, person in people.items():
        assert person.call("GET", f"/v1/games/{game_id}")[1]["your_seats"] == [seat]

    rng = random.Random(2026)
    deadline = time.monotonic() + TIME_LIMIT
    moves = conflicts = 0
    chose = set()
    while game["status"] != "ended":
        assert time.monotonic() < deadline, f"not over in time, at version {game['version']}"
        acted = False
        for seat, person in people.items():
            status, listed, _ = person.call("GET", f"/v1/games/{game_id}/moves?seat={seat}")
            assert status == 200, listed
            if not listed["moves"]:
                continue
            move = rng.choice(listed["moves"])
            status, played, _ = person.call(
                "POST", f"/v1/games/{game_id}/moves",
                {"expected_version": listed["version"], "seat": seat,
                 "moves": [{"id": move["id"]}]})
            if status == 409:  # a bot moved first (the choice, a reaction): look again
                assert played["code"] == "version_conflict", played
                conflicts += 1
                continue
            assert status == 201, played
            moves += 1
            acted = True
            if move["id"].startswith("pick:"):
                chose.add(seat)
            if played["game"]["status"] == "ended":
                break
            assert_own_secrets_only(played["game"]["view"], seat)
        status, game, _ = ann.call("GET", f"/v1/games/{game_id}")
        assert status == 200, game
        if not acted and game["status"] != "ended":
            time.sleep(0.02)  # the bots' turns: the worker plays them

    # The end, as the API tells it.
    assert chose == {0, 2} and moves > 20
    status, final, _ = ben.call("GET", f"/v1/games/{game_id}")
    assert final["status"] == "ended" and final["revealed_seed"]
    assert sorted(row["seat"] for row in final["result"]["seats"]) == [0, 1, 2, 3]
    assert all("hand" in entry for entry in final["view"]["players"])  # all shown at the end
    log = game_log(ann, game_id)
    played = [e for e in log if e["type"] == "MovePlayed"]
    by_bots = [e for e in played if e["data"]["seat"] in BOTS]
    assert by_bots and all(e["by"] == "bot:random" for e in by_bots)
    assert all(e["by"] != "bot:random" for e in played if e["data"]["seat"] not in BOTS)
    assert {e["data"]["seat"] for e in played if e["data"]["move"]["id"].startswith("pick:")} \
        == {0, 1, 2, 3}
    types = [e["type"] for e in log]
    assert types.index("GameEnded") + 1 == types.index("SeedRevealed")

    # The scoring worker rates the two people: Trappist One's leaderboard lists them (bots
    # are never rated).
    rows = leaderboard_when(ann, TRAPPIST, 2)
    assert sorted(row["player_id"] for row in rows) == sorted([ann_id, ben_id]), rows

    # The record, as a person downloads it, and the server's published keys.
    record_file, keys_file = tmp_path / "record.json", tmp_path / "keys.json"
    record_file.write_bytes(download(ben, f"/v1/games/{game_id}/record"))
    keys_file.write_bytes(download(ann, "/v1/keys"))
    record = json.loads(record_file.read_bytes())
    assert record["complete"] is True and record["game"]["id"] == game_id
    done = meeple_verify(record_file, "--keys", keys_file)
    assert done.returncode == 0, done.stdout + done.stderr
    first = done.stdout.splitlines()[0]
    assert first == f"VALID: game {game_id} ({TRAPPIST}, rules_version 2)", done.stdout
    assert "(trusted)" in done.stdout
    report = meeple_verify(record_file, "--keys", keys_file, "--json")
    assert report.returncode == 0, report.stdout + report.stderr
    checked = json.loads(report.stdout)
    assert checked["ok"] is True and checked["problems"] == []
    assert checked["checked"]["moves_reexecuted"] == len(played)
    assert checked["checked"]["events"] == len(record["events"])
    # And it is not a verifier that finds everything valid: one changed fact is caught.
    forged = json.loads(record_file.read_bytes())
    move = next(e for e in forged["events"] if e["type"] == "MovePlayed"
                and e["data"]["seat"] == 0 and e["data"]["move"]["id"].startswith("pick:"))
    # Another pick than the one made (a deal may have made exactly this one).
    forged_id = "pick:solar-solar-solar"
    if move["data"]["move"]["id"] == forged_id:
        forged_id = "pick:solar-solar-sophus"
    move["data"]["move"]["id"] = forged_id
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    refused = meeple_verify(tmp_path / "forged.json")
    assert refused.returncode == 1 and refused.stdout.startswith("INVALID"), refused.stdout
    print(f"\n{len(played)} moves ({moves} by people, {len(by_bots)} by bots), "
          f"{conflicts} version conflicts")
