"""What the benchmarks share: the machine's description, a private Redis and
gunicorn on loopback, a tiny JSON-over-HTTP client, and percentiles.

Everything stays on 127.0.0.1; every loop in the benchmarks is bounded in
count and in time.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cli.embedded_redis import EmbeddedRedis, die_with_parent, free_port

REPO_ROOT = Path(__file__).resolve().parent.parent
GUNICORN_CONF = REPO_ROOT / "deploy" / "gunicorn.conf.py"
HOST = "127.0.0.1"


# --------------------------------------------------------------------------- the machine


def _first_line_with(path: str, prefix: str) -> str:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(prefix):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def filesystem_of(path: Path) -> str:
    """The filesystem type under `path` (fsync cost depends on it: tmpfs vs ext4)."""
    best, kind = "", "?"
    try:
        for line in Path("/proc/mounts").read_text().splitlines():
            _, mount, fstype, *_ = line.split()
            if str(path.resolve()).startswith(mount) and len(mount) > len(best):
                best, kind = mount, fstype
    except OSError:
        pass
    return kind


def machine() -> dict[str, str]:
    mem_kb = _first_line_with("/proc/meminfo", "MemTotal").split()[0]
    ram = f"{int(mem_kb) / 1024 / 1024:.1f} GiB" if mem_kb.isdigit() else "?"
    return {
        "cpu": _first_line_with("/proc/cpuinfo", "model name"),
        "cores": str(os.cpu_count()),
        "ram": ram,
        "python": platform.python_version(),
        "os": platform.platform(),
        # Other work on the box skews every number: say how busy it was.
        "load avg": " ".join(f"{value:.2f}" for value in os.getloadavg()),
    }


def progress(message: str) -> None:
    """A line on stderr while a benchmark runs; the results go to stdout."""
    print(message, file=sys.stderr, flush=True)


def print_machine(info: dict[str, str]) -> None:
    """`info` is machine() taken before the run (the load average at the start)."""
    print("machine")
    for key, value in info.items():
        print(f"  {key:<12} {value}")


# --------------------------------------------------------------------------- numbers


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted sequence (0 when empty)."""
    if not sorted_values:
        return 0.0
    rank = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[rank]


def latency_summary(latencies: list[float]) -> dict[str, float]:
    """p50/p90/p99/max in milliseconds."""
    ordered = sorted(latencies)
    ms = 1000.0
    return {
        "p50_ms": percentile(ordered, 0.50) * ms,
        "p90_ms": percentile(ordered, 0.90) * ms,
        "p99_ms": percentile(ordered, 0.99) * ms,
        "max_ms": (ordered[-1] if ordered else 0.0) * ms,
    }


def format_latency(summary: dict[str, float]) -> str:
    return "  ".join(f"{key[:-3]} {value:7.2f} ms" for key, value in summary.items())


# --------------------------------------------------------------------------- HTTP


class HttpError(Exception):
    def __init__(self, status: int, body: Any) -> None:
        code = body.get("code") if isinstance(body, dict) else None
        super().__init__(f"HTTP {status} {code or ''}".strip())
        self.status = status
        self.code = code or f"http_{status}"
        self.body = body


class JsonClient:
    """One keep-alive connection; a thread owns one client (http.client is not thread-safe)."""

    def __init__(self, host: str, port: int, timeout: float = 30.0) -> None:
        self._host, self._port, self._timeout = host, port, timeout
        self._conn = http.client.HTTPConnection(host, port, timeout=timeout)
        self.api_key: str | None = None
        # Seconds from sending the last request to reading its whole answer: the latency a
        # server is responsible for, without this client's JSON encoding and decoding.
        self.last_round_trip = 0.0

    def close(self) -> None:
        self._conn.close()

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """(status, decoded JSON or None). Reconnects once if the server closed the connection."""
        headers = {"Accept": "application/json"}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        for attempt in (1, 2):
            try:
                started = time.perf_counter()
                self._conn.request(method, path, payload, headers)
                response = self._conn.getresponse()
                raw = response.read()
                self.last_round_trip = time.perf_counter() - started
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # An idle keep-alive connection the server dropped; the request never ran.
                self._conn.close()
                self._conn = http.client.HTTPConnection(self._host, self._port,
                                                        timeout=self._timeout)
                if attempt == 2:
                    raise
        decoded = json.loads(raw) if raw and raw[:1] in (b"{", b"[") else None
        return response.status, decoded

    def json(self, method: str, path: str, body: Any = None, ok: int = 200) -> Any:
        status, decoded = self.call(method, path, body)
        if status != ok:
            raise HttpError(status, decoded)
        return decoded


