"""What gunicorn refuses before the app sees it is answered as problem+json with a stable
code, like every other error of the API (service/gunicorn_errors.py); it was gunicorn's HTML.
Through a real gunicorn (deploy/gunicorn.conf.py)."""

from __future__ import annotations

import json
import socket

import pytest


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


def test_a_request_line_too_long_is_414_problem_json(live_server: str) -> None:
    # Over limit_request_line (4094) but within what gunicorn reads at once: a longer one
    # is cut off unread, and the close then resets the connection before the answer is read.
    status, headers, body = raw_exchange(
        live_server, b"GET /v1/games/" + b"x" * 5_000 + b" HTTP/1.1\r\nHost: a\r\n\r\n")
    assert status == 414
    assert headers["content-type"] == "application/problem+json"
    problem = json.loads(body)
    assert problem["status"] == 414 and problem["code"] == "uri_too_long"
    assert problem["title"] == "URI Too Long" and problem["detail"]


@pytest.mark.parametrize("headers", [
    b"".join(b"X-Many-%d: 1\r\n" % i for i in range(200)),  # over limit_request_fields
    b"X-Big: " + b"y" * 20_000 + b"\r\n",  # over limit_request_field_size
], ids=["too many", "too large"])
def test_headers_too_many_or_too_large_are_431_problem_json(live_server: str,
                                                             headers: bytes) -> None:
    status, answer_headers, body = raw_exchange(
        live_server, b"GET /healthz HTTP/1.1\r\nHost: a\r\n" + headers + b"\r\n")
    assert status == 431
    assert answer_headers["content-type"] == "application/problem+json"
    assert json.loads(body)["code"] == "headers_too_large"


def test_a_malformed_request_line_is_400_problem_json(live_server: str) -> None:
    status, headers, body = raw_exchange(live_server, b"GET\x00 / HTTP/1.1\r\nHost: a\r\n\r\n")
    assert status == 400
    assert headers["content-type"] == "application/problem+json"
    assert json.loads(body)["code"] == "bad_request"


def test_the_app_still_answers_after_a_refusal(live_server: str) -> None:
    raw_exchange(live_server, b"GET /" + b"z" * 5_000 + b" HTTP/1.1\r\nHost: a\r\n\r\n")
    status, headers, body = raw_exchange(
        live_server, b"GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
    assert status == 200, body
