"""service/web/static/verify.js, the in-browser verifier of game records, run in a real
headless Chromium: its canonical JSON against the test vectors and Python's own json.dumps,
the golden records and records a server makes verifying, and each kind of tampering named at
the check and the event where it shows.

The module is served with a test page over http://127.0.0.1 (WebCrypto, which it needs,
exists only in a secure context, and localhost is one); each record to check is written to
that directory and fetched by the page, as a real page fetches GET /v1/games/{id}/record."""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import math
import random
import shutil
import struct
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.support.ui import WebDriverWait

from events.application.offline import fixed_clock, play_offline
from events.domain.envelope import canonical_json
from events.records.finished import serialise
from events.records.keys import Keyring
from events.records.record import build_record, sign_record
from games.rng import Rng
from tests.records.helpers import reseal

ROOT = Path(__file__).resolve().parents[2]
VERIFY_JS = ROOT / "service" / "web" / "static" / "verify.js"
GOLDEN = ROOT / "tests" / "golden"
VECTORS = ROOT / "tests" / "records" / "vectors"
GOLDEN_RECORDS = sorted(p.name for p in GOLDEN.glob("*.json") if p.name != "keys.json")
CHECKS = ["format", "hashes", "chain", "seed", "signature"]
SEED = b"tests/web: a seed"

# The page imports the module as a page of the site would, and exposes it to the tests.
PAGE = """<!doctype html>
<meta charset="utf-8">
<title>verify.js under test</title>
<script type="module">
import { verifyRecord, canonicalJson, parseJson } from "./verify.js";

async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

window.meeple = { verifyRecord, canonicalJson, parseJson, sha256Hex };
window.runVerify = async (recordUrl, keysUrl) => {
  const [text, keys] = await Promise.all([
    fetch(recordUrl).then((answer) => answer.text()),
    fetch(keysUrl).then((answer) => answer.json()),
  ]);
  return verifyRecord(text, keys);
};
</script>
"""


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass  # one line a request on stderr tells nothing here


