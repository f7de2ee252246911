"""What caches may keep. Most answers differ by who asks (a seat's view, its moves, its
inbox), so a shared cache must never serve one caller's answer to another: every answer
says it varies with `Authorization`, and one made for an authenticated caller is
`private` and revalidated (`no-cache`: a client may keep it and ask again with its ETag).
"""

from __future__ import annotations

from flask import Flask, Response, request


def mark_private(response: Response) -> Response:
    response.vary.add("Authorization")
    if "Authorization" in request.headers and "Cache-Control" not in response.headers:
        response.headers["Cache-Control"] = "private, no-cache"
    return response


def init_app(app: Flask) -> None:
    app.after_request(mark_private)
