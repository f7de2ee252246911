"""What browsers need: CORS, and the interactive API reference at /docs.

CORS: a page from another origin may call the API (MEEPLE_CORS_ORIGINS, comma-separated;
`*` by default). Credentials are never allowed: the API takes no cookies, only a bearer key
that a page must hold itself, so a page from another origin can read what anyone may (public
games) and can write nothing without a key of its own.

/docs is Swagger UI, served from the pinned flask-swagger-ui package's own files (no CDN),
reading /openapi.json.
"""

from __future__ import annotations

import os

from flask import Flask
from flask_cors import CORS
from flask_swagger_ui import get_swaggerui_blueprint

# What a browser client sends and must be able to read (the rest of the headers are
# CORS-safelisted already).
REQUEST_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "If-Match",
                   "If-None-Match", "Last-Event-ID"]
RESPONSE_HEADERS = ["ETag", "Location", "Retry-After", "RateLimit", "RateLimit-Policy",
                    "Meeple-Imported"]


def origins(config: str) -> str | list[str]:
    listed = [origin.strip() for origin in config.split(",") if origin.strip()]
    return "*" if not listed or "*" in listed else listed


def init_app(app: Flask) -> None:
    app.config.setdefault("CORS_ORIGINS_ALLOWED",
                          os.environ.get("MEEPLE_CORS_ORIGINS", "*"))
    allowed = origins(app.config["CORS_ORIGINS_ALLOWED"])
    # `*` itself (not the caller's origin echoed): any page may read, none with credentials.
    CORS(app, origins=allowed, send_wildcard=allowed == "*", supports_credentials=False,
         allow_headers=REQUEST_HEADERS,
         expose_headers=RESPONSE_HEADERS, max_age=600, vary_header=True)
    app.register_blueprint(get_swaggerui_blueprint(
        "/docs", "/openapi.json", config={"app_name": "Meeple API"}))
