"""Caches cannot mix viewers: a seat's answer is private to its caller, and varies by key."""

from __future__ import annotations

from tests.service.conftest import Caller


def test_a_seats_view_is_private_and_varies_by_authorization(alice: Caller, bob: Caller):
    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    for caller in (alice, bob):
        for path in (f"/v1/games/{game['id']}", f"/v1/games/{game['id']}/moves",
                     f"/v1/games/{game['id']}/events", "/v1/players/me"):
            response = caller.get(path)
            assert response.status_code == 200, path
            assert response.headers["Cache-Control"] == "private, no-cache", path
            assert "Authorization" in response.headers["Vary"], path


def test_refusals_vary_by_authorization_too(client):
    response = client.get("/v1/players/me")
    assert response.status_code == 401
    assert "Authorization" in response.headers["Vary"]


def test_a_weak_if_none_match_tag_matches(alice: Caller):
    game = alice.create(seats=2)
    tag = alice.get(f"/v1/games/{game['id']}").headers["ETag"]
    assert alice.get(f"/v1/games/{game['id']}",
                     headers={"If-None-Match": tag}).status_code == 304
    assert alice.get(f"/v1/games/{game['id']}",
                     headers={"If-None-Match": f"W/{tag}"}).status_code == 304
    assert alice.get(f"/v1/games/{game['id']}",
                     headers={"If-None-Match": 'W/"999"'}).status_code == 200