@dataclass
class Site:
    root: Path
    url: str

    def put(self, content: str | bytes | dict[str, Any], suffix: str = ".json") -> str:
        """Write `content` (a dict as JSON) under a fresh name; its URL path."""
        name = f"{uuid.uuid4().hex}{suffix}"
        if isinstance(content, dict):
            content = json.dumps(content)
        data = content.encode() if isinstance(content, str) else content
        (self.root / name).write_bytes(data)
        return f"/{name}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    root = tmp_path_factory.mktemp("verify-site")
    shutil.copy(VERIFY_JS, root / "verify.js")
    (root / "verify.html").write_text(PAGE)
    shutil.copy(VECTORS / "record.json", root / "vector-record.json")
    shutil.copy(VECTORS / "expected.json", root / "vector-expected.json")
    for name in [*GOLDEN_RECORDS, "keys.json"]:
        shutil.copy(GOLDEN / name, root / name)
    # Port 0: the kernel picks a free port, with no window for another process to take it.
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(QuietHandler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield Site(root, f"http://127.0.0.1:{server.server_address[1]}")
    server.shutdown()
    server.server_close()


@pytest.fixture()
def page(browser: webdriver.Chrome, site: Site) -> webdriver.Chrome:
    """The browser on the test page, its module loaded (kept from the test before if there)."""
    if not browser.current_url.startswith(f"{site.url}/verify.html"):
        browser.get(f"{site.url}/verify.html")
    browser.set_script_timeout(30)
    WebDriverWait(browser, 10).until(lambda b: b.execute_script("return !!window.meeple"))
    assert browser.execute_script("return window.isSecureContext") is True
    return browser


def in_page(browser: webdriver.Chrome, body: str, *args: Any) -> Any:
    """Run `body` (an async function body seeing `args` and the page's `meeple`) and return
    its value; an exception in the page fails the test with its message."""
    script = f"""
        const done = arguments[arguments.length - 1];
        const args = Array.from(arguments).slice(0, -1);
        (async (args) => {{ {body} }})(args).then(
            (value) => done({{value}}),
            (error) => done({{error: String(error && error.stack || error)}}));
    """
    answer = browser.execute_async_script(script, *args)
    assert "error" not in answer, answer["error"]
    return answer.get("value")


def verify(browser: webdriver.Chrome, site: Site, record: str | dict[str, Any],
           keys: str | dict[str, Any] = "/keys.json") -> dict[str, Any]:
    """verifyRecord on a record (text or a dict, written as the server serves records) and a
    keys document (a URL path or a dict), both fetched by the page."""
    record_url = record if isinstance(record, str) and record.startswith("/") else site.put(
        serialise(record).decode() if isinstance(record, dict) else record)
    keys_url = keys if isinstance(keys, str) else site.put(keys)
    result = in_page(browser, "return await window.runVerify(args[0], args[1]);",
                     record_url, keys_url)
    assert [check["name"] for check in result["checks"]] == CHECKS
    assert set(result) == {"ok", "events", "keyId", "summary", "checks", "failure"}
    return result


def ok_summary(events: int, key_id: str) -> str:
    return (f"{events:,} events chained; seed matches the commitment published at creation; "
            f"signed by key {key_id}")


def assert_failure(result: dict[str, Any], check: str, version: int | None,
                   detail_has: str) -> None:
    """`result` fails first at `check` and `version`, says so in its summary, and marks that
    check and every one before it as it should (all before it passed)."""
    failure = result["failure"]
    assert result["ok"] is False
    assert failure["check"] == check, failure
    assert failure["version"] == version, failure
    assert detail_has in failure["detail"], failure
    assert result["summary"] == f"Verification failed at {failure['detail']}"
    states = {c["name"]: c["ok"] for c in result["checks"]}
    assert states[check] is False
    assert all(states[name] for name in CHECKS[:CHECKS.index(check)]), result["checks"]
    assert next(c for c in result["checks"] if c["name"] == check)["detail"] == failure["detail"]


def check_states(result: dict[str, Any]) -> dict[str, bool]:
    return {check["name"]: check["ok"] for check in result["checks"]}


# --- records made by a server -----------------------------------------------------------------


@dataclass
class Server:
    """A keyring as a server holds it, and what GET /v1/keys answers for it."""

    keyring: Keyring

    def keys(self) -> dict[str, Any]:
        return {"keys": self.keyring.public_keys()}

    def sign(self, record: dict[str, Any]) -> dict[str, Any]:
        key_id, private_key = self.keyring.current()
        return sign_record(record, key_id, private_key)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Server:
    return Server(Keyring(tmp_path_factory.mktemp("keyring")))


@functools.cache
def _played(game_type: str, moves: int | None) -> tuple[Any, tuple[Any, ...]]:
    table, envelopes = play_offline(game_type, 2, SEED, Rng(b"tests/web bots", 2),
                                    moves=moves, game_id="g-web", clock=fixed_clock())
    return table, tuple(envelopes)


def server_record(server: Server, game_type: str = "res-publica-2230ad") -> dict[str, Any]:
    """A finished game's record as the server builds and signs it, read back as a client
    reads it (a fresh copy, free to tamper with)."""
    table, envelopes = _played(game_type, None)
    return json.loads(serialise(server.sign(build_record(table, list(envelopes), SEED, []))))


def index_of(record: dict[str, Any], kind: str) -> int:
    return next(i for i, e in enumerate(record["events"]) if e["type"] == kind)


def middle_move(record: dict[str, Any]) -> int:
    moves = [i for i, e in enumerate(record["events"]) if e["type"] == "MovePlayed"]
    return moves[len(moves) // 2]


# --- canonical JSON ---------------------------------------------------------------------------


def test_canonical_json_of_the_vectors(page: webdriver.Chrome) -> None:
    """Each envelope of the vector record, read by parseJson, is written back as exactly the
    text expected.json says is hashed, and hashes to its hash; so are the canonical_json
    vectors; and JSON.parse instead of parseJson gets the GameScored envelope wrong."""
    got = in_page(page, """
        const {parseJson, canonicalJson, sha256Hex} = window.meeple;
        const text = await (await fetch("/vector-record.json")).text();
        const expected = parseJson(await (await fetch("/vector-expected.json")).text());
        const envelopes = [];
        for (const envelope of parseJson(text).events) {
            const {hash, ...body} = envelope;
            const hashed = canonicalJson(body);
            envelopes.push({hashed, hash: await sha256Hex(hashed), stored: hash});
        }
        const vectors = expected.canonical_json.map((vector) => {
            const canonical = canonicalJson(vector.value);
            const hex = Array.from(new TextEncoder().encode(canonical),
                                   (b) => b.toString(16).padStart(2, "0")).join("");
            return {canonical, hex};
        });
        const scored = JSON.parse(text).events.find((e) => e.type === "GameScored");
        delete scored.hash;
        return {envelopes, vectors, jsonParse: await sha256Hex(canonicalJson(scored))};
    """)
    expected = json.loads((VECTORS / "expected.json").read_text())
    assert len(got["envelopes"]) == len(expected["envelopes"]) == 8
    for mine, theirs in zip(got["envelopes"], expected["envelopes"], strict=True):
        assert mine["hashed"] == theirs["hashed"]
        assert mine["hash"] == mine["stored"] == theirs["hash"]
    for mine, theirs in zip(got["vectors"], expected["canonical_json"], strict=True):
        assert mine == {"canonical": theirs["canonical"], "hex": theirs["canonical_utf8_hex"]}
    # docs/records.md, section 9: `"mu":25` (what JSON.parse leaves of 25.0) hashes wrong.
    assert got["jsonParse"] == "c53de1393b6f469b87725bbc733a178fb3444952ab20abfdbc028c3da9a77de9"


def random_doubles(count: int) -> list[float]:
    """Finite doubles from random bit patterns (every exponent) and some near edges."""
    rng = random.Random(20300101)
    doubles = [5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e16,
               9999999999999998.0, 1e15, 123456789012345680.0, 0.0001, 0.00009999999999999999,
               1e-05, 1e21, 1e22, 1e23, 0.1, 0.3, 2 / 3, 100.0, 1234567890123456.0, 8.333]
    while len(doubles) < count:
        (x,) = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))
        if math.isfinite(x):
            doubles.append(x)
    return doubles


