"""What gunicorn refuses before the app sees it is answered as problem+json with a stable
code, like every other error of the API (service/server/refusals.py); it was gunicorn's HTML.
Through a real gunicorn (deploy/gunicorn.conf.py)."""

from __future__ import annotations

import json
import socket


def raw_exchange(base: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send `request` as is; the status, headers and body (Content-Length bytes of it, or
    all until the server closes) of the answer."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer and (chunk := conn.recv(65536)):
            answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        status_line, *lines = head.decode("latin-1").split("\r\n")
        headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
        length = int(headers.get("content-length", -1))
        while (length < 0 or len(body) < length) and (chunk := conn.recv(65536)):
            body += chunk
    return int(status_line.split()[1]), headers, body


# (what is sent, the status and code gunicorn answers it with); one server for them all
REFUSED = [
    # over limit_request_line (4094) but within what gunicorn reads at once: a longer line
    # is cut off unread, and the close then resets the connection before the answer is read
    (b"GET /v1/games/" + b"x" * 5_000 + b" HTTP/1.1\r\nHost: a\r\n\r\n", 414, "uri_too_long"),
    (b"GET /healthz HTTP/1.1\r\nHost: a\r\n"  # over limit_request_fields (100)
     + b"".join(b"X-Many-%d: 1\r\n" % i for i in range(200)) + b"\r\n", 431,
     "headers_too_large"),
    (b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: " + b"y" * 20_000 + b"\r\n\r\n", 431,
     "headers_too_large"),  # over limit_request_field_size (8190)
    (b"GET\x00 / HTTP/1.1\r\nHost: a\r\n\r\n", 400, "bad_request"),
]


def test_what_gunicorn_refuses_itself_is_problem_json_and_the_app_answers_on(
        live_server: str) -> None:
    for request, status, code in REFUSED:
        got, headers, body = raw_exchange(live_server, request)
        assert got == status, (request[:40], body)
        assert headers["content-type"] == "application/problem+json", request[:40]
        problem = json.loads(body)
        assert problem["status"] == status and problem["code"] == code, problem
        assert problem["title"] and problem["detail"]
    status, _, body = raw_exchange(
        live_server, b"GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
    assert status == 200, body
