"""`meeple run` on a machine with nothing configured: it brings up its own redis,
gunicorn, a worker and `meeple smtpd`, serves /healthz, and a Ctrl-C stops it all cleanly."""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from cli.embedded_redis import free_port, port_is_free

MEEPLE = Path(sys.executable).parent / "meeple"
STARTUP_SECONDS = 60  # gunicorn imports the whole app; CI machines are small
STOP_SECONDS = 15


def healthz_ok(port: int) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        conn.request("GET", "/healthz")
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


def wait_healthy(proc: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"meeple run exited early with {proc.returncode}"
        if healthz_ok(port):
            return
        time.sleep(0.2)
    raise AssertionError(f"GET /healthz was not 200 within {STARTUP_SECONDS}s")


def test_meeple_run_serves_and_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    port, smtpd_port = free_port(), free_port()
    env = {key: value for key, value in os.environ.items() if key != "MEEPLE_REDIS_URL"}
    log_path = tmp_path / "meeple-run.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [str(MEEPLE), "run", "--port", str(port), "--workers", "1",
             "--smtpd-port", str(smtpd_port)],
            cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
    try:
        wait_healthy(proc, port)
        redis_port = int((tmp_path / "var" / "redis" / "port").read_text())

        proc.send_signal(signal.SIGINT)
        code = proc.wait(STOP_SECONDS)
    finally:
        if proc.poll() is None:
            proc.kill()  # its children get SIGTERM from the kernel (PR_SET_PDEATHSIG)
            proc.wait()
        print(log_path.read_text())  # shown by pytest when the test fails

    assert code == 0
    assert list((tmp_path / "var").rglob("appendonly*.aof")), "redis kept no AOF under var/"
    assert port_is_free(port), "gunicorn still listening"
    assert port_is_free(smtpd_port), "meeple smtpd still listening"
    assert port_is_free(redis_port), "redis still running"
