"""The games resource through the Flask test client, on a real redis: the event store on one
node and on a Redis Cluster."""

from __future__ import annotations

import hashlib

import pytest

from tests.conftest import ON_BOTH_BACKENDS
from tests.service.conftest import RP, Caller

pytestmark = ON_BOTH_BACKENDS

PROBLEM = "application/problem+json"


def started_game(alice: Caller, bob: Caller) -> dict:
    game = alice.create(seats=2)
    joined = bob.post(f"/v1/games/{game['id']}/join", {})
    assert joined.status_code == 200
    return joined.json


def whole_log(caller: Caller, game_id: str) -> list[dict]:
    items, after = [], 0
    while after is not None:
        page = caller.get(f"/v1/games/{game_id}/events?after={after}&limit=500").json
        items += page["items"]
        after = page["next_after"]
    return items


def test_game_types_lists_res_publica(client):
    response = client.get("/v1/game-types")
    assert response.status_code == 200
    ids = {t["id"]: t for t in response.json}
    assert ids[RP]["min_players"] == 2 and ids[RP]["max_players"] == 5


def test_game_starts_when_the_last_seat_is_taken(alice, bob):
    game = alice.create(seats=2)
    assert game["status"] == "open" and game["your_seats"] == [0] and game["view"] is None
    started = bob.post(f"/v1/games/{game['id']}/join", {}).json
    assert started["status"] == "active"
    assert started["your_seats"] == [1]
    assert started["actors"] == [0]
    assert [s["player_id"] for s in started["seats"]] == [alice.id, bob.id]


def test_seed_commitment_is_published_and_seed_is_not(alice, bob):
    game = started_game(alice, bob)
    assert len(game["seed_commitment"]) == 64
    assert game["revealed_seed"] is None


