"""gunicorn's own refusals as problem+json, like every other error of the API.

A request gunicorn refuses before the app sees it (a request line over
`limit_request_line`: 414; headers too many or too large: 431; a malformed request line,
header or chunk: 400) is answered by gunicorn itself, in HTML. A client of this API reads
application/problem+json with a stable `code` on every error (service/middleware/errors.py,
openapi.yaml's Problem), so deploy/gunicorn.conf.py installs this writer in place of
gunicorn's (`gunicorn.util.write_error`, which its workers' `handle_error` calls with the
status, reason and message it chose). The statuses stay gunicorn's."""

from __future__ import annotations

import json
import socket

from gunicorn import util

# gunicorn's statuses for what it refuses itself → the API's stable codes.
CODES = {
    400: "bad_request",
    403: "forbidden",
    414: "uri_too_long",
    417: "expectation_failed",
    431: "headers_too_large",
    500: "internal_error",
    501: "not_implemented",
}


def write_problem(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """What gunicorn's `write_error` writes, as problem+json. `mesg` is gunicorn's message
    (it may quote the refused request line or header, which JSON escapes)."""
    body = json.dumps({
        "title": reason,
        "status": status_int,
        "code": CODES.get(status_int, "bad_request" if status_int < 500 else "internal_error"),
        "detail": mesg or reason,
    }).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\n"
            "Connection: close\r\n"
            "Content-Type: application/problem+json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode("latin-1")
    util.write_nonblock(sock, head + body)


def install() -> None:
    util.write_error = write_problem
