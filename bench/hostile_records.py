"""What hostile records cost the server: POST /v1/records/verify with bodies built to make
the verifier work (and answer) as much as it can, through a real gunicorn worker.

    .venv/bin/python -m bench.hostile_records [--json FILE]

Bodies just under 1 and 4 MB (the server's limits without and with a key) and just over
16 MB, each of three kinds: the most empty-object events a record may hold (seven missing
fields each), well-formed envelopes whose chain is broken at every link, and a record that
claims 10**19 seats (the largest integer a body may hold). Each is sent with an API key and
without. Printed per body: the status, seconds to the answer, the answer's size, problems
listed and not listed, and the growth of the worker's peak RSS (VmHWM) over the run.
Issue 11's budget: every answer a 4xx or a 200 within 2 s, RSS growth under 50 MB.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.harness import (
    JsonClient,
    machine,
    print_machine,
    private_gunicorn,
    private_redis,
    progress,
)

SIZES_MB = (1, 4, 16)
BUDGET_SECONDS = 2.0
BUDGET_RSS_MB = 50.0


def header(events: list[Any], seats: int = 2) -> dict[str, Any]:
    return {"format": "meeple-record/1", "seed_commitment": "0" * 64, "complete": True,
            "redacted_for": None, "seed": None, "scores": None, "signature": {},
            "game": {"id": "g", "type": "res-publica-2230ad", "rules_version": "1",
                     "options": {}, "seat_count": seats, "seats": [],
                     "created_at": "2030-01-01T00:00:00Z", "status": "ended"},
            "events": events}


def padded(record: dict[str, Any], megabytes: int) -> bytes:
    """The record, its note padded so that the body is just under `megabytes` MB (the
    server's limits are 1 and 4 MB: the largest body it reads), or just over 16."""
    target = megabytes * 2**20 - (1024 if megabytes < 16 else -1024)
    record["note"] = ""
    room = target - len(json.dumps(record))
    record["note"] = "x" * max(0, room)
    return json.dumps(record).encode()


def empty_events(megabytes: int) -> bytes:
    # As many objects as a record may hold (200,000 objects and arrays), each 7 problems.
    count = min(megabytes * 2**20 // 4, 199_000)
    return padded(header([{}] * count), megabytes)


def broken_chain(megabytes: int) -> bytes:
    one = {"v": 1, "type": "MessagePosted", "at": "2030-01-01T00:00:00Z", "by": "p",
           "data": {}, "prev": "1" * 64, "hash": "2" * 64}
    count = min(megabytes * 2**20 // (len(json.dumps(one)) + 8), 90_000)
    return padded(header([dict(one, v=n + 1) for n in range(count)]), megabytes)


def many_seats(megabytes: int) -> bytes:
    created = {"v": 1, "type": "GameCreated", "at": "2030-01-01T00:00:00Z", "by": "system",
               "data": {"type": "res-publica-2230ad", "rules_version": "1", "options": {},
                        "seats": 10**19, "seed_commitment": "0" * 64},
               "prev": "0" * 64, "hash": "0" * 64}
    return padded(header([created], seats=10**19), megabytes)


KINDS = {"empty events": empty_events, "broken chain": broken_chain, "10**19 seats": many_seats}


def send(port: int, body: bytes, api_key: str | None) -> tuple[int, float, int, Any]:
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        started = time.perf_counter()
        # The server may answer (413) before reading it all: its answer is there to read.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            conn.request("POST", "/v1/records/verify", body=body, headers=headers)
        response = conn.getresponse()
        raw = response.read()
        seconds = time.perf_counter() - started
    finally:
        conn.close()
    try:
        answer = json.loads(raw)
    except ValueError:
        answer = None
    return response.status, seconds, len(raw), answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="Also write the figures here.")
    args = parser.parse_args()
    info = machine()
    print_machine(info)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp, private_redis(Path(tmp) / "redis") as store, \
            private_gunicorn(store.url, Path(tmp) / "api.log", workers=1) as api:
        client = JsonClient("127.0.0.1", api.port, timeout=120)
        key = client.json("POST", "/v1/players", {"name": "bench"}, ok=201)["api_key"]
        [worker] = api.worker_pids()
        baseline = api.peak_rss_mib()[worker]
        for kind, build in KINDS.items():
            for megabytes in SIZES_MB:
                body = build(megabytes)
                for keyed in (False, True):
                    progress(f"{kind}, {len(body) / 2**20:.1f} MB, "
                             f"{'with' if keyed else 'without'} a key")
                    status, seconds, size, answer = send(api.port, body, key if keyed else None)
                    listed = len(answer.get("problems", [])) if isinstance(answer, dict) else 0
                    rows.append({
                        "kind": kind, "body_mb": round(len(body) / 2**20, 2), "keyed": keyed,
                        "status": status, "seconds": round(seconds, 3), "answer_kb":
                        round(size / 1024, 1), "listed": listed,
                        "not_listed": answer.get("not_listed") if isinstance(answer, dict)
                        else None,
                        "rss_growth_mb": round(api.peak_rss_mib()[worker] - baseline, 1)})
    print(f"{'body':<14}{'MB':>6} {'key':<4}{'status':>7}{'s':>7}{'answer KB':>10}"
          f"{'listed':>7}{'not listed':>11}{'RSS +MB':>8}")
    for row in rows:
        print(f"{row['kind']:<14}{row['body_mb']:>6} {'yes' if row['keyed'] else 'no':<4}"
              f"{row['status']:>7}{row['seconds']:>7}{row['answer_kb']:>10}{row['listed']:>7}"
              f"{row['not_listed']!s:>11}{row['rss_growth_mb']:>8}")
    worst = max(row["seconds"] for row in rows)
    growth = max(row["rss_growth_mb"] for row in rows)
    bad = [row for row in rows if row["status"] >= 500]
    print(f"slowest answer {worst} s (budget {BUDGET_SECONDS}); peak RSS growth {growth} MB "
          f"(budget {BUDGET_RSS_MB}); {len(bad)} answers 5xx")
    if args.json:
        args.json.write_text(json.dumps({"machine": info, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
