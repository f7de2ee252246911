// A table, live: the game as the viewer may see it (a seat's view with their key, a
// spectator's without), its log as it grows, and, for a seat that must act, its legal
// moves as buttons. Everything comes from the public API; the stream says when to look again.
//
// Light on the API (its rate limit counts every request: 300 a minute by default): the log
// is built from the stream's own lines (no GET …/events), a spectator reads the game's
// summary again only when an event changed it (seats, start, end), refreshes are coalesced
// (one at a time, then at most one more, at most two a second) and paced by what the API
// says is left of the caller's allowance (RateLimit), and a refused or failed one is tried
// again after Retry-After, or a growing pause.
import {
  api, ApiError, apiKey, authHeaders, backoff, element, eventLines, noteRateLimit, paceFor,
  renderSections, retryAfterOf, showError, sleep, typeTitle,
} from "./api.js";

const root = document.getElementById("game");
const gameId = root.dataset.gameId;
const $ = (id) => document.getElementById(id);
// Events after which the game's summary (seats, status, whose turn) is read again.
const CHANGES_THE_GAME = new Set(["SeatTaken", "GameStarted", "GameEnded", "PlayerResigned",
  "TurnTimedOut", "SeedRevealed"]);
const MIN_GAP_MS = 500; // between the starts of two refreshes
const GONE = new Set([401, 403, 404]); // no game to follow, for this viewer

let game = null;
let names = [];
let shown = 0; // the last version in the log on the page
let title = null;
let needGame = true; // the game's summary must be read (again)
let gone = false; // the API said there is no such game (for this viewer): stop looking
let refreshing = null; // the refresh loop under way, if any
let lookAgain = false; // something happened while it ran: one more look when it ends
let lastStart = -Infinity; // when the last refresh began (performance.now())
let lastCost = 1; // the requests it made: the next one is expected to cost as much
let notBefore = 0; // no refresh before this: the pause after a failure
let failures = 0; // refreshes failed in a row
let refreshFailed = false; // the error on the page is a refresh's: cleared by a good one

// One refresh at a time. Two at once can finish out of order and put an older state (and
// its stale buttons) over a newer one; so a refresh asked for while one runs only makes
// that one look once more, and every caller waits for the page to be current. A failed
// refresh is tried again (Retry-After, else 1, 2, 4 … 30 s): the page never stops looking.
function refresh() {
  lookAgain = true;
  if (!refreshing && !gone) refreshing = refreshLoop();
  return refreshing || Promise.resolve();
}

async function refreshLoop() {
  try {
    while (lookAgain && !gone) {
      const now = performance.now();
      const wait = Math.max(lastStart + Math.max(MIN_GAP_MS, paceFor(lastCost)) - now,
                            notBefore - now);
      if (wait > 0) await sleep(wait);
      lookAgain = false;
      lastStart = performance.now();
      await refreshOnce();
    }
  } finally {
    refreshing = null; // in the same step as the last check: no request falls between
  }
}

async function refreshOnce() {
  let cost = 0;
  try {
    const mine = () => game !== null && game.your_seats.length > 0;
    // A player needs whose turn it is at every look; a spectator only when it changed.
    if (needGame || mine()) {
      needGame = false;
      try {
        game = await api(`/v1/games/${gameId}`);
      } catch (error) {
        needGame = true;
        throw error;
      } finally {
        cost += 1;
      }
      names = game.seats.map((seat) => seat.name);
      if (!title) {
        cost += 1;
        title = await typeTitle(game.type);
      }
      $("game-title").textContent = `${title} · table ${gameId}`;
      $("replay-link").hidden = game.status !== "ended";
      $("talk").hidden = game.your_seats.length === 0;
      showJoin();
    }
    cost += 1;
    const table = await api(`/v1/games/${gameId}/table`);
    const version = mine() ? game.version : Math.max(table.version, game.version);
    const seatText = game.seat === null ? "as a spectator"
      : `as ${names[game.seat]} (seat ${game.seat})`;
    $("game-status").textContent = `${game.status} · version ${version} · ${seatText}`;
    $("seat-label").textContent = seatText;
    $("prompt").textContent = table.prompt || "";
    renderSections($("sections"), table.sections);
    cost += await showMoves();
    root.dataset.version = String(version); // for tests and scripts: what is shown
    root.dataset.status = game.status;
    failures = 0;
    notBefore = 0;
    if (refreshFailed) {
      refreshFailed = false;
      $("game-error").textContent = "";
    }
  } catch (error) {
    if (error instanceof ApiError && GONE.has(error.status)) {
      stop(error);
      return;
    }
    failures += 1;
    const pause = backoff(error, failures);
    notBefore = performance.now() + pause;
    lookAgain = true; // the page looks again after the pause, stream or no stream
    showError($("game-error"), error);
    $("game-error").textContent += ` Trying again in ${Math.ceil(pause / 1000)} s.`;
    refreshFailed = true;
  } finally {
    lastCost = Math.max(cost, 1);
  }
}

// No such game here, or not one this viewer may see: say so, and stop looking.
function stop(error) {
  gone = true;
  lookAgain = false;
  $("game-status").textContent = error.status === 401 ? "Your API key was not accepted."
    : "There is no such game here (or it is private, and not yours).";
  showError($("game-error"), error);
  root.dataset.status = "gone";
  $("moves-area").hidden = true;
  $("join").hidden = true;
}

