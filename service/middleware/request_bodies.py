"""Request bodies sent without a Content-Length (chunked) are held to the same limit as the
others (MAX_CONTENT_LENGTH, or the route's own `request.max_content_length`).

Werkzeug refuses a body whose Content-Length is over the limit, but one sent chunked it
only cuts at the limit and hands on as if it ended there: 64 KB of a 2 MB body parse as a
JSON document when they happen to be one. Here such a body is read up to one byte past the
limit, and refused whole (413) if that byte came.
"""

from __future__ import annotations

import io
from typing import IO

from flask import Flask, Request
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.utils import cached_property
from werkzeug.wsgi import get_input_stream


class BoundedRequest(Request):
    @cached_property
    def stream(self) -> IO[bytes]:  # type: ignore[override]
        limit = self.max_content_length
        if (self.content_length is not None or limit is None
                or "wsgi.input_terminated" not in self.environ):
            # With a Content-Length werkzeug checks it; without one and without a server
            # that ends the stream (chunked), werkzeug reads nothing.
            return get_input_stream(self.environ, max_content_length=limit)
        body = read_at_most(self.environ["wsgi.input"], limit + 1)
        if len(body) > limit:
            raise RequestEntityTooLarge(f"the body is larger than {limit} bytes")
        return io.BytesIO(body)


def read_at_most(stream: IO[bytes], size: int) -> bytes:
    """Up to `size` bytes: fewer only if the stream ends first."""
    parts, got = [], 0
    while got < size:
        part = stream.read(size - got)
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def init_app(app: Flask) -> None:
    app.request_class = BoundedRequest
