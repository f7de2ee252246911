// A table, live: the game as the viewer may see it (a seat's view with their key, a
// spectator's without), its log as it grows, and, for a seat that must act, its legal
// moves as buttons. Everything comes from the public API; the stream says when to look again.
import {
  api, allEvents, ApiError, apiKey, element, eventLines, renderSections, showError, typeTitle,
} from "./api.js";

const root = document.getElementById("game");
const gameId = root.dataset.gameId;
const $ = (id) => document.getElementById(id);
let game = null;
let names = [];
let shown = 0; // the last version in the log on the page
let title = null;
let refreshing = null; // the refresh under way, if any
let lookAgain = false; // something happened while it ran: one more look when it ends

// One refresh at a time. Two at once can finish out of order and put an older state (and
// its stale buttons) over a newer one; so a refresh asked for while one runs only makes
// that one look once more, and every caller waits for the page to be current.
async function refresh() {
  lookAgain = true;
  if (!refreshing) {
    refreshing = (async () => {
      try {
        while (lookAgain) {
          lookAgain = false;
          await refreshOnce();
        }
      } finally {
        refreshing = null; // in the same step as the last check: no request falls between
      }
    })();
  }
  await refreshing;
}

async function refreshOnce() {
  try {
    game = await api(`/v1/games/${gameId}`);
    names = game.seats.map((seat) => seat.name);
    title = title || await typeTitle(game.type);
    $("game-title").textContent = `${title} · table ${gameId}`;
    const seatText = game.seat === null ? "as a spectator" : `as ${names[game.seat]} (seat ${game.seat})`;
    $("game-status").textContent = `${game.status} · version ${game.version} · ${seatText}`;
    $("seat-label").textContent = seatText;
    $("replay-link").hidden = game.status !== "ended";
    const table = await api(`/v1/games/${gameId}/table`);
    $("prompt").textContent = table.prompt || "";
    renderSections($("sections"), table.sections);
    await showMoves();
    $("talk").hidden = game.your_seats.length === 0;
    await catchUpLog();
    root.dataset.version = String(game.version); // for tests and scripts: what is shown
    root.dataset.status = game.status;
  } catch (error) {
    showError($("game-error"), error);
  }
}

async function showMoves() {
  const area = $("moves-area");
  const mine = game.your_seats.filter((seat) => game.actors.includes(seat));
  if (game.status !== "active" || mine.length === 0) {
    area.hidden = true;
    $("moves").replaceChildren();
    return;
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
    $("game-error").textContent = "";
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) {
      $("game-error").textContent = "The game moved on before your move: here it is now.";
    } else {
      showError($("game-error"), error);
    }
  }
  await refresh();
}

async function catchUpLog() {
  if (game.version <= shown) return;
  const fresh = await allEvents(gameId, shown);
  appendToLog(fresh);
}

function appendToLog(envelopes) {
  const log = $("log");
  for (const envelope of envelopes) {
    if (envelope.v <= shown) continue;
    shown = envelope.v;
    for (const line of eventLines(envelope, names)) {
      const item = element("li", { textContent: line });
      item.dataset.v = String(envelope.v);
      if (envelope.type === "MessagePosted") item.className = "talk";
      log.append(item);
    }
  }
}

// The live stream (NDJSON through fetch, so that the key goes in a header, as EventSource
// cannot send one). Each batch of events means: look again. A dropped stream resumes.
async function follow() {
  for (;;) {
    try {
      const headers = { Accept: "application/x-ndjson" };
      if (apiKey()) headers.Authorization = `Bearer ${apiKey()}`;
      const response = await fetch(`/v1/games/${gameId}/stream?after=${shown}`, { headers });
      if (!response.ok) throw new Error(`stream: HTTP ${response.status}`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        const lines = buffer.split("\n");
        buffer = lines.pop();
        if (lines.some((line) => line.trim())) await refresh();
      }
      if (game && game.status === "ended") return; // the stream ends with the game
    } catch (error) {
      showError($("game-error"), error);
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
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
    showError($("game-error"), error);
  }
});

await refresh();
performance.mark("meeple:first-render"); // the table is on the page (measured by tests/web)
follow();