// The requests it made (0 or 1).
async function showMoves() {
  const area = $("moves-area");
  const mine = game.your_seats.filter((seat) => game.actors.includes(seat));
  if (game.status !== "active" || mine.length === 0) {
    area.hidden = true;
    $("moves").replaceChildren();
    return 0;
  }
  const listed = await api(`/v1/games/${gameId}/moves?seat=${mine[0]}`);
  area.hidden = false;
  $("moves").dataset.version = String(listed.version); // the version these moves are legal at
  $("moves-note").textContent = listed.prompt || "";
  $("moves").replaceChildren(...listed.moves.map((move) => {
    const button = element("button", { type: "button", textContent: move.label || move.id });
    button.dataset.moveId = move.id;
    button.addEventListener("click", () => play(listed, move));
    return button;
  }));
  return 1;
}

// An open table, a viewer with a key and no seat at it: they may sit down.
function showJoin() {
  const join = $("join");
  join.hidden = !(game.status === "open" && root.dataset.hasKey === "yes" &&
                  game.your_seats.length === 0);
}

function showActionError(error) {
  refreshFailed = false; // this message stays until the viewer's next action
  showError($("game-error"), error);
}

// Play one move guarded by the version it was listed at: if someone moved first (409), the
// page refreshes and the player chooses again from what is legal now.
async function play(listed, move) {
  for (const button of $("moves").querySelectorAll("button")) button.disabled = true;
  try {
    await api(`/v1/games/${gameId}/moves`, {
      method: "POST",
      body: { expected_version: listed.version, seat: listed.seat, moves: [{ id: move.id }] },
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    refreshFailed = false;
    $("game-error").textContent = "";
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) {
      refreshFailed = false;
      $("game-error").textContent = "The game moved on before your move: here it is now.";
    } else {
      showActionError(error);
    }
  }
  await refresh();
}

function appendToLog(envelopes) {
  const log = $("log");
  for (const envelope of envelopes) {
    if (envelope.v <= shown) continue;
    shown = envelope.v;
    if (CHANGES_THE_GAME.has(envelope.type) && envelope.v > Number(root.dataset.version || 0)) {
      needGame = true; // not one the game on the page has seen already
    }
    for (const line of eventLines(envelope, names)) {
      const item = element("li", { textContent: line });
      item.dataset.v = String(envelope.v);
      if (envelope.type === "MessagePosted") item.className = "talk";
      log.append(item);
    }
  }
}

// The live stream (NDJSON through fetch, so that the key goes in a header, as EventSource
// cannot send one). Its lines are the log's events, as this viewer may see them; each batch
// means: look again (coalesced). A dropped stream resumes after the last event shown; a
// refused one after Retry-After or a growing pause; a game that is not there is not followed.
async function follow() {
  let streamFailures = 0;
  while (!gone) {
    let pause = null;
    try {
      const response = await fetch(`/v1/games/${gameId}/stream?after=${shown}`,
        { headers: authHeaders(undefined, { Accept: "application/x-ndjson" }), cache: "no-store" });
      noteRateLimit(response);
      if (!response.ok) {
        let problem = null;
        try { problem = await response.json(); } catch { /* not a problem document */ }
        throw new ApiError(response.status, problem, retryAfterOf(response));
      }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      let ended = false;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        const lines = buffer.split("\n");
        buffer = lines.pop();
        const envelopes = lines.filter((line) => line.trim()).map((line) => JSON.parse(line));
        if (envelopes.length === 0) continue; // a keepalive
        streamFailures = 0;
        appendToLog(envelopes);
        ended = ended || envelopes.some((envelope) => envelope.type === "SeedRevealed");
        // Not awaited: the stream is read on meanwhile, the refreshes coalesce. (The log
        // before the version on the page, sent first, needs no look.)
        const newest = envelopes[envelopes.length - 1].v;
        if (newest > Number(root.dataset.version || 0) || needGame) refresh();
      }
      if (ended || (game && game.status === "ended")) return; // the stream ends with the game
    } catch (error) {
      if (error instanceof ApiError && GONE.has(error.status)) {
        stop(error);
        return;
      }
      streamFailures += 1;
      pause = backoff(error, streamFailures);
      if (!refreshFailed) {
        showError($("game-error"), error);
        refreshFailed = true; // cleared by the next good refresh
      }
    }
    await sleep(pause ?? 1000);
  }
}

$("talk").addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = $("talk-text").value.trim();
  if (!text) return;
  try {
    await api(`/v1/games/${gameId}/messages`, { method: "POST", body: { text } });
    $("talk-text").value = "";
    await refresh();
  } catch (error) {
    showActionError(error);
  }
});

$("join").addEventListener("click", async () => {
  $("join").disabled = true;
  try {
    await api(`/v1/games/${gameId}/join`, {
      method: "POST", body: {}, headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    needGame = true;
    $("join").hidden = true;
    await refresh();
  } catch (error) {
    showActionError(error);
  } finally {
    $("join").disabled = false;
  }
});

root.dataset.hasKey = apiKey() ? "yes" : "no";
await refresh();
performance.mark("meeple:first-render"); // the table is on the page (measured by tests/web)
if (!gone) follow();
