"""One blueprint per resource, all made with `Blueprint` from here."""

from __future__ import annotations

from typing import Any

import flask_smorest
import marshmallow as ma
from webargs.flaskparser import FlaskParser


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


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]
    ARGUMENTS_PARSER = StrictParser()
