"""Health and the API description."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, current_app

from service.api import Blueprint
from service.middleware.auth import meeple
from service.openapi.schemas import Health
from service.openapi.spec import spec_json, spec_yaml

blp = Blueprint("system", __name__, description="Health and the API description")


@blp.route("/healthz")
@blp.response(200, Health)
def healthz() -> dict[str, Any]:
    """Liveness, whether Redis answers and whether the server can sign records."""
    try:
        redis_ok = bool(meeple().redis.ping())
    except Exception:  # any Redis failure means "not healthy", never a 500
        redis_ok = False
    keys_ok = current_app.extensions["meeple_keys"].usable()
    return {"status": "ok" if redis_ok and keys_ok else "degraded", "redis": redis_ok,
            "keys": keys_ok}


@blp.route("/openapi.json")
@blp.doc(responses={"200": {"description": "This API's OpenAPI document, as JSON",
                            "content": {"application/json": {"schema": {"type": "object"}}}}})
def openapi_json() -> Response:
    """This document, as JSON (also as YAML at /openapi.yaml)."""
    return Response(spec_json(current_app), mimetype="application/json")


def openapi_yaml() -> Response:
    """The same document as YAML. Not a route of the spec: OpenAPI generators cannot read
    application/yaml, and a route they cannot read is one they warn about."""
    return Response(spec_yaml(current_app), mimetype="application/yaml")


def init_app(app: Flask) -> None:
    app.add_url_rule("/openapi.yaml", "openapi_yaml", openapi_yaml)