def python_canonical(text: str) -> str:
    return canonical_json(json.loads(text)).decode()


def test_canonical_json_agrees_with_python(page: webdriver.Chrome) -> None:
    """canonicalJson(parseJson(text)) is Python's canonical_json(json.loads(text)) for tricky
    texts: number forms, thousands of random doubles (repr layout and rounding of long
    decimals), big and negative-zero integers, escapes, and keys sorted by code point."""
    rng = random.Random(7)
    texts = [
        "[25.0, 25, 2.50, 1E2, 1e-7, 1.5e-10, -0.0, -0, 0.0, 0, 1e-400, -1e-400]",
        "[12345678901234567890123, -98765432109876543210, 9007199254740993]",
        "[0.10000000000000000555, 1.00000000000000011102230246251565404236316680908203125]",
        '{"b": 1, "a": {"z": [], "y": {}}, "A": null, "_": false, "\\u00e9": true}',
        '"quote \\" backslash \\\\ slash \\/ \\b\\f\\n\\r\\t \\u0000 \\u001F \\u007f \\u2028"',
        '"\\ud83d\\ude00 \\u00e9 é 😀 \\uFFFF \\ue000"',
        '{"\\ue000": 1, "😀": 2, "\\uffff": 3, "z": 4, "é": 5, "": 6, "10": 7, "9": 8}',
        ' \t\n\r{ "__proto__" : [ true , false , null ] , "constructor": 1 }\n',
        json.dumps(random_doubles(3000)),
        json.dumps([f"{rng.randint(1, 10**20)}.{rng.randint(0, 10**20)}e{rng.randint(-345, 285)}"
                    for _ in range(500)]).replace('"', ""),
        json.dumps({"".join(chr(rng.choice([rng.randint(32, 0xD7FF), rng.randint(0xE000, 0xFFFF),
                                              rng.randint(0x10000, 0x10FFFF)]))
                            for _ in range(rng.randint(1, 4))): n for n in range(300)},
                   ensure_ascii=rng.random() < 0.5),
    ]
    got = in_page(page, """
        const {parseJson, canonicalJson} = window.meeple;
        return args[0].map((text) => canonicalJson(parseJson(text)));
    """, texts)
    for text, mine in zip(texts, got, strict=True):
        assert mine == python_canonical(text), text[:200]
    assert got[0] == "[25.0,25,2.5,100.0,1e-07,1.5e-10,-0.0,0,0.0,0,0.0,-0.0]"


