"""One blueprint per resource, all made with `Blueprint` from here."""

from __future__ import annotations

from typing import Any

import flask
import flask_smorest
import marshmallow as ma
from flask import request
from webargs import core
from webargs.flaskparser import FlaskParser, abort, is_json_request

from service.middleware import json_body


class StrictParser(FlaskParser):
    """Unknown query parameters are rejected like unknown body fields (the schemas say RAISE)."""

    DEFAULT_UNKNOWN_BY_LOCATION = {**FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION, "query": None}

    def __init__(self) -> None:
        super().__init__()
        self._schemas: dict[type[ma.Schema], ma.Schema] = {}

    def _get_schema(self, argmap: Any, req: Any) -> ma.Schema:
        # webargs builds a new instance of a schema class on every request; loading never
        # changes a schema, so one instance per class serves every request and thread.
        if isinstance(argmap, type) and issubclass(argmap, ma.Schema):
            if argmap not in self._schemas:
                self._schemas[argmap] = argmap()
            return self._schemas[argmap]
        return super()._get_schema(argmap, req)

    def _raw_load_json(self, req: flask.Request) -> Any:
        # The bounded parser of service.middleware.json_body, not the standard library's.
        if not is_json_request(req):
            if req.get_data(cache=True):
                # A body we cannot read as JSON: say so, not "missing data" for its fields.
                sent = f"not {req.mimetype}" if req.mimetype else "this one has no Content-Type"
                abort(415, message=f"send the body as JSON (Content-Type: application/json); "
                                   f"{sent}")
            return core.missing
        try:
            return json_body.loads(req.get_data(cache=True))
        except json_body.UnacceptableJson as err:
            abort(400, messages={"json": [str(err)]})


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]
    ARGUMENTS_PARSER = StrictParser()

    def route(self, rule: str, **options: Any) -> Any:
        """A route whose operationId is its function's name (`play_moves`): what a client
        generated from the spec calls it."""
        register = super().route(rule, **options)

        def decorator(func: Any) -> Any:
            if "operationId" not in getattr(func, "_apidoc", {}).get("manual_doc", {}):
                func = self.doc(operationId=func.__name__)(func)
            return register(func)

        return decorator


def declares_query(view: Any) -> bool:
    """Whether a route reads query parameters (a query schema of its own)."""
    parameters = getattr(view, "_apidoc", {}).get("arguments", {}).get("parameters", [])
    return any(parameter.get("in") == "query" for parameter in parameters)


def refuse_undeclared_query() -> None:
    """A route of the API without a query schema refuses every query parameter, as those
    with one refuse the parameters it does not name (StrictParser): a misspelt `?limt=5` is
    an error, never silently ignored."""
    if not request.args or not request.path.startswith("/v1/") or request.method == "OPTIONS":
        return
    view = flask.current_app.view_functions.get(request.endpoint or "")
    if view is not None and not declares_query(view):
        abort(422, messages={"query": {name: ["Unknown field."] for name in request.args}})


def refuse_repeated_query() -> None:
    """Each query parameter of the API takes one value: `?status=open&status=zzz` is an
    error, not a first value taken and the others ignored."""
    if not request.path.startswith("/v1/"):
        return
    repeated = {name: ["Given more than once."] for name in request.args
                if len(request.args.getlist(name)) > 1}
    if repeated:
        abort(422, messages={"query": repeated})


def init_app(app: flask.Flask) -> None:
    app.before_request(refuse_undeclared_query)
    app.before_request(refuse_repeated_query)
