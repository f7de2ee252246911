"""Bot levels at POST /v1/games (issue 17): "A table chooses per bot seat (extend `bots` at
`POST /v1/games` compatibly: `[2]` still means a random bot); the game shows each bot's
level; the leaderboard lists bots by level. A deadline that gives a seat to a bot uses a
table-chosen level (default `greedy`)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.conftest import RP, Caller


def seats_of(game: dict[str, Any]) -> list[tuple[int, str, bool, str | None]]:
    return [(s["seat"], s["player_id"], s["bot"], s["level"]) for s in game["seats"]]


def test_a_bare_seat_number_is_still_a_random_bot(alice: Caller) -> None:
    game = alice.create(3, bots=[2])
    shown = alice.get(f"/v1/games/{game['id']}").json
    assert seats_of(shown) == [(0, alice.id, False, None), (2, "bot:random", True, "random")]


def test_each_bot_seat_has_the_level_its_table_chose(alice: Caller) -> None:
    game = alice.create(4, bots=[1, {"seat": 2, "level": "greedy"},
                                 {"seat": 3, "level": "ismcts"}])
    shown = alice.get(f"/v1/games/{game['id']}").json
    assert seats_of(shown) == [
        (0, alice.id, False, None), (1, "bot:random", True, "random"),
        (2, "bot:greedy", True, "greedy"), (3, "bot:ismcts-200ms", True, "ismcts-200ms")]
    listed = alice.get("/v1/games", query_string={"type": RP}).json
    assert any(seats_of(item) == seats_of(shown) for item in listed["items"])


@pytest.mark.parametrize(("bots", "says"), [
    ([{"seat": 1, "level": "grandmaster"}], "level"),
    ([{"seat": 1, "level": "ismcts-9ms"}], "out of range"),
    ([{"seat": 1, "level": "ismcts-5001ms"}], "out of range"),
    ([{"seat": 1, "level": "ismcts-20001it"}], "out of range"),
    ([{"seat": 1, "level": "greedy"}, {"seat": 1, "level": "random"}], "two bot levels"),
    ([{"seat": 7}], "between 0 and 1"),
    ([{"level": "greedy"}], "seat"),
    ([{"seat": 1, "level": "greedy", "think": "hard"}], "think"),
    (["greedy"], "seat number"),
    ([True], "seat number"),
])
def test_a_bad_bot_seat_is_a_422_that_says_why(alice: Caller, bots: list[Any],
                                               says: str) -> None:
    answer = alice.post("/v1/games", {"type": RP, "seats": 2, "bots": bots})
    assert answer.status_code == 422, answer.json
    assert says in str(answer.json), answer.json
    assert alice.get("/v1/games", query_string={"player": "me"}).json["items"] == []


def test_a_retry_with_the_same_key_finds_the_game_and_another_level_is_refused(
        alice: Caller) -> None:
    body = {"type": RP, "seats": 2, "bots": [{"seat": 1, "level": "greedy"}]}
    key = {"Idempotency-Key": "bots-1"}
    first = alice.post("/v1/games", body, headers=key)
    again = alice.post("/v1/games", body, headers=key)
    assert first.status_code == 201 and again.status_code in (200, 201)
    assert again.json["id"] == first.json["id"]
    other = alice.post("/v1/games", {**body, "bots": [{"seat": 1, "level": "random"}]},
                       headers=key)
    assert other.status_code == 422 and other.json["code"] == "idempotency_key_reused"


def test_the_deadline_names_its_stand_in_bot(alice: Caller) -> None:
    game = alice.create(2, deadline={"hours": 24, "on_expiry": "bot", "bot": "ismcts-300it"})
    shown = alice.get(f"/v1/games/{game['id']}").json
    assert shown["deadline"] == {"seconds": 86400, "on_expiry": "bot", "bot": "ismcts-300it"}
    refused = alice.post("/v1/games", {"type": RP, "seats": 2, "deadline": {
        "hours": 24, "on_expiry": "bot", "bot": "clever"}})
    assert refused.status_code == 422, refused.json


def test_the_leaderboard_says_which_rows_are_bots(alice: Caller, app: Any) -> None:
    from events.readmodels.ratings import Ratings
    from service.middleware.auth import meeple

    with app.app_context():
        Ratings(meeple().redis).apply(RP, [
            {"player_id": "bot:greedy", "after": {"mu": 30.0, "sigma": 2.0}},
            {"player_id": alice.id, "after": {"mu": 25.0, "sigma": 2.0}}])
    rows = alice.get(f"/v1/game-types/{RP}/leaderboard").json["rows"]
    assert [(r["player_id"], r["bot"], r["level"]) for r in rows] == [
        ("bot:greedy", True, "greedy"), (alice.id, False, None)]
