// A finished game, version by version, as any seat saw it or as everyone; then its record
// verified in this browser (verify.js): hashes, chain, seed commitment, signature.
import {
  api, allEvents, element, eventLines, renderSections, showError, typeTitle,
} from "./api.js";
import { verifyRecord } from "./verify.js";

const root = document.getElementById("replay");
const gameId = root.dataset.gameId;
const $ = (id) => document.getElementById(id);
const slider = $("version");
let events = [];
let names = [];
let asked = 0; // the newest render asked for: an older answer arriving late is dropped

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
  const wanted = Number(new URLSearchParams(window.location.search).get("v")) || 1;
  await show(Math.min(Math.max(wanted, 1), events.length));
  performance.mark("meeple:first-render"); // the table is on the page (measured by tests/web)
  verify(game);
}

async function show(version) {
  const ticket = ++asked;
  slider.value = String(version);
  $("version-out").textContent = String(version);
  $("at-version").textContent = String(version);
  root.dataset.version = String(version);
  const lines = eventLines(events[version - 1], names);
  $("step-lines").replaceChildren(...(lines.length ? lines : [`(${events[version - 1].type})`])
    .map((line) => element("li", { textContent: line })));
  const seat = $("as-seat").value;
  const seats = seat === "everyone" ? names.map((_, index) => index) : [Number(seat)];
  try {
    const tables = await Promise.all(seats.map((s) =>
      api(`/v1/games/${gameId}/table?version=${version}&seat=${s}`)));
    if (ticket !== asked) return;
    const sections = seat === "everyone"
      ? tables.flatMap((table, i) => table.sections.map((section) =>
        ({ title: `${names[seats[i]]} sees: ${section.title}`, lines: section.lines })))
      : tables[0].sections;
    renderSections($("sections"), sections);
    root.dataset.shown = String(version); // for tests: this version's table is on the page
  } catch (error) {
    showError($("replay-error"), error);
  }
}

function step(by) {
  const next = Math.min(Math.max(Number(slider.value) + by, 1), events.length);
  if (next !== Number(slider.value)) show(next);
}

async function verify(game) {
  const status = $("verify-status");
  status.textContent = "Verifying the record…";
  try {
    const [recordResponse, keys] = await Promise.all([
      fetch(`/v1/games/${gameId}/record`), api("/v1/keys")]);
    const text = await recordResponse.text();
    $("record-link").href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    $("record-link").download = `${gameId}.json`;
    const result = await verifyRecord(text, keys);
    status.textContent = result.ok ? `Verified: ${result.summary}.` : result.summary;
    status.className = result.ok ? "ok" : "error";
    root.dataset.verified = result.ok ? "ok" : "failed";
    $("verify-checks").replaceChildren(...result.checks.map((check) => element("li", {
      textContent: `${check.ok ? "✔" : "✘"} ${check.name}: ${check.detail}`,
      className: check.ok ? "ok" : "error",
    })));
  } catch (error) {
    showError(status, error);
    root.dataset.verified = "error";
  }
}

slider.addEventListener("input", () => show(Number(slider.value)));
$("first").addEventListener("click", () => show(1));
$("last").addEventListener("click", () => show(events.length));
$("back").addEventListener("click", () => step(-1));
$("forward").addEventListener("click", () => step(1));
$("as-seat").addEventListener("change", () => show(Number(slider.value)));
document.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLInputElement && event.target.type !== "range") return;
  const moves = { ArrowLeft: -1, ArrowRight: 1 };
  if (event.key in moves) { event.preventDefault(); step(moves[event.key]); }
  if (event.key === "Home") { event.preventDefault(); show(1); }
  if (event.key === "End") { event.preventDefault(); show(events.length); }
});

start().catch((error) => showError($("replay-error"), error));
