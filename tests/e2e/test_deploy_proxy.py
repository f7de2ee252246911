"""deploy/nginx.conf in front of the two gunicorn pools of deploy/ (systemd/meeple-api.service
and systemd/meeple-streams.service): a real nginx sends a live stream to the stream pool and
everything else to the API, and an event reaches a subscriber through it unbuffered. Which
pool answered is read from each pool's own log (its access lines, MEEPLE_ACCESS_LOG=-)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import free_port
from tests.e2e.conftest import BIN, ROOT, register, stop_all, wait_for
from tests.e2e.test_gunicorn_refusals import raw_exchange
from tests.e2e.test_streams_over_http import RP, Sse

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def nginx_conf(tmp: Path, listen: int, api: int, streams: int) -> Path:
    """deploy/nginx.conf on this test's ports, in a main config nginx can run unprivileged
    paths from."""
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    for deployed, here in (("listen 80;", f"listen 127.0.0.1:{listen};"),
                           ("127.0.0.1:8000", f"127.0.0.1:{api}"),
                           ("127.0.0.1:8001", f"127.0.0.1:{streams}")):
        assert deployed in site, deployed
        site = site.replace(deployed, here)
    (tmp / "site.conf").write_text(site)
    main = tmp / "nginx.conf"
    main.write_text(f"""
user root;
daemon off;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log;
events {{}}
http {{
    access_log off;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {tmp}/site.conf;
}}
""")
    return main


@pytest.fixture()
def proxied(redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
            ) -> Iterator[tuple[str, Path, Path]]:
    """(the proxy's base URL, the API pool's access log, the stream pool's access log)."""
    if not Path(NGINX).exists():  # .ci/run installs it (apt-get install nginx-light)
        pytest.fail("nginx is not installed: apt-get install nginx-light")
    api_port, streams_port, listen = free_port(), free_port(), free_port()
    env = {**os.environ, "MEEPLE_REDIS_URL": redis_url, "MEEPLE_KEYS_DIR": str(tmp_path / "keys"),
           "MEEPLE_RATE_LIMIT": "100000 per minute",
           "MEEPLE_REGISTRATION_RATE_LIMIT": "100000 per minute",
           "MEEPLE_TRUSTED_PROXIES": "1", "MEEPLE_WEB_GRACEFUL_TIMEOUT": "2",
           "MEEPLE_STREAM_KEEPALIVE_SECONDS": "1", "MEEPLE_ACCESS_LOG": "-"}
    logs = {"api": tmp_path / "api.log", "streams": tmp_path / "streams.log"}
    procs = []
    try:
        for name, port in (("api", api_port), ("streams", streams_port)):
            with logs[name].open("wb") as log:  # the child keeps its own copy open
                procs.append(subprocess.Popen(
                    [str(BIN / "gunicorn"), "-c", str(ROOT / "deploy" / "gunicorn.conf.py"),
                     "--bind", f"127.0.0.1:{port}", "--workers", "1", "service.wsgi:app"],
                    cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT))
            wait_for(f"http://127.0.0.1:{port}/healthz", procs[-1])
        conf = nginx_conf(tmp_path, listen, api_port, streams_port)
        subprocess.run([NGINX, "-t", "-c", str(conf)], check=True, capture_output=True)
        procs.append(subprocess.Popen([NGINX, "-c", str(conf)]))
        wait_for(f"http://127.0.0.1:{listen}/healthz", procs[-1])
        yield f"http://127.0.0.1:{listen}", logs["api"], logs["streams"]
    finally:
        stop_all(procs)


def requests_in(log: Path) -> list[str]:
    """The request lines ("GET /path HTTP/1.1") of a pool's access log lines."""
    return re.findall(r'(?:GET|POST|HEAD) /v1/[^ ]* HTTP/1\.1', log.read_text())


def test_the_proxy_sends_streams_to_the_stream_pool_and_the_rest_to_the_api(proxied) -> None:
    base, api_log, streams_log = proxied
    alice, bob = register(base, "alice"), register(base, "bob")
    status, game, _ = alice.call("POST", "/v1/games", {"type": RP, "seats": 2, "bots": []})
    assert status == 201
    status, game, _ = bob.call("POST", f"/v1/games/{game['id']}/join", {})
    assert status == 200 and game["status"] == "active"
    stream = Sse(base, f"/v1/games/{game['id']}/stream", bob.api_key or "")
    try:
        assert next(stream.frames(time.monotonic() + 10))[1] == {"comment": "keepalive"}
        status, listed, _ = alice.call("GET", f"/v1/games/{game['id']}/moves")
        status, played, _ = alice.call("POST", f"/v1/games/{game['id']}/moves", {
            "expected_version": listed["version"], "seat": listed["seat"],
            "moves": [{"id": listed["moves"][0]["id"]}]})
        assert status == 201, played
        got = stream.envelopes_until(played["version"], time.monotonic() + 10)
        assert got[-1]["type"] == "MovePlayed" and got[-1]["v"] == played["version"]
    finally:
        stream.close()
    # gunicorn writes a stream's access line once it has ended: when a keepalive finds the
    # client gone (nginx closes its side when ours goes).
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and "/stream" not in streams_log.read_text():
        time.sleep(0.2)
    streamed, answered = requests_in(streams_log), requests_in(api_log)
    assert streamed == [f"GET /v1/games/{game['id']}/stream HTTP/1.1"]
    assert f"POST /v1/games/{game['id']}/moves HTTP/1.1" in answered
    assert len(answered) >= 5 and not any("/stream" in line for line in answered)


PROXY_REFUSES = [
    (b"POST /v1/games HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
     b"Content-Length: 2000000\r\n\r\n", 413, "too_large"),
    # over gunicorn's limit, within nginx's: gunicorn answers (service/server/refusals.py)
    (b"GET /v1/games/" + b"x" * 5_000 + b" HTTP/1.1\r\nHost: a\r\n\r\n", 414, "uri_too_long"),
    (b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: " + b"y" * 9_000 + b"\r\n\r\n", 431,
     "headers_too_large"),
]


def test_what_the_proxy_refuses_itself_is_problem_json(proxied) -> None:
    base = proxied[0]
    for request, status, code in PROXY_REFUSES:
        got, headers, body = raw_exchange(base, request)
        assert got == status, body
        assert headers["content-type"] == "application/problem+json"
        problem = json.loads(body)
        assert problem["status"] == status and problem["code"] == code and problem["detail"]
