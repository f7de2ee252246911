"""Bodies sent chunked (no Content-Length) through a real gunicorn are held to the same
limits as the others: 64 KB in general (413, never cut at the limit and parsed), a route's own
limit where it has one (records). service.middleware.request_bodies."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

from tests.e2e.conftest import Http, register

GAME = b'{"type": "trajan", "seats": 2}'


def post_chunked(base: str, path: str, parts: Iterator[bytes], api_key: str | None
                 ) -> tuple[int, Any]:
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    try:
        conn.request("POST", path, body=parts, headers=headers, encode_chunked=True)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        conn.close()


def padded(head: bytes, pad_bytes: int) -> Iterator[bytes]:
    yield head
    for _ in range(pad_bytes // 10_000):
        yield b" " * 10_000


def my_open_tables(client: Http) -> int:
    status, page, _ = client.call("GET", "/v1/games?player=me&status=open")
    assert status == 200, page
    return int(page["total"])


def test_a_chunked_body_over_the_limit_is_refused_whole(live_server: str) -> None:
    bob = register(live_server, "bob")
    status, body = post_chunked(live_server, "/v1/games", padded(GAME, 2_000_000),
                                bob.api_key)
    assert status == 413 and body["code"] == "too_large", body
    big = b'{"type": "trajan", "seats": 2, "options": {"x": "' + b"y" * 70_000 + b'"}}'
    status, body = post_chunked(live_server, "/v1/games", iter([big]), bob.api_key)
    assert status == 413 and body["code"] == "too_large", body
    assert my_open_tables(bob) == 0  # nothing was made of either


def test_a_chunked_body_within_the_limit_is_taken(live_server: str) -> None:
    bob = register(live_server, "bob")
    status, body = post_chunked(live_server, "/v1/games", padded(GAME, 60_000), bob.api_key)
    assert status == 201, body
    assert my_open_tables(bob) == 1


def test_a_route_with_a_larger_limit_keeps_it_when_chunked(live_server: str) -> None:
    bob = register(live_server, "bob")
    record = b'{"format": "x", "pad": "' + b"y" * 200_000 + b'"}'
    status, body = post_chunked(live_server, "/v1/records/verify", iter([record]),
                                bob.api_key)
    assert status not in (413, 500), body
