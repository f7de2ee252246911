"""The OpenAPI document, generated from the marshmallow schemas by flask-smorest."""

from __future__ import annotations

import json
from typing import Any

from apispec import BasePlugin
from flask import Flask
from flask_smorest import Api

from games.registry import GAMES
from games.schemas import move_schema, view_schema
from service.middleware.errors import PROBLEM
from service.openapi import shapes
from service.openapi.schemas import Problem

DESCRIPTION = """\
Meeple hosts turn-based board games with hidden information. Register with
`POST /v1/players` to get an API key, then send it as `Authorization: Bearer KEY`.
Errors are `application/problem+json` with a stable `code`.

Every JSON body is refused with `400 bad_request`, whatever its schema allows, when it
nests deeper than 32 levels, holds an integer of more than 20 digits, NaN or Infinity, or
a string with a lone UTF-16 surrogate. Bodies are at most 64 KB (`413`, sent with a
Content-Length or chunked alike); a record sent to
`/v1/records/verify` or `/v1/records` at most 4 MB with an API key, 1 MB without, and at
most 200,000 JSON objects and arrays.
An id that cannot be a game id (1 to 64 letters, digits, `_` or `-`) names no game: `404`.

Fields are held to the JSON type the schema names: an `integer` is written without a
fraction or exponent (`2`, not `2.0` or `"2"`) and a `boolean` is `true` or `false` (not
`1` or `"yes"`); anything else is `422`. A game's own limits (its seat counts, its
options) are checked after the schema: `422 invalid_options`.
"""


# Headers that several answers carry, as components the responses refer to.
HEADERS: dict[str, dict[str, Any]] = {
    "ETag": {"description": "The game's version as a strong entity tag, e.g. \"12\"",
             "schema": {"type": "string"}},
    "Location": {"description": "Where the new game is", "schema": {"type": "string"}},
    "WWW-Authenticate": {"description": 'Bearer realm="meeple"', "schema": {"type": "string"}},
    "Cache-Control": {"description": "`private, no-cache` on an answer to a caller with a "
                                     "key: it is theirs alone; keep it and revalidate",
                      "schema": {"type": "string"}},
    "Vary": {"description": "Authorization (and Origin): answers differ by who asks",
             "schema": {"type": "string"}},
    "Retry-After": {"description": "Seconds to wait before trying again",
                    "schema": {"type": "integer", "minimum": 1}},
    "RateLimit": {"description": 'Where you stand in the limit nearest to running out, as the '
                                 'IETF draft: `"all";r=42;t=17` (42 requests left, the window '
                                 'resets in 17 s)', "schema": {"type": "string"}},
    "RateLimit-Policy": {"description": 'Each limit this request counted against, as the IETF '
                                        'draft: `"all";q=300;w=60` (300 requests a 60 s window, '
                                        'every route together)', "schema": {"type": "string"}},
}
LIMIT_HEADERS = {"RateLimit": {"$ref": "#/components/headers/RateLimit"},
                 "RateLimit-Policy": {"$ref": "#/components/headers/RateLimit-Policy"}}
RETRY_AFTER = {"Retry-After": {"$ref": "#/components/headers/Retry-After"}}
CACHE_HEADERS = {name: {"$ref": f"#/components/headers/{name}"}
                 for name in ("Cache-Control", "Vary")}
UNLIMITED_PATHS = ("/healthz", "/openapi.json")


def _problem(description: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    answer: dict[str, Any] = {"description": description, "content": {
        PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}}}
    if headers:
        answer["headers"] = headers
    return answer


# What some routes answer beyond their statuses' usual meaning, with the problem's `code`,
# so that a client (generated or not) can tell the cases apart.
ROUTE_CODES = {
    "play_moves": {"422": (
        "A move that is not legal now (`illegal_move`), a batch that goes on after a move "
        "that reveals something new (`reveals_hidden_information`), both with `move_index`; "
        "or a body that breaks the schema (`invalid_request`, with `errors`)")},
    "create_game": {"422": (
        "Options or seats this game does not take (`invalid_options`), an Idempotency-Key "
        "used before for another body (`idempotency_key_reused`), or a body that breaks the "
        "schema (`invalid_request`, with `errors`)"),
        "404": "No such game type (`unknown_game_type`)"},
    "import_record": {
        "422": "The record does not verify, is not complete, or is not signed by a key this "
               "server trusts (`record_invalid`, with the verifier's `report`)",
        "409": "The game id holds another game (`game_exists`), or you imported as many "
               "records today as one may (`quota_exceeded`)"},
    "game_state": {"404": (
        "No such game (`game_not_found`, or a private one you have no seat at), or no such "
        "version of it (`version_not_found`)")},
}