def test_parse_json_refuses_what_is_not_one_json_reading(page: webdriver.Chrome) -> None:
    """Invalid JSON, duplicate keys, NaN and overflowing floats are errors of parseJson (a
    JsonSyntaxError naming the place); a lone surrogate reads but cannot be made canonical,
    as in Python, whose encoder refuses it too."""
    bad = ["", " ", "{", '{"a":}', "[1,]", "[1 2]", "{'a': 1}", "01", "1.", ".5", "+1", "-",
           "1e", "NaN", "Infinity", "-Infinity", "[1]x", "tru", '"a\nb"', '"\\x41"',
           '"\\u12G4"', '"abc', '{"a": 1, "a": 1}', '{"v": 1, "data": {"k": 1, "k": 2}}',
           "1e400", "[-1e400]", "\ufeff{}"]
    got = in_page(page, """
        const {parseJson, canonicalJson} = window.meeple;
        const errors = args[0].map((text) => {
            try { parseJson(text); return null; } catch (e) { return [e.name, e.message]; }
        });
        let surrogate;
        try { surrogate = canonicalJson(parseJson('"\\\\ud800"')); }
        catch (e) { surrogate = [e.name, e.message]; }
        return {errors, surrogate};
    """, bad)
    for text, error in zip(bad, got["errors"], strict=True):
        assert error is not None and error[0] == "JsonSyntaxError", (text, error)
        assert " at line 1, column " in error[1] or " at line 2, column " in error[1]
    assert "appears twice" in got["errors"][bad.index('{"a": 1, "a": 1}')][1]
    assert got["surrogate"][0] == "TypeError" and "lone surrogate" in got["surrogate"][1]
    with pytest.raises(UnicodeEncodeError):
        canonical_json(json.loads('"\\ud800"'))


# --- records that verify ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["vector-record.json", *GOLDEN_RECORDS])
def test_vector_and_golden_records_verify(page: webdriver.Chrome, site: Site, name: str) -> None:
    """The vector record and every golden record (some with GameScored's floats, one of
    1,209 events) verify against tests/golden/keys.json."""
    source = VECTORS / "record.json" if name == "vector-record.json" else GOLDEN / name
    record = json.loads(source.read_text())
    result = verify(page, site, f"/{name}")
    count = len(record["events"])
    assert result["ok"] is True, result["failure"]
    assert result["failure"] is None
    assert all(check["ok"] for check in result["checks"])
    assert result["events"] == count
    assert result["keyId"] == "93415e6cf1c2de72"
    assert result["summary"] == ok_summary(count, "93415e6cf1c2de72")


def test_a_record_made_by_the_server_verifies(page: webdriver.Chrome, site: Site,
                                              server: Server, tmp_path: Path) -> None:
    """A finished game's record as the server builds, signs and serves it verifies with the
    keys it publishes, and still does after a key rotation (old keys stay published)."""
    record = server_record(server, "asking-for-trobils")
    assert len(record["events"]) > 700
    key_id = record["signature"]["key_id"]
    result = verify(page, site, record, server.keys())
    assert result["ok"] is True, result["failure"]
    assert (result["events"], result["keyId"]) == (len(record["events"]), key_id)
    assert result["summary"] == ok_summary(len(record["events"]), key_id)

    rotated = Server(Keyring(tmp_path / "rotated"))
    old_key = rotated.keyring.current()[0]
    signed_before = server_record(rotated)
    rotated.keyring.rotate()
    assert [k["id"] for k in rotated.keys()["keys"]][0] == old_key
    result = verify(page, site, signed_before, rotated.keys())
    assert result["ok"] is True and result["keyId"] == old_key, result["failure"]


