"""Health and the API description."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app

from service.api import Blueprint
from service.auth import meeple
from service.schemas import Health
from service.spec import spec_yaml

blp = Blueprint("system", __name__, description="Health and the API description")


@blp.route("/healthz")
@blp.response(200, Health)
def healthz() -> dict[str, Any]:
    """Liveness and whether Redis answers."""
    try:
        redis_ok = bool(meeple().redis.ping())
    except Exception:  # any Redis failure means "not healthy", never a 500
        redis_ok = False
    return {"status": "ok" if redis_ok else "degraded", "redis": redis_ok}


@blp.route("/openapi.yaml")
@blp.doc(responses={"200": {"description": "This API's OpenAPI document",
                            "content": {"application/yaml": {"schema": {"type": "string"}}}}})
def openapi_yaml() -> Response:
    """This document."""
    return Response(spec_yaml(current_app), mimetype="application/yaml")
