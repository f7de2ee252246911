"""Hostile request bodies on every route that takes one: JSON nested deep, odd Unicode (lone
surrogates, controls, line separators, right-to-left overrides), huge numbers, NaN, and
whatever hypothesis makes of them. Whatever is sent, the answer is never a 5xx: a 4xx is a
problem+json with a code, and a refused body writes nothing. (Schemathesis, in
tests/service/test_openapi.py, sends what the schemas describe; this sends what they do not.)
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.responses import body_of
from tests.service.conftest import Caller

ODD_TEXT = st.text(alphabet=st.sampled_from(
    ["a", "é", "鈴", "\x00", "\r", "\n", "\u2028", "\u202e", "\ufeff", "\ud800", "\udfff",
     "{", "\"", "\\"]), max_size=20)
SCALARS = st.one_of(st.none(), st.booleans(), ODD_TEXT,
                    st.integers(min_value=-(10**60), max_value=10**60),
                    st.floats(allow_nan=True, allow_infinity=True),
                    st.integers(min_value=1, max_value=3000).map(lambda n: int("9" * n)))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(ODD_TEXT, inner, max_size=4)), max_leaves=12)


@st.composite
def bodies(draw: Any) -> bytes:
    """A body as raw bytes: a JSON-ish value, perhaps wrapped many levels deep, perhaps
    with keys the route knows, perhaps not even UTF-8."""
    value = draw(VALUES)
    if draw(st.booleans()):
        known = draw(st.dictionaries(st.sampled_from(
            ["type", "seats", "bots", "options", "moves", "expected_version", "seat", "text",
             "name", "email", "notify", "digest", "webhook_url", "join", "deadline",
             "events", "format", "game", "code"]), VALUES, max_size=4))
        value = {**known, **(value if isinstance(value, dict) else {})}
    text = json.dumps(value, ensure_ascii=draw(st.booleans()))
    # Written as text, not built and dumped: deeper than the recursion limit and longer than
    # Python's int conversion limit (4,300 digits), which dumping here could not make.
    digits = draw(st.sampled_from([0, 0, 0, 25, 4400, 5000]))
    if digits:
        text = f'{{"seats": {"9" * digits}, "x": {text}}}'
    depth = draw(st.sampled_from([0, 0, 1, 40, 1200, 5000]))
    text = "[" * depth + text + "]" * depth
    if draw(st.integers(0, 9)) == 0:
        return text.encode("utf-8", "surrogatepass") + b"\xff\xfe"
    return text.encode("utf-8", "surrogatepass")


def routes(game_id: str) -> list[tuple[str, str]]:
    return [("POST", "/v1/players"), ("PATCH", "/v1/players/me"), ("POST", "/v1/games"),
            ("POST", f"/v1/games/{game_id}/join"), ("POST", f"/v1/games/{game_id}/moves"),
            ("POST", f"/v1/games/{game_id}/messages"), ("POST", f"/v1/games/{game_id}/resign"),
            ("POST", "/v1/records/verify"), ("POST", "/v1/records")]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=bodies())
def test_no_body_gets_a_5xx(app, alice: Caller, bob: Caller, body: bytes) -> None:
    game = alice.create(seats=3) if not hasattr(app, "_fuzz_game") else app._fuzz_game
    app._fuzz_game = game
    if not any(s["player_id"] == bob.id for s in game["seats"]):
        bob.post(f"/v1/games/{game['id']}/join", {})
        game["seats"].append({"player_id": bob.id})
    store = app.extensions["meeple"].store
    for method, path in routes(game["id"]):
        before = store.version(game["id"])
        response = alice.client.open(path, method=method, data=body, headers={
            **alice.headers, "Content-Type": "application/json"})
        assert response.status_code < 500, (method, path, response.get_data(as_text=True))
        if response.status_code >= 400:
            assert response.content_type == "application/problem+json", (method, path)
            assert body_of(response)["code"]
            assert store.version(game["id"]) == before, (method, path)  # nothing written


def test_the_fuzzer_reaches_the_bounds() -> None:
    """The strategy does send what the parser must refuse (else the test above proves
    little): deep nesting, lone surrogates, huge integers, non-UTF-8."""
    seen = {"deep": False, "deeper than Python": False, "surrogate": False, "huge": False,
            "not utf-8": False}

    @settings(max_examples=300, deadline=None)
    @given(body=bodies())
    def look(body: bytes) -> None:
        seen["deep"] |= body.startswith(b"[" * 40)
        seen["surrogate"] |= b"\\ud8" in body or b"\xed\xa0" in body
        seen["huge"] |= b"9" * 4400 in body
        seen["deeper than Python"] |= body.startswith(b"[" * 1200)
        seen["not utf-8"] |= body.endswith(b"\xff\xfe")

    look()
    assert all(seen.values()), seen