# --- tampering, each named where it shows -----------------------------------------------------


def test_a_changed_move_fails_its_hash_at_its_version(page: webdriver.Chrome, site: Site,
                                                      server: Server) -> None:
    record = server_record(server)
    index = middle_move(record)
    record["events"][index]["data"]["move"]["id"] += "-changed"
    version = index + 1
    result = verify(page, site, record, server.keys())
    assert_failure(result, "hashes", version,
                   f"event {version} (MovePlayed): its hash does not match its content")
    assert result["summary"] == (f"Verification failed at event {version} (MovePlayed): "
                                 "its hash does not match its content")
    # The checks after it still ran: the chain of stored hashes and the seed hold.
    assert check_states(result) == {"format": True, "hashes": False, "chain": True,
                                    "seed": True, "signature": False}


def test_a_removed_event_breaks_the_chain_where_it_was(page: webdriver.Chrome, site: Site,
                                                       server: Server) -> None:
    record = server_record(server)
    index = middle_move(record)
    del record["events"][index]
    result = verify(page, site, record, server.keys())
    # The first envelope where the chain breaks is the one after the gap, version index + 2.
    assert_failure(result, "chain", index + 2, f"version {index + 1} is missing")
    assert check_states(result)["hashes"] is True
    assert result["events"] == len(record["events"])


def test_the_first_place_that_fails_is_named_whichever_check_finds_it(
        page: webdriver.Chrome, site: Site, server: Server) -> None:
    """Event 20 removed and a move after 40 changed: hashes (checked first) fail at the
    changed move, the chain at 21; the record first fails at 21, and the verdict says so."""
    record = server_record(server)
    changed = next(e for e in record["events"] if e["type"] == "MovePlayed" and e["v"] > 40)
    changed["data"]["move"]["id"] += "-changed"
    del record["events"][19]
    result = verify(page, site, record, server.keys())
    assert result["failure"]["check"] == "chain", result["failure"]
    assert result["failure"]["version"] == 21, result["failure"]
    assert result["summary"].startswith("Verification failed at event 21 "), result["summary"]
    assert check_states(result) == {"format": True, "hashes": False, "chain": False,
                                    "seed": True, "signature": False}
    hashes = next(c for c in result["checks"] if c["name"] == "hashes")
    assert f"event {changed['v']} (MovePlayed)" in hashes["detail"]  # still listed


def test_reordered_or_repeated_events_break_the_chain(page: webdriver.Chrome, site: Site,
                                                      server: Server) -> None:
    record = server_record(server)
    index = middle_move(record)
    events = record["events"]
    events[index], events[index + 1] = events[index + 1], events[index]
    result = verify(page, site, record, server.keys())
    assert_failure(result, "chain", index + 2,
                   f"version {index + 1} is missing (the event before it is version {index})")

    record = server_record(server)
    record["events"].insert(index + 1, copy.deepcopy(record["events"][index]))
    result = verify(page, site, record, server.keys())
    assert_failure(result, "chain", index + 1, f"event {index + 1} (MovePlayed): it comes "
                   f"after version {index + 1}, so it should be version {index + 2}")
    assert check_states(result)["hashes"] is True


def test_a_resealed_chain_still_fails_its_signature(page: webdriver.Chrome, site: Site,
                                                    server: Server) -> None:
    """A forger who removes a move and re-seals the chain gets hashes and chain right, but
    not the signature."""
    record = server_record(server)
    del record["events"][middle_move(record)]
    record["events"] = reseal(record["events"])
    result = verify(page, site, record, server.keys())
    assert_failure(result, "signature", None, "does not match the record")


def test_a_changed_seed_fails_the_seed_check(page: webdriver.Chrome, site: Site,
                                             server: Server) -> None:
    record = server_record(server)
    record["seed"] = bytes(b ^ 0x5A for b in bytes.fromhex(record["seed"])).hex()
    result = verify(page, site, record, server.keys())
    assert_failure(result, "seed", None, "the seed: its SHA-256 is not the commitment "
                                         "published at creation (in event 1 (GameCreated))")
    assert check_states(result) == {"format": True, "hashes": True, "chain": True,
                                    "seed": False, "signature": False}


