"""openapi.yaml is generated from the code, committed, served, and the server keeps to it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import schemathesis
import yaml
from flask import Flask
from hypothesis import HealthCheck, assume, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.core.parameters import ParameterLocation

from service.middleware import json_body
from service.openapi.spec import spec_yaml
from tests.service.conftest import Caller

ROOT = Path(__file__).resolve().parents[2]


def test_committed_openapi_yaml_matches_the_code(app: Flask) -> None:
    committed = (ROOT / "openapi.yaml").read_text()
    assert committed == spec_yaml(app), "openapi.yaml is stale: run `make openapi` and commit it"


def test_the_spec_is_served(client) -> None:
    response = client.get("/openapi.yaml")
    assert response.status_code == 200
    document = yaml.safe_load(response.get_data(as_text=True))
    assert document["openapi"].startswith("3.1")
    assert "/v1/games/{game_id}/moves" in document["paths"]


@pytest.fixture()
def api_schema(app: Flask, client) -> object:
    # Schema-valid requests may still break a rule that no schema states (a 1-seat table,
    # a move that is not legal now): the API answers those with 409 or 422 problems.
    config = SchemathesisConfig.from_dict({"checks": {"positive_data_acceptance": {
        "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "422", "429"]}}})
    return schemathesis.openapi.from_wsgi("/openapi.yaml", app, config=config)


@pytest.fixture()
def auth_headers(client) -> dict[str, str]:
    return Caller(client, "schemathesis").headers


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much])
def test_api_conforms_to_its_spec(case, auth_headers) -> None:
    # The bounds the spec states in words (service.middleware.json_body) are not in the schemas:
    # such bodies are refused with 400, as tests/service/test_bad_input.py checks.
    assume(within_json_bounds(case.body))
    case.call_and_validate(headers=headers_for(case, auth_headers))


def within_json_bounds(body: Any) -> bool:
    if not isinstance(body, dict | list):
        return True
    try:
        json_body.loads(json.dumps(body))
    except (json_body.UnacceptableJson, ValueError):
        return False
    return True


def headers_for(case: Any, auth_headers: dict[str, str]) -> dict[str, str]:
    """Our API key, unless the case is about a missing or wrong header (a negative header
    component): adding the key would undo the very fault the case expects to be refused."""
    header = case.meta.components.get(ParameterLocation.HEADER) if case.meta else None
    if header is not None and header.mode.is_negative:
        return {}
    return auth_headers


def test_the_spec_names_what_each_route_answers_a_client_must_tell_apart(client) -> None:
    """Statuses and codes the server sends that the spec did not name (outside audit, with
    a generated client): each is declared where it can happen."""
    paths = yaml.safe_load(client.get("/openapi.yaml").data)["paths"]
    assert "403" in paths["/v1/games/{game_id}/state"]["get"]["responses"]
    assert "403" in paths["/v1/games/{game_id}/messages"]["post"]["responses"]
    assert "404" in paths["/v1/game-types/{game_type}/leaderboard"]["get"]["responses"]
    moves = paths["/v1/games/{game_id}/moves"]["post"]["responses"]["422"]["description"]
    assert "illegal_move" in moves and "reveals_hidden_information" in moves
    state = paths["/v1/games/{game_id}/state"]["get"]["responses"]["404"]["description"]
    assert "version_not_found" in state
