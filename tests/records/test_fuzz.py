"""verify_record on anything: a report, never an exception; a changed record never passes."""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from events.domain.envelope import canonical_json
from events.records.verify import Report, verify_record
from tests.records.helpers import GAME_TYPES, finished_record

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=20)
    | st.floats(allow_nan=False),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=20,
)
FIELD_NAMES = st.sampled_from(["format", "game", "seed_commitment", "complete", "redacted_for",
                               "note", "events", "seed", "scores", "signature", "v", "type",
                               "at", "by", "data", "prev", "hash", "seat", "move", "id",
                               "facts", "text", "to", "seats", "options"])
# MEEPLE_FUZZ_EXAMPLES=2000 for a longer hunt than the test suite's.
FUZZ = settings(max_examples=int(os.environ.get("MEEPLE_FUZZ_EXAMPLES", "60")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


def sound(report: Report) -> None:
    """A report, not a crash: every problem placed and the verifier never gave up."""
    assert not report.ok
    assert report.problems and report.first is report.problems[0]
    assert "internal" not in {problem.check for problem in report.problems}, report.problems
    json.dumps(report.to_json())  # the report itself is JSON


@FUZZ
@given(JSON)
def test_any_json_value_gets_a_report(value: Any) -> None:
    sound(verify_record(value))


@FUZZ
@given(st.fixed_dictionaries({"format": st.just("meeple-record/1")},
                             optional={name: JSON for name in ["game", "seed_commitment",
                                       "complete", "redacted_for", "events", "seed",
                                       "scores", "signature"]}))
def test_a_record_shaped_value_gets_a_report(value: dict[str, Any]) -> None:
    sound(verify_record(value))


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (a sample of the events, for speed)."""
    places = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            places += _paths(item, (*path, key))
    elif isinstance(value, list):
        indexes = range(len(value)) if len(value) < 20 else [0, 1, 2, 3, 4, 5, len(value) // 2,
                                                              len(value) - 2, len(value) - 1]
        for index in indexes:
            places += _paths(value[index], (*path, index))
    return places


RECORDS = {game_type: finished_record(game_type) for game_type in GAME_TYPES}
PLACES = {game_type: _paths(record)[1:] for game_type, record in RECORDS.items()}


def _replace(record: Any, path: tuple[Any, ...], new: Any) -> Any:
    parent = record
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = new
    return record


@FUZZ
@given(st.sampled_from(GAME_TYPES), st.data(), JSON | FIELD_NAMES)
def test_any_value_replaced_anywhere_fails_verification(game_type: str, data: st.DataObject,
                                                         new: Any) -> None:
    path = data.draw(st.sampled_from(PLACES[game_type]))
    record = finished_record(game_type)
    before = record
    for key in path:
        before = before[key]
    assume(json.dumps(before, sort_keys=True) != json.dumps(new, sort_keys=True))

    sound(verify_record(_replace(record, path, new)))


@FUZZ
@given(st.sampled_from(GAME_TYPES), st.data())
def test_flipping_any_byte_of_the_record_text_is_caught(game_type: str,
                                                         data: st.DataObject) -> None:
    text = bytearray(canonical_json(RECORDS[game_type]))
    index = data.draw(st.integers(0, len(text) - 1))
    new = data.draw(st.integers(0, 255).filter(lambda b: b != text[index]))
    text[index] = new

    try:
        record = json.loads(bytes(text))
    except ValueError:  # no longer JSON (or no longer UTF-8): nothing to verify
        return
    sound(verify_record(record))


@FUZZ
@given(st.sampled_from(GAME_TYPES), st.data())
def test_removing_any_field_is_caught(game_type: str, data: st.DataObject) -> None:
    path = data.draw(st.sampled_from([p for p in PLACES[game_type] if isinstance(p[-1], str)]))
    record = finished_record(game_type)
    parent = record
    for key in path[:-1]:
        parent = parent[key]
    del parent[path[-1]]

    sound(verify_record(record))
