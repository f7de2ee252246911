// A finished game, version by version, as any seat saw it or as everyone; then its record
// verified in this browser (verify.js): hashes, chain, seed commitment, signature, and that
// the record is this game's (its id, and the very events replayed here).
//
// Light on the API (its rate limit counts every request): steps are debounced, one
// version's tables are fetched at a time (the newest asked for next), tables already seen
// are kept, requests are paced by what is left of the caller's allowance (RateLimit), and
// a refused fetch waits as long as the server asks (Retry-After). The heading
// names the version of the table under it: it changes only when that table has arrived.
import {
  api, allEvents, ApiError, apiText, backoff, element, eventLines, paceFor, renderSections,
  showError, sleep, typeTitle,
} from "./api.js";
import { verifyRecord } from "./verify.js";

const root = document.getElementById("replay");
const gameId = root.dataset.gameId;
const $ = (id) => document.getElementById(id);
const slider = $("version");
const DEBOUNCE_MS = 150; // a held key or a dragged slider asks once it rests
const KEPT = 300; // tables kept (version and seat): stepping back costs no request
let events = [];
let names = [];
let wanted = 1; // the version asked for (slider, keys)
let timer = null; // the debounce of the next fetch
let fetching = false; // one version's tables at a time
const tables = new Map(); // `${version}:${seat}` → its table, the newest last

async function start() {
  const game = await api(`/v1/games/${gameId}`);
  names = game.seats.map((seat) => seat.name);
  $("game-title").textContent = `Replay of ${await typeTitle(game.type)} · ${gameId}`;
  if (game.status !== "ended") {
    $("replay-error").textContent = "This game is not over: its replay opens once it has ended.";
    $("controls").hidden = true;
    return;
  }
  events = await allEvents(gameId);
  slider.max = String(events.length);
  $("last-version").textContent = String(events.length);
  for (const seat of game.seats) {
    $("as-seat").append(element("option", { value: String(seat.seat),
                                            textContent: `${seat.name} (seat ${seat.seat})` }));
  }
  const asked = Number(new URLSearchParams(window.location.search).get("v")) || 1;
  ask(asked, { now: true });
  await showWanted();
  performance.mark("meeple:first-render"); // the table is on the page (measured by tests/web)
  verify();
}

// Ask for a version: the controls follow at once, the table once it rests and has arrived.
function ask(version, { now = false } = {}) {
  wanted = Math.min(Math.max(version, 1), events.length);
  slider.value = String(wanted);
  $("version-out").textContent = String(wanted);
  root.dataset.wanted = String(wanted);
  clearTimeout(timer);
  timer = now ? null : setTimeout(() => { timer = null; showWanted(); }, DEBOUNCE_MS);
}

// Fetch and show the version asked for; if another was asked for meanwhile, that one next.
async function showWanted() {
  if (fetching) return;
  fetching = true;
  try {
    let failures = 0;
    for (;;) {
      const version = wanted;
      const seat = $("as-seat").value;
      const shownKey = `${root.dataset.shown}:${root.dataset.seat}`;
      if (shownKey === `${version}:${seat}`) break;
      try {
        const sections = await sectionsAt(version, seat);
        render(version, seat, sections);
        failures = 0;
        $("replay-error").textContent = "";
      } catch (error) {
        failures += 1;
        const pause = backoff(error, failures);
        showError($("replay-error"), error);
        $("replay-error").textContent += ` Trying again in ${Math.ceil(pause / 1000)} s.`;
        await sleep(pause);
      }
      if (timer !== null) break; // a newer step rests first: its timer calls again
    }
  } finally {
    fetching = false;
  }
}

async function sectionsAt(version, seat) {
  const seats = seat === "everyone" ? names.map((_, index) => index) : [Number(seat)];
  const answers = [];
  for (const s of seats) answers.push(await tableAt(version, s)); // one request at a time
  return seat === "everyone"
    ? answers.flatMap((table, i) => table.sections.map((section) =>
      ({ title: `${names[seats[i]]} sees: ${section.title}`, lines: section.lines })))
    : answers[0].sections;
}

async function tableAt(version, seat) {
  const key = `${version}:${seat}`;
  if (!tables.has(key)) {
    const pause = paceFor(1); // what is left of the allowance lasts until it resets
    if (pause > 0) await sleep(pause);
    tables.set(key, await api(`/v1/games/${gameId}/table?version=${version}&seat=${seat}`));
    if (tables.size > KEPT) tables.delete(tables.keys().next().value);
  }
  return tables.get(key);
}

// The table of `version`, its heading and its step's log lines, together.
function render(version, seat, sections) {
  renderSections($("sections"), sections);
  $("at-version").textContent = String(version);
  const lines = eventLines(events[version - 1], names);
  $("step-lines").replaceChildren(...(lines.length ? lines : [`(${events[version - 1].type})`])
    .map((line) => element("li", { textContent: line })));
  root.dataset.seat = seat;
  root.dataset.version = String(version);
  root.dataset.shown = String(version); // for tests: this version's table is on the page
}

function step(by) {
  const next = Math.min(Math.max(wanted + by, 1), events.length);
  if (next !== wanted) ask(next);
}

// --- verification ------------------------------------------------------------------------

// `Meeple-Imported: signed-by=<key id>; imported-at=<time>` of an imported game's record.
function importedFrom(response) {
  const header = response.headers.get("Meeple-Imported");
  if (!header) return null;
  const fields = Object.fromEntries(header.split(";").map((part) => part.trim().split("=", 2)));
  return { signedBy: fields["signed-by"] || null, importedAt: fields["imported-at"] || null };
}

