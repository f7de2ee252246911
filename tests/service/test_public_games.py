"""Browsers welcome (issue 15, point 4): public games are readable without an account, as a
spectator sees them; private ones are no game at all to anyone without a seat; another
origin may read what anyone may, and write nothing without a key; /docs is served from the
repository's own pinned assets."""

from __future__ import annotations

import re
from typing import Any

from flask.testing import FlaskClient

from service import create_app
from tests.service.conftest import Caller

ELSEWHERE = "https://elsewhere.example"
READ_ROUTES = ("", "/moves", "/events?after=0&limit=500", "/state", "/messages", "/record")


def started(alice: Caller, bob: Caller, **body: Any) -> str:
    game = alice.create(seats=2, **body)
    assert bob.post(f"/v1/games/{game['id']}/join", {}).status_code == 200
    return str(game["id"])


def test_anyone_reads_a_public_game_as_a_spectator_without_an_account(client, alice, bob,
                                                                     carol):
    game_id = started(alice, bob)
    alice.play_first_move(game_id)
    for route in READ_ROUTES:
        anonymous = client.get(f"/v1/games/{game_id}{route}")
        assert anonymous.status_code == 200, (route, anonymous.json)
        # What an account without a seat sees: the spectator's view, the same bytes but for
        # what names the caller (none of it is a seat's secret).
        spectator = carol.get(f"/v1/games/{game_id}{route}")
        assert anonymous.json == spectator.json, route
    game = client.get(f"/v1/games/{game_id}").json
    assert game["seat"] is None and game["your_seats"] == [] and game["public"] is True
    assert client.get(f"/v1/games/{game_id}/moves").json["moves"] == []
    assert game_id in [g["id"] for g in client.get("/v1/games").json["items"]]


def test_without_a_key_nothing_can_be_written(client, alice, bob):
    game_id = started(alice, bob)
    before = alice.get(f"/v1/games/{game_id}").json["version"]
    move = alice.get(f"/v1/games/{game_id}/moves").json["moves"][0]["id"]
    writes = [("/v1/games", {"type": "trajan", "seats": 2}),
              (f"/v1/games/{game_id}/join", {}),
              (f"/v1/games/{game_id}/moves", {"moves": [{"id": move}]}),
              (f"/v1/games/{game_id}/messages", {"text": "hi"}),
              (f"/v1/games/{game_id}/resign", {}),
              ("/v1/players/me/keys", None)]
    for path, body in writes:
        answer = client.post(path, json=body, headers={"Origin": ELSEWHERE})
        assert answer.status_code == 401, (path, answer.json)
        assert answer.headers["Access-Control-Allow-Origin"] == "*"  # the page reads why
    assert alice.get(f"/v1/games/{game_id}").json["version"] == before


def test_a_private_game_is_no_game_to_anyone_without_a_seat(client, alice, bob, carol):
    game_id = started(alice, bob, public=False)
    assert alice.get(f"/v1/games/{game_id}").json["public"] is False
    for route in READ_ROUTES:
        for who in (client, carol.client):
            headers = {} if who is client else carol.headers
            hidden = who.get(f"/v1/games/{game_id}{route}", headers=headers)
            missing = who.get(f"/v1/games/{'0' * 16}{route}", headers=headers)
            assert hidden.status_code == missing.status_code == 404, route
            assert hidden.json == {**missing.json, "detail": missing.json["detail"].replace(
                "0" * 16, game_id)}, route
        assert alice.get(f"/v1/games/{game_id}{route}").status_code == 200, route
    # Listed for its players only.
    assert game_id not in ids(client.get("/v1/games"))
    assert game_id not in ids(carol.get("/v1/games"))
    assert game_id not in ids(carol.get(f"/v1/games?player={alice.id}"))
    assert game_id in ids(alice.get("/v1/games?player=me"))
    assert game_id in ids(bob.get("/v1/players/me/games"))
    # Writing is no different (tests/service/test_private_tables.py).
    assert carol.post(f"/v1/games/{game_id}/messages", {"text": "hi"}).status_code == 404


def ids(response: Any) -> list[str]:
    assert response.status_code == 200, response.json
    return [item["id"] for item in response.json["items"]]


def test_another_origin_gets_cors_without_credentials(client, alice, bob):
    game_id = started(alice, bob)
    preflight = client.options(f"/v1/games/{game_id}/moves", headers={
        "Origin": ELSEWHERE, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, if-match"})
    assert preflight.status_code == 200
    assert preflight.headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in preflight.headers
    allowed = preflight.headers["Access-Control-Allow-Headers"].lower()
    assert {"authorization", "content-type", "if-match"} <= set(re.split(r",\s*", allowed))
    read = client.get(f"/v1/games/{game_id}", headers={"Origin": ELSEWHERE})
    assert read.status_code == 200 and read.headers["Access-Control-Allow-Origin"] == "*"
    exposed = read.headers["Access-Control-Expose-Headers"]
    assert "ETag" in exposed and "RateLimit" in exposed
    assert "Access-Control-Allow-Credentials" not in read.headers


def test_the_allowed_origins_are_configurable(redis_url: str, redis_client: Any,
                                             tmp_path: Any) -> None:
    app = create_app({"REDIS_URL": redis_url, "DISPATCH": False, "KEYS_DIR": str(tmp_path),
                      "CORS_ORIGINS_ALLOWED": "https://a.example, https://b.example"})
    client: FlaskClient = app.test_client()
    mine = client.get("/v1/game-types", headers={"Origin": "https://b.example"})
    assert mine.headers["Access-Control-Allow-Origin"] == "https://b.example"
    assert "Origin" in mine.headers["Vary"]
    other = client.get("/v1/game-types", headers={"Origin": ELSEWHERE})
    assert "Access-Control-Allow-Origin" not in other.headers


def test_the_api_reference_is_served_from_the_repositorys_own_files(client):
    page = client.get("/docs/")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert "/openapi.json" in html
    # Every asset from this server: no CDN, no other host.
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html), html
    assets = re.findall(r"""(?:src|href)=["']([^"']+)["']""", html)
    assert any(asset.endswith("swagger-ui-bundle.js") for asset in assets), assets
    for asset in assets:
        path = asset if asset.startswith("/") else f"/docs/{asset.removeprefix('./')}"
        assert client.get(path).status_code == 200, asset
    spec = client.get("/openapi.json")
    assert spec.status_code == 200 and spec.json["openapi"].startswith("3.1")