def test_etag_is_the_version_and_if_none_match_gives_304(alice, bob):
    game = started_game(alice, bob)
    first = alice.get(f"/v1/games/{game['id']}")
    assert first.headers["ETag"] == f'"{game["version"]}"'
    again = alice.get(f"/v1/games/{game['id']}", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304


def test_a_legal_move_is_appended_and_versions_advance(alice, bob):
    game = started_game(alice, bob)
    played = alice.play_first_move(game["id"])
    assert played.status_code == 201, played.json
    assert played.json["version"] == game["version"] + 1
    assert [e["type"] for e in played.json["events"]] == ["MovePlayed"]


def test_moves_out_of_turn_are_refused(alice, bob):
    game = started_game(alice, bob)
    listed = alice.get(f"/v1/games/{game['id']}/moves").json
    response = bob.post(f"/v1/games/{game['id']}/moves", {"moves": [listed["moves"][0]]})
    assert response.status_code == 409
    assert response.json["code"] == "not_your_turn"
    assert response.content_type == PROBLEM


def test_stale_expected_version_is_a_conflict_and_writes_nothing(alice, bob):
    game = started_game(alice, bob)
    listed = alice.get(f"/v1/games/{game['id']}/moves").json
    response = alice.post(f"/v1/games/{game['id']}/moves",
                          {"expected_version": listed["version"] - 1,
                           "moves": [{"id": listed["moves"][0]["id"]}]})
    assert response.status_code == 409
    assert response.json["code"] == "version_conflict"
    assert response.json["current_version"] == listed["version"]
    assert alice.get(f"/v1/games/{game['id']}").json["version"] == listed["version"]


def test_if_match_guards_moves_like_expected_version(alice, bob):
    game = started_game(alice, bob)
    listed = alice.get(f"/v1/games/{game['id']}/moves").json
    response = alice.post(f"/v1/games/{game['id']}/moves",
                          {"moves": [{"id": listed["moves"][0]["id"]}]},
                          headers={"If-Match": '"1"'})
    assert response.json["code"] == "version_conflict"


@pytest.mark.parametrize("header", ["4", "12", "\"4", "4\"", "\"4\" 5"])
def test_an_if_match_that_is_no_quoted_etag_is_refused(alice, bob, header):
    """README: If-Match is "compared strongly, as exact text": `4` is no ETag (outside audit:
    werkzeug took it for "4", and the move was played)."""
    game = started_game(alice, bob)
    listed = alice.get(f"/v1/games/{game['id']}/moves").json
    header = header.replace("4", str(listed["version"]))
    response = alice.post(f"/v1/games/{game['id']}/moves",
                          {"moves": [{"id": listed["moves"][0]["id"]}]},
                          headers={"If-Match": header})
    assert response.status_code == 400, (header, response.json)
    assert alice.get(f"/v1/games/{game['id']}").json["version"] == game["version"]


def test_an_illegal_move_is_refused_and_writes_nothing(alice, bob):
    game = started_game(alice, bob)
    response = alice.post(f"/v1/games/{game['id']}/moves", {"moves": [{"id": "no-such-move"}]})
    assert response.status_code == 422
    assert response.json["code"] == "illegal_move"
    assert response.json["move_index"] == 0
    assert alice.get(f"/v1/games/{game['id']}").json["version"] == game["version"]


def test_several_moves_are_all_or_nothing(alice, bob):
    game = started_game(alice, bob)
    listed = alice.get(f"/v1/games/{game['id']}/moves").json
    response = alice.post(f"/v1/games/{game['id']}/moves",
                          {"moves": [{"id": listed["moves"][0]["id"]}, {"id": "no-such-move"}]})
    assert response.status_code == 422
    assert response.json["move_index"] == 1
    assert alice.get(f"/v1/games/{game['id']}").json["version"] == game["version"]


def test_idempotency_key_replays_the_first_result(alice, bob):
    game = started_game(alice, bob)
    listed = alice.get(f"/v1/games/{game['id']}/moves").json
    body = {"expected_version": listed["version"], "moves": [{"id": listed["moves"][0]["id"]}]}
    first = alice.post(f"/v1/games/{game['id']}/moves", body, headers={"Idempotency-Key": "k1"})
    second = alice.post(f"/v1/games/{game['id']}/moves", body, headers={"Idempotency-Key": "k1"})
    assert first.status_code == second.status_code == 201
    assert second.json["replayed"] is True and first.json["replayed"] is False
    assert [e["hash"] for e in second.json["events"]] == [e["hash"] for e in first.json["events"]]
    assert alice.get(f"/v1/games/{game['id']}").json["version"] == first.json["version"]
    other = alice.post(f"/v1/games/{game['id']}/moves", {**body, "seat": 0},
                       headers={"Idempotency-Key": "k1"})
    assert other.status_code == 422 and other.json["code"] == "idempotency_key_reused"


def test_events_are_paginated_and_chained(alice, bob):
    game = started_game(alice, bob)
    alice.play_first_move(game["id"])
    first = alice.get(f"/v1/games/{game['id']}/events?limit=2").json
    assert [e["v"] for e in first["items"]] == [1, 2] and first["next_after"] == 2
    rest = alice.get(f"/v1/games/{game['id']}/events?after=2").json
    items = first["items"] + rest["items"]
    assert rest["next_after"] is None and len(items) == rest["version"]
    for before, after in zip(items, items[1:], strict=False):
        assert after["prev"] == before["hash"]


def test_state_at_an_earlier_version(alice, bob):
    game = alice.get(f"/v1/games/{started_game(alice, bob)['id']}").json
    alice.play_first_move(game["id"])
    before = alice.get(f"/v1/games/{game['id']}/state?version={game['version']}").json
    assert before["version"] == game["version"]
    assert before["view"] == game["view"]
    now = alice.get(f"/v1/games/{game['id']}/state").json
    assert now["version"] == game["version"] + 1 and now["view"] != game["view"]
    missing = alice.get(f"/v1/games/{game['id']}/state?version=999")
    assert missing.status_code == 404 and missing.json["code"] == "version_not_found"


def test_hot_seat_game_played_to_the_end_reveals_the_seed(alice):
    game = alice.create(seats=2)
    alice.post(f"/v1/games/{game['id']}/join", {})
    for _ in range(5000):
        current = alice.get(f"/v1/games/{game['id']}").json
        if current["status"] == "ended":
            break
        played = alice.play_first_move(game["id"])
        assert played.status_code == 201, played.json
    final = alice.get(f"/v1/games/{game['id']}").json
    assert final["status"] == "ended"
    assert {row["seat"] for row in final["result"]["seats"]} == {0, 1}
    seed = bytes.fromhex(final["revealed_seed"])
    assert hashlib.sha256(seed).hexdigest() == final["seed_commitment"]
    types = [e["type"] for e in whole_log(alice, game["id"])]
    assert types[-2:] == ["GameEnded", "SeedRevealed"]


def test_after_the_end_every_version_is_shown_in_full_to_everyone(app, alice, bob, client):
    """Replays and audits: once a game is over, its state at any version, whole."""
    game = started_game(alice, bob)
    spectator = Caller(client, "carol")
    halfway = None
    for step in range(5000):
        current = alice.get(f"/v1/games/{game['id']}").json
        if current["status"] == "ended":
            break
        if step == 40:
            halfway = current["version"]
            assert spectator.get(f"/v1/games/{game['id']}/state?version={halfway}"
                                 ).json["full_state"] is None
        caller = alice if 0 in current["actors"] else bob
        assert caller.play_first_move(game["id"]).status_code == 201
    assert halfway is not None
    truth = app.extensions["meeple"].table_at(game["id"], halfway).state
    for caller in (alice, bob, spectator):
        shown = caller.get(f"/v1/games/{game['id']}/state?version={halfway}").json
        assert shown["full_state"] == truth
        assert any("hand" in p for p in shown["full_state"]["seats"])  # hands included


def test_list_games_filters_and_paginates(alice, bob):
    for _ in range(3):
        alice.create(seats=2)
    started_game(alice, bob)
    mine = alice.get("/v1/games?player=me&limit=2").json
    assert mine["total"] == 4 and len(mine["items"]) == 2
    active = bob.get("/v1/games?status=active").json
    assert active["total"] == 1 and active["items"][0]["status"] == "active"
    opened = bob.get(f"/v1/games?type={RP}&status=open").json
    assert opened["total"] == 3


def test_joining_a_full_game_or_a_taken_seat_is_refused(alice, bob, carol):
    game = alice.create(seats=3)
    assert bob.post(f"/v1/games/{game['id']}/join", {"seat": 0}).json["code"] == "seat_taken"
    bob.post(f"/v1/games/{game['id']}/join", {})
    carol.post(f"/v1/games/{game['id']}/join", {})
    late = Caller(alice.client, "dave").post(f"/v1/games/{game['id']}/join", {})
    assert late.status_code == 409 and late.json["code"] == "game_full"


def test_a_listed_move_may_be_echoed_whole_but_not_altered(alice, bob):
    game = started_game(alice, bob)
    listed = alice.get(f"/v1/games/{game['id']}/moves").json
    altered = {**listed["moves"][0], "label": "something else"}
    refused = alice.post(f"/v1/games/{game['id']}/moves", {"moves": [altered]})
    assert refused.status_code == 422 and refused.json["code"] == "move_mismatch"
    played = alice.post(f"/v1/games/{game['id']}/moves", {"moves": [listed["moves"][0]]})
    assert played.status_code == 201, played.json


def test_the_move_answer_lists_your_next_moves(alice, bob):
    game = started_game(alice, bob)
    played = alice.play_first_move(game["id"]).json
    assert played["your_moves"] == alice.get(f"/v1/games/{game['id']}/moves").json
    assert played["your_moves"]["version"] == played["version"]


def test_a_retried_create_with_the_same_key_makes_one_game(alice, redis_client):
    body = {"type": RP, "seats": 3, "bots": [2]}
    first = alice.post("/v1/games", body, headers={"Idempotency-Key": "table-1"})
    again = alice.post("/v1/games", body, headers={"Idempotency-Key": "table-1"})
    assert first.status_code == again.status_code == 201
    assert first.json["id"] == again.json["id"]
    assert alice.get("/v1/games?player=me").json["total"] == 1
    changed = alice.post("/v1/games", {**body, "seats": 4}, headers={"Idempotency-Key": "table-1"})
    assert changed.status_code == 422 and changed.json["code"] == "idempotency_key_reused"


def test_a_retried_join_with_the_same_key_takes_one_seat(alice, bob, carol):
    game = alice.create(seats=3)
    first = bob.post(f"/v1/games/{game['id']}/join", {}, headers={"Idempotency-Key": "j"})
    again = bob.post(f"/v1/games/{game['id']}/join", {}, headers={"Idempotency-Key": "j"})
    assert first.status_code == again.status_code == 200
    assert again.json["your_seats"] == first.json["your_seats"] == [1]
    assert carol.post(f"/v1/games/{game['id']}/join", {}).json["status"] == "active"


def test_a_game_of_rules_this_server_lacks_is_not_replayed_with_others(alice, bob, monkeypatch):
    """History stays true: a game is played only under the rules_version it was created with;
    if this server no longer has that version, its routes say so instead of re-executing it
    under different rules."""
    game = started_game(alice, bob)
    alice.play_first_move(game["id"])
    from games.registry import RULES, get_game

    version = get_game(RP).rules_version  # what the table was created with
    monkeypatch.setitem(RULES, RP, {"999": get_game(RP)})  # as if `version` were dropped
    from service import create_app

    config = alice.client.application.config
    fresh = Caller(create_app({"REDIS_URL": config["REDIS_URL"], "EVENTS_URL": config["EVENTS_URL"],
                               "DISPATCH": False}).test_client(), "dave")  # no cached table
    for path in ("", "/moves", "/state", "/state?version=3"):
        answer = fresh.get(f"/v1/games/{game['id']}{path}")
        assert answer.status_code == 409, (path, answer.json)
        assert answer.json["code"] == "rules_version_unavailable"
        assert f"version {version}," in answer.json["detail"]