function readRecord(text) {
  try {
    const record = JSON.parse(text);
    return record && typeof record === "object" ? record : null;
  } catch {
    return null; // verifyRecord says what is wrong with it
  }
}

// The record is this game's: its id, and its events those replayed here, hash for hash.
function checkThisGame(record) {
  const id = record?.game?.id;
  if (id !== gameId) {
    return { ok: false, detail: `the record is of game ${JSON.stringify(id ?? null)}, not of ` +
      `this game (${gameId})` };
  }
  const recorded = Array.isArray(record.events) ? record.events : [];
  if (recorded.length === 0 || recorded.length > events.length) {
    return { ok: false, detail: `the record holds ${recorded.length} events where the game ` +
      `replayed here has ${events.length}` };
  }
  const differs = recorded.findIndex((envelope, index) => envelope?.hash !== events[index].hash);
  if (differs !== -1) {
    return { ok: false, detail: `event ${differs + 1} of the record is not event ` +
      `${differs + 1} of the game replayed here (their hashes differ)` };
  }
  return { ok: true, detail: `game ${gameId}, and its ${recorded.length.toLocaleString("en-US")} ` +
    "events are the ones replayed on this page" };
}

function unavailable(what, error) {
  const status = $("verify-status");
  const why = error instanceof ApiError ? `HTTP ${error.status}, ${error.code}`
    : String(error.message || error);
  status.textContent = `Could not fetch ${what} (${why}): nothing was verified. ` +
    "Reload the page to try again.";
  status.className = "error";
  root.dataset.verified = "unavailable";
}

async function verify() {
  const status = $("verify-status");
  status.textContent = "Verifying the record…";
  const link = $("record-link");
  let fetched;
  let keys;
  try {
    fetched = await apiText(`/v1/games/${gameId}/record`); // with the viewer's key
  } catch (error) {
    link.removeAttribute("href");
    link.textContent = "not available";
    unavailable("the record", error);
    return;
  }
  // The download is the bytes fetched (with the key: a private game's too).
  link.href = URL.createObjectURL(new Blob([fetched.text], { type: "application/json" }));
  link.download = `${gameId}.json`;
  try {
    keys = await api("/v1/keys");
  } catch (error) {
    unavailable("this server's keys (GET /v1/keys)", error);
    return;
  }
  const record = readRecord(fetched.text);
  const signer = record?.signature?.key_id;
  // An imported game is served with the signature of the server that hosted it: this server
  // says so (Meeple-Imported) and checked it at the import against a key its operator
  // trusts (MEEPLE_TRUSTED_KEYS). That key, the record's own (its id is its hash), is then
  // the one to check, and the page says whose it is.
  const imported = importedFrom(fetched.response);
  const own = Array.isArray(keys?.keys) && keys.keys.some((key) => key?.id === signer);
  const foreign = imported && !own && typeof signer === "string" &&
    imported.signedBy === signer && typeof record?.signature?.public_key === "string";
  const checkedKeys = foreign ? { keys: [...keys.keys, { id: signer, alg: "Ed25519",
    public_key: record.signature.public_key }] } : keys;
  const result = await verifyRecord(fetched.text, checkedKeys);
  const thisGame = checkThisGame(record);
  const ok = result.ok && thisGame.ok;
  const checks = result.checks.map((check) => ({ ...check }));
  const signature = checks.find((check) => check.name === "signature");
  let summary = result.summary;
  if (foreign && result.ok) {
    const whose = `key ${signer} of the server that hosted this game, not one of this ` +
      "server's own: this server imported the game " +
      `${imported.importedAt ? `(${imported.importedAt}) ` : ""}having checked it against ` +
      "the keys its operator trusts for imports (MEEPLE_TRUSTED_KEYS)";
    signature.detail = `Ed25519 signature by ${whose}`;
    summary = summary.replace(`signed by key ${signer}`, `signed by ${whose}`);
    $("verify-command").textContent =
      "meeple verify record.json --keys keys-of-the-server-that-hosted-it.json";
  }
  if (result.ok && !thisGame.ok) summary = `Verification failed at ${thisGame.detail}`;
  checks.push({ name: "this game", ...thisGame });
  status.textContent = ok ? `Verified: ${summary}.` : summary;
  status.className = ok ? "ok" : "error";
  root.dataset.verified = ok ? "ok" : "failed";
  if (foreign) root.dataset.imported = signer;
  $("verify-checks").replaceChildren(...checks.map((check) => element("li", {
    textContent: `${check.ok ? "✔" : "✘"} ${check.name}: ${check.detail}`,
    className: check.ok ? "ok" : "error",
  })));
}

slider.addEventListener("input", () => ask(Number(slider.value)));
$("first").addEventListener("click", () => ask(1));
$("last").addEventListener("click", () => ask(events.length));
$("back").addEventListener("click", () => step(-1));
$("forward").addEventListener("click", () => step(1));
$("as-seat").addEventListener("change", () => ask(wanted));
document.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLInputElement && event.target.type !== "range") return;
  const moves = { ArrowLeft: -1, ArrowRight: 1 };
  if (event.key in moves) { event.preventDefault(); step(moves[event.key]); }
  if (event.key === "Home") { event.preventDefault(); ask(1); }
  if (event.key === "End") { event.preventDefault(); ask(events.length); }
});

start().catch((error) => showError($("replay-error"), error));