class CommonResponses(BasePlugin):  # type: ignore[misc]
    """The answers every route may give that no route declares itself: rate limits (429, and
    the RateLimit headers on every answer), the store being down (503), and for bodies: bad
    JSON (400), too large (413), not JSON (415)."""

    def operation_helper(self, path: str | None = None,
                         operations: dict[str, Any] | None = None, **_: Any) -> None:
        for method, operation in (operations or {}).items():
            # A route's own answers (`alt_response`) have int keys: the same status as a
            # string here would stand beside it, and win in the document.
            responses = {str(status): answer
                         for status, answer in operation.get("responses", {}).items()}
            operation["responses"] = responses
            limited = path not in UNLIMITED_PATHS
            for status, answer in responses.items():
                if str(status).startswith(("2", "3")) and isinstance(answer, dict):
                    headers = answer.setdefault("headers", {})
                    headers.update(CACHE_HEADERS)
                    if limited:
                        headers.update(LIMIT_HEADERS)
            if limited:
                responses.setdefault("429", _problem(
                    "Too many requests (`rate_limited`): wait Retry-After seconds",
                    {**RETRY_AFTER, **LIMIT_HEADERS}))
            responses.setdefault("503", _problem(
                "The game store is unavailable (`store_unavailable`, with `outcome`), a "
                "write is not yet on enough replicas (`not_replicated`, outcome `unknown`), "
                "or the archive of finished games cannot be read (`archive_unavailable`): "
                "retry after Retry-After seconds, a write with the same Idempotency-Key",
                RETRY_AFTER))
            if operation.get("security"):
                responses.setdefault("401", _problem(
                    "No API key, or not one of ours (`unauthorized`)",
                    {"WWW-Authenticate": {"$ref": "#/components/headers/WWW-Authenticate"}}))
            if (path or "").startswith("/v1/") and not any(str(k) == "422" for k in responses):
                # service.api.refuse_undeclared_query: a route without query parameters
                # refuses any.
                responses["422"] = _problem(
                    "A query parameter this route does not take (`invalid_request`, with "
                    "`errors`)")
            if "{game_id}" in (path or ""):
                responses.setdefault("404", _problem(
                    "No such game (`game_not_found`), or a private one you have no seat at"))
            if "{game_type}" in (path or ""):
                responses.setdefault("404", _problem("No such game type (`unknown_game_type`)"))
            if any(isinstance(p, dict) and p.get("name") == "seat" and p.get("in") == "query"
                   for p in operation.get("parameters", [])):
                responses.setdefault("403", _problem(
                    "`?seat=` names a seat that is not yours (`not_seated`)"))
            for status, description in ROUTE_CODES.get(operation.get("operationId", ""),
                                                       {}).items():
                responses[status] = _problem(description)
            if "requestBody" in operation or method in ("post", "patch"):
                responses.setdefault("400", _problem(
                    "The body is not acceptable JSON (`bad_request`), or a header is wrong"))
                responses.setdefault("413", _problem("The body is too large (`too_large`)"))
                responses.setdefault("415", _problem(
                    "The body is not JSON (`unsupported_media_type`)"))


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
        return None  # service.middleware.errors handles every error


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
    api = MeepleApi(app, spec_kwargs={"extra_plugins": [CommonResponses()]})
    for name, header in HEADERS.items():
        api.spec.components.header(name, header)
    api.ma_plugin.converter.add_attribute_function(documented_shape)
    for name, schema in shapes.components().items():
        api.spec.components.schema(name, schema=schema)
    api.spec.components.schema("Envelope", component=shapes.ENVELOPE)
    for game_id in sorted(GAMES):
        for name, component in game_components(game_id).items():
            api.spec.components.schema(name, component=component)
    app.extensions["meeple_api"] = api
    return api


def component_prefix(game_id: str) -> str:
    """"trappist-one" -> "TrappistOne": the prefix of a game's components."""
    return "".join(part.capitalize() for part in game_id.replace("-", " ").split())


def game_components(game_id: str) -> dict[str, dict[str, Any]]:
    """A game's view and move JSON Schemas (games/<game>/schema.json) as spec components:
    `<Game>View`, `<Game>Move` and each of their `$defs` as `<Game><Def>`, with the
    references rewritten to point at the components (in a spec, `#` is the spec itself)."""
    prefix = component_prefix(game_id)
    named = {f"{prefix}View": view_schema(game_id), f"{prefix}Move": move_schema(game_id)}
    hoisted: dict[str, dict[str, Any]] = {}
    for name, schema in named.items():
        for def_name, definition in schema.pop("$defs", {}).items():
            hoisted[prefix + def_name[:1].upper() + def_name[1:]] = definition
        schema.pop("$schema", None)
        hoisted[name] = schema
    return {name: _rewrite_refs(schema, prefix) for name, schema in hoisted.items()}


def _rewrite_refs(value: Any, prefix: str) -> Any:
    if isinstance(value, dict):
        ref = value.get("$ref")
        out = {key: _rewrite_refs(item, prefix) for key, item in value.items()}
        if out.get("items") is False and "prefixItems" in out:
            # The same tuple; apispec would take `items: false` for the name of a schema.
            del out["items"]
            out["maxItems"] = len(out["prefixItems"])
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            out["$ref"] = f"#/components/schemas/{prefix}{name[:1].upper()}{name[1:]}"
        return out
    if isinstance(value, list):
        return [_rewrite_refs(item, prefix) for item in value]
    return value


def documented_shape(converter: Any, field: Any, ret: dict[str, Any], **kwargs: Any
                     ) -> dict[str, Any]:
    """A field whose metadata says `openapi`: that is its whole description in the spec
    (service.openapi.shapes: values passed through as they are, documented by a component)."""
    shape = field.metadata.get("openapi")
    if shape is None:
        return {}
    description = ret.get("description")
    ret.clear()
    return {**shape, **({"description": description} if description else {})}


def spec_yaml(app: Flask) -> str:
    api: MeepleApi = app.extensions["meeple_api"]
    text: str = api.spec.to_yaml()
    return text


def spec_json(app: Flask) -> str:
    return json.dumps(spec_dict(app), indent=1)


def spec_dict(app: Flask) -> dict[str, Any]:
    api: MeepleApi = app.extensions["meeple_api"]
    data: dict[str, Any] = api.spec.to_dict()
    return data