def url_host_port(url: str) -> tuple[str, int]:
    rest = url.split("://", 1)[-1].rstrip("/")
    host, _, port = rest.partition(":")
    return host, int(port or 80)


def wait_http_ok(host: str, port: int, path: str = "/healthz", timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        client = JsonClient(host, port, timeout=2)
        try:
            if client.call("GET", path)[0] == 200:
                return
        except OSError:
            pass
        finally:
            client.close()
        time.sleep(0.2)
    raise RuntimeError(f"GET {path} on {host}:{port} not 200 within {timeout:.0f}s")


# --------------------------------------------------------------------------- servers


@contextmanager
def private_redis(workdir: Path, durable: bool = True) -> Iterator[EmbeddedRedis]:
    """redis-server in `workdir`: the production AOF settings (appendfsync always), or
    memory only (`durable=False`, as `meeple run` keeps the rate-limit counters)."""
    server = EmbeddedRedis(workdir, free_port(), durable=durable)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@dataclass
class Gunicorn:
    proc: subprocess.Popen[bytes]
    port: int

    def worker_pids(self) -> list[int]:
        """The master's children: scan /proc (the `children` file is not on every kernel)."""
        master = str(self.proc.pid)
        pids: list[int] = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and _first_line_with(f"{entry}/status", "PPid") == master:
                pids.append(int(entry.name))
        return pids

    def peak_rss_mib(self) -> dict[int, float]:
        """VmHWM (peak resident set) of each live worker process, in MiB."""
        peaks: dict[int, float] = {}
        for pid in self.worker_pids():
            value = _first_line_with(f"/proc/{pid}/status", "VmHWM").split()
            if value and value[0].isdigit():
                peaks[pid] = int(value[0]) / 1024
        return peaks


@contextmanager
def private_gunicorn(redis_url: str, log_path: Path, workers: int | None = None,
                     threads: int | None = None, counters_url: str | None = None,
                     extra_env: dict[str, str] | None = None) -> Iterator[Gunicorn]:
    """gunicorn with deploy/gunicorn.conf.py on a free loopback port, no rate limit;
    `extra_env` adds settings (the event store elsewhere: MEEPLE_EVENTS_URL)."""
    port = free_port()
    env = {
        **os.environ,
        "MEEPLE_REDIS_URL": redis_url,
        "MEEPLE_RATELIMIT_REDIS_URL": counters_url or redis_url,
        "MEEPLE_BIND": f"{HOST}:{port}",
        # The benchmark is one client address hammering the API: lift the limit.
        "MEEPLE_RATE_LIMIT": "100000000 per minute",
        "MEEPLE_REGISTRATION_RATE_LIMIT": "100000000 per minute",
        # No worker recycling mid-run: it would show up as latency spikes.
        "MEEPLE_WEB_MAX_REQUESTS": "0",
        **(extra_env or {}),
    }
    if workers:
        env["MEEPLE_WEB_WORKERS"] = str(workers)
    if threads:
        env["MEEPLE_WEB_THREADS"] = str(threads)
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF), "service.wsgi:app"],
            env=env, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent,
        )
    server = Gunicorn(proc, port)
    try:
        wait_http_ok(HOST, port)
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