def test_a_seed_with_its_own_commitment_is_not_the_one_published(
        page: webdriver.Chrome, site: Site, server: Server) -> None:
    """Another seed with a top-level commitment of its own, even re-signed by the server's
    key, is refused: the commitment that counts is GameCreated's."""
    record = server_record(server)
    seed = bytes(32)
    record["seed"] = seed.hex()
    record["seed_commitment"] = hashlib.sha256(seed).hexdigest()
    result = verify(page, site, server.sign(record), server.keys())
    assert_failure(result, "seed", None, "not the commitment published at creation")
    assert check_states(result)["signature"] is True


def test_seed_revealed_with_another_seed_is_named(page: webdriver.Chrome, site: Site,
                                                  server: Server) -> None:
    """A re-sealed, re-signed record whose SeedRevealed shows another seed: only the seed
    check fails, at SeedRevealed's version."""
    record = server_record(server)
    index = index_of(record, "SeedRevealed")
    record["events"][index]["data"]["seed"] = "00" * 32
    record["events"] = reseal(record["events"])
    result = verify(page, site, server.sign(record), server.keys())
    assert_failure(result, "seed", index + 1,
                   f"event {index + 1} (SeedRevealed): it reveals another seed")
    assert check_states(result)["signature"] is True


@pytest.mark.parametrize("change", ["value", "last-character", "header", "key-id"])
def test_a_changed_signature_or_header_fails_the_signature(
        page: webdriver.Chrome, site: Site, server: Server, change: str) -> None:
    record = server_record(server)
    signature = record["signature"]
    value = signature["value"]
    expected = "does not match the record"
    if change == "value":
        middle = len(value) // 2
        signature["value"] = value[:middle] + ("A" if value[middle] != "A" else "B") + \
            value[middle + 1:]
    elif change == "last-character":
        # 4 unused bits: a lenient decoder reads this as the same 64 bytes; we must not.
        last = {"A": "B", "Q": "R", "g": "h", "w": "x"}[value[-1]]
        signature["value"] = value[:-1] + last
        expected = "not the canonical unpadded base64url of 64 bytes"
    elif change == "header":
        record["game"]["seats"][1]["name"] = "mallory"
    else:
        signature["key_id"] = "0123456789abcdef"
        expected = 'its key_id "0123456789abcdef" is not the id of its public key'
    result = verify(page, site, record, server.keys())
    assert_failure(result, "signature", None, expected)
    assert result["keyId"] == signature["key_id"]


def test_a_key_the_server_does_not_publish_is_named(page: webdriver.Chrome, site: Site,
                                                    server: Server) -> None:
    """A sound signature by a key that GET /v1/keys does not list: not from this server."""
    record = server_record(server)
    key_id = record["signature"]["key_id"]
    result = verify(page, site, record)  # the golden keys: another server's
    assert_failure(result, "signature", None,
                   f"the signature: key {key_id} is not published by this server")
    assert "93415e6cf1c2de72" in result["failure"]["detail"]
    assert check_states(result) == {"format": True, "hashes": True, "chain": True,
                                    "seed": True, "signature": False}
    result = verify(page, site, record, {"keys": []})
    assert_failure(result, "signature", None, "is not published by this server")


def test_a_published_key_document_must_hold_its_own_ids(page: webdriver.Chrome, site: Site,
                                                        server: Server) -> None:
    record = server_record(server)
    keys = server.keys()
    wrong = copy.deepcopy(keys)
    wrong["keys"][0]["public_key"] = json.loads((GOLDEN / "keys.json").read_text())[
        "keys"][0]["public_key"]
    result = verify(page, site, record, wrong)
    assert_failure(result, "signature", None, "is not an Ed25519 public key under its own id")
    result = verify(page, site, record, {"no": "keys"})
    assert_failure(result, "signature", None, 'not a {"keys": [...]} document')


