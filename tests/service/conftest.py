"""The Flask app on the test redis, with helpers to act as players."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service import create_app
from tests.responses import body_of

RP = "res-publica-2230ad"


@pytest.fixture()
def app(redis_url: str, redis_client: redis.Redis, events_url: str,
        tmp_path: Path) -> Iterator[Flask]:
    """The app; its event store on a cluster where a module says so (ON_BOTH_BACKENDS)."""
    yield create_app(
        {"REDIS_URL": redis_url, "EVENTS_URL": events_url, "DISPATCH": False,
         "RATELIMIT_PER_CALLER": "100000 per minute", "RATELIMIT_REGISTRATION": "100000 per minute",
         "KEYS_DIR": str(tmp_path / "keys"), "INBOUND_SECRET": "test-inbound-secret",
         "ARCHIVE_URL": str(tmp_path / "archive")}
    )


@pytest.fixture()
def client(app: Flask) -> FlaskClient:
    return app.test_client()


class Caller:
    """One registered player making requests."""

    def __init__(self, client: FlaskClient, name: str) -> None:
        self.client = client
        response = client.post("/v1/players", json={"name": name})
        assert response.status_code == 201, response.json
        self.id: str = body_of(response)["id"]
        self.headers = {"Authorization": f"Bearer {body_of(response)['api_key']}"}

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.client.get(path, headers={**self.headers, **kwargs.pop("headers", {})},
                               **kwargs)

    def post(self, path: str, json: Any = None, **kwargs: Any) -> Any:
        return self.client.post(path, json=json,
                                headers={**self.headers, **kwargs.pop("headers", {})}, **kwargs)

    def create(self, seats: int = 2, bots: list[int | dict[str, Any]] | None = None,
               **body: Any) -> Any:
        response = self.post("/v1/games", {"type": RP, "seats": seats, "bots": bots or [], **body})
        assert response.status_code == 201, response.json
        return response.json

    def play_first_move(self, game_id: str) -> Any:
        listed = self.get(f"/v1/games/{game_id}/moves").json
        move = listed["moves"][0]
        return self.post(f"/v1/games/{game_id}/moves",
                         {"expected_version": listed["version"], "seat": listed["seat"],
                          "moves": [{"id": move["id"]}]})


@pytest.fixture()
def alice(client: FlaskClient) -> Caller:
    return Caller(client, "alice")


@pytest.fixture()
def bob(client: FlaskClient) -> Caller:
    return Caller(client, "bob")


@pytest.fixture()
def carol(client: FlaskClient) -> Caller:
    return Caller(client, "carol")
