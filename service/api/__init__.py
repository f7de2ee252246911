"""One blueprint per resource, all made with `Blueprint` from here."""

from __future__ import annotations

import flask_smorest
from webargs.flaskparser import FlaskParser


class StrictParser(FlaskParser):
    """Unknown query parameters are rejected like unknown body fields (the schemas say RAISE)."""

    DEFAULT_UNKNOWN_BY_LOCATION = {**FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION, "query": None}


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]
    ARGUMENTS_PARSER = StrictParser()