def test_a_float_written_as_an_integer_fails_its_hash(page: webdriver.Chrome,
                                                      site: Site) -> None:
    """The golden trajan record's GameScored holds `25.0`; the same text with `25` instead
    (what a JSON.parse round trip writes) no longer matches its hash."""
    name = "trajan-2p-r1.json"
    text = (GOLDEN / name).read_text()
    lines = text.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"type": "GameScored"' in line)
    assert '"mu": 25.0' in lines[at]
    version = json.loads(lines[at].rstrip().rstrip(","))["v"]
    lines[at] = lines[at].replace('"mu": 25.0', '"mu": 25')
    result = verify(page, site, "".join(lines))
    assert_failure(result, "hashes", version,
                   f"event {version} (GameScored): its hash does not match its content")
    assert check_states(result)["signature"] is False


def test_an_incomplete_record_is_refused_but_its_signature_checked(
        page: webdriver.Chrome, site: Site, server: Server) -> None:
    """A game still in play: its record is a redacted view without hashes or seed. Format
    fails first; the signature, the only check that applies, still passes."""
    table, envelopes = _played("res-publica-2230ad", 6)
    record = server.sign(build_record(table, list(envelopes), None, [0]))
    assert record["complete"] is False
    result = verify(page, site, record, server.keys())
    assert_failure(result, "format", None, "not a complete record")
    assert check_states(result) == {"format": False, "hashes": False, "chain": False,
                                    "seed": False, "signature": True}
    assert result["events"] == len(envelopes)


@pytest.mark.parametrize("text, detail", [
    ('{"hello": 1}', '"format" is missing, not "meeple-record/1"'),
    ("[1, 2, 3]", "it is an array, not a JSON object"),
    ("null", "it is null, not a JSON object"),
    ('"meeple-record/1"', "it is a string, not a JSON object"),
    ('{"format": "meeple-record/1", "complete": true, "events": {}, "seed": "00"}',
     '"events" is not a non-empty array'),
    ('{"format": "meeple-record/1", "complete": true, "events": [1], "seed": "00"}',
     "the event at position 1 is not a JSON object"),
    ('{"format": "meeple-record/1", "complete": true, "events": [{}], "seed": null}',
     '"seed" is null, not a string'),
    ('{"format": "meeple-record/1", "events": [', "it is not valid JSON (unexpected end"),
    ("<!doctype html><title>502 Bad Gateway</title>", "it is not valid JSON"),
    ("", "it is not valid JSON"),
])
def test_what_is_not_a_record_fails_its_format(page: webdriver.Chrome, site: Site, text: str,
                                               detail: str) -> None:
    result = verify(page, site, text)
    assert_failure(result, "format", None, f"the record's format: {detail}")
    assert result["keyId"] is None


def test_a_duplicate_key_makes_the_record_invalid(page: webdriver.Chrome, site: Site) -> None:
    """Python keeps the last of two equal keys, other readers the first: refused outright."""
    text = (VECTORS / "record.json").read_text()
    assert text.count('"by": "p_alice"') >= 1
    doubled = text.replace('"by": "p_alice"', '"by": "p_mallory", "by": "p_alice"', 1)
    result = verify(page, site, doubled)
    assert_failure(result, "format", None, 'the key "by" appears twice in one object')
    assert all(c["detail"] == "not checked: the record could not be read"
               for c in result["checks"][1:])


def test_any_argument_resolves_to_a_verdict(page: webdriver.Chrome) -> None:
    """Not text, or no keys at all: a failed verdict, never a rejected promise."""
    got = in_page(page, """
        const {verifyRecord} = window.meeple;
        const record = await (await fetch("/vector-record.json")).text();
        return [await verifyRecord(undefined, null), await verifyRecord({}, {}),
                await verifyRecord(record, undefined), await verifyRecord(record, "keys")];
    """)
    assert [r["failure"]["check"] for r in got] == ["format", "format", "signature",
                                                    "signature"]
    assert "expected the record's text (a string), not undefined" in got[0]["summary"]
    assert "expected the record's text (a string), not an object" in got[1]["summary"]
    assert all(r["ok"] is False and r["failure"]["version"] is None for r in got)
    assert [c["ok"] for c in got[2]["checks"]] == [True, True, True, True, False]
