"""The OpenAPI document, generated from the marshmallow schemas by flask-smorest."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask_smorest import Api

from service.errors import PROBLEM
from service.schemas import Problem

DESCRIPTION = """\
Meeple hosts turn-based board games with hidden information. Register with
`POST /v1/players` to get an API key, then send it as `Authorization: Bearer KEY`.
Errors are `application/problem+json` with a stable `code`.

Every JSON body is refused with `400 bad_request`, whatever its schema allows, when it
nests deeper than 32 levels, holds an integer of more than 20 digits, NaN or Infinity, or
a string with a lone UTF-16 surrogate. Bodies are at most 64 KB (`413`); a record sent to
`/v1/records/verify` or `/v1/records` at most 4 MB with an API key, 1 MB without, and at
most 200,000 JSON objects and arrays.
An id that cannot be a game id (1 to 64 letters, digits, `_` or `-`) names no game: `404`.
"""


class MeepleApi(Api):  # type: ignore[misc]
    """flask-smorest's Api, with problem+json as the documented error body."""

    ERROR_SCHEMA = Problem
    DEFAULT_RESPONSE_CONTENT_TYPE: str

    def _register_responses(self) -> None:
        saved = self.DEFAULT_RESPONSE_CONTENT_TYPE
        self.DEFAULT_RESPONSE_CONTENT_TYPE = PROBLEM
        try:
            super()._register_responses()
        finally:
            self.DEFAULT_RESPONSE_CONTENT_TYPE = saved

    def _register_error_handlers(self) -> None:
        return None  # service.errors handles every error


def init_app(app: Flask) -> MeepleApi:
    app.config.update(
        API_TITLE="Meeple",
        API_VERSION="1.0.0",
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX=None,  # /openapi.yaml is served by service.api.system
        API_SPEC_OPTIONS={
            "info": {"description": DESCRIPTION},
            "components": {
                "securitySchemes": {
                    "bearerAuth": {"type": "http", "scheme": "bearer", "bearerFormat": "API key"}
                }
            },
        },
    )
    api = MeepleApi(app)
    app.extensions["meeple_api"] = api
    return api


def spec_yaml(app: Flask) -> str:
    api: MeepleApi = app.extensions["meeple_api"]
    text: str = api.spec.to_yaml()
    return text


def spec_dict(app: Flask) -> dict[str, Any]:
    api: MeepleApi = app.extensions["meeple_api"]
    data: dict[str, Any] = api.spec.to_dict()
    return data
