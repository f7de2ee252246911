"""Issue 16 point 1: "A readable table, one per game ... available to clients in the API".
`GET /v1/games/{id}/table` gives the sections each game's `describe` writes of the caller's
view, the same the turn emails show; every game, every seat and a spectator."""

from __future__ import annotations

import random

import pytest
from flask.testing import FlaskClient

from games.registry import GAMES
from games.text import Section, as_text
from tests.responses import body_of
from tests.service.conftest import Caller
from tests.service.test_records_api import finish
from tests.service.test_streams import move


@pytest.mark.parametrize("game_type", sorted(GAMES))
def test_each_seat_reads_its_own_table_and_a_spectator_the_public_one(
        client: FlaskClient, alice: Caller, bob: Caller, game_type: str) -> None:
    game = alice.create(type=game_type, seats=2)
    assert bob.post(f"/v1/games/{game['id']}/join", {}).json["status"] == "active"
    rng = random.Random(16)
    for _ in range(6):  # a few moves in: hands, boards and a log to describe
        move({0: alice, 1: bob}, game["id"], rng)
    for me, other, caller in (("alice", "bob", alice), ("bob", "alice", bob)):
        answer = caller.get(f"/v1/games/{game['id']}/table")
        assert answer.status_code == 200, answer.json
        body = answer.json
        titles = [part["title"] for part in body["sections"]]
        assert titles[0] == f"You ({me})" and other in titles, titles
        assert body["text"].startswith(f"You ({me})\n")
        assert answer.headers["ETag"] == f'"{body["version"]}"'
        assert body["prompt"] is None or "Seat " not in body["prompt"]
    spectator = client.get(f"/v1/games/{game['id']}/table")  # a public game: no key needed
    assert spectator.status_code == 200
    titles = [part["title"] for part in body_of(spectator)["sections"]]
    assert body_of(spectator)["seat"] is None
    assert "alice" in titles and "bob" in titles and not any(t.startswith("You") for t in titles)


def test_the_text_is_the_sections_and_hides_what_the_seat_may_not_see(
        client: FlaskClient, alice: Caller, bob: Caller) -> None:
    game = alice.create(type="res-publica-2230ad", seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    mine = alice.get(f"/v1/games/{game['id']}/table").json
    hand = next(line for line in mine["sections"][0]["lines"] if line.startswith("Hand"))
    assert hand.startswith("Hand (4): ")  # alice's own cards, by name
    bobs = bob.get(f"/v1/games/{game['id']}/table").json
    alice_as_bob_sees_her = next(part for part in bobs["sections"] if part["title"] == "alice")
    assert "Hand: 4 cards" in alice_as_bob_sees_her["lines"]
    assert mine["text"] == as_text([Section(p["title"], tuple(p["lines"]))
                                    for p in mine["sections"]])


def test_a_private_table_is_no_table_to_a_stranger(client: FlaskClient, alice: Caller,
                                                   carol: Caller) -> None:
    game = alice.create(seats=2, public=False)
    assert client.get(f"/v1/games/{game['id']}/table").status_code == 404
    assert carol.get(f"/v1/games/{game['id']}/table").status_code == 404
    assert alice.get(f"/v1/games/{game['id']}/table").status_code == 200


def test_a_past_version_reads_as_that_seat_saw_it_then(client: FlaskClient, alice: Caller,
                                                       bob: Caller) -> None:
    """Issue 19: the replay page reads `GET …/table?version=` as a seat saw the table then;
    before the end only one's own seat, once it has ended any seat, for anyone."""
    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    rng = random.Random(19)
    for _ in range(6):
        move({0: alice, 1: bob}, game["id"], rng)
    now = alice.get(f"/v1/games/{game['id']}/table").json
    then = alice.get(f"/v1/games/{game['id']}/table?version=4&seat=0")
    assert then.status_code == 200 and then.json["version"] == 4
    assert then.headers["ETag"] == '"4"' and then.json["sections"] != now["sections"]
    assert then.json["sections"][0]["title"] == "You (alice)"
    refused = alice.get(f"/v1/games/{game['id']}/table?version=4&seat=1")
    assert refused.status_code == 403 and refused.json["code"] == "not_seated"
    assert client.get(f"/v1/games/{game['id']}/table?seat=0").status_code == 403
    assert alice.get(f"/v1/games/{game['id']}/table?version=9999").status_code == 404

    finish(alice, bob, game["id"])
    for seat, name in ((0, "alice"), (1, "bob")):  # over: every view is public
        seen = client.get(f"/v1/games/{game['id']}/table?version=5&seat={seat}")
        assert seen.status_code == 200, seen.json
        assert body_of(seen)["seat"] == seat
        assert body_of(seen)["sections"][0]["title"] == f"You ({name})"
    assert client.get(f"/v1/games/{game['id']}/table?seat=7").status_code == 403
