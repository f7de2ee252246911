// What every page shares: the viewer's API key (kept in this browser only), calls to the
// public API with it, and the table and log in words, rendered as the API gives them.

const KEY = "meeple.apiKey";
// Read once: every call of one page goes with the same key (or none), even if another tab
// changes it meanwhile; only this page's own setApiKey changes it.
let kept = window.localStorage.getItem(KEY);

export function apiKey() {
  return kept;
}

export function setApiKey(key) {
  kept = key || null;
  if (key) window.localStorage.setItem(KEY, key);
  else window.localStorage.removeItem(KEY);
}

export class ApiError extends Error {
  constructor(status, problem, retryAfter = null) {
    super(problem?.detail || `HTTP ${status}`);
    this.status = status;
    this.code = problem?.code || `http_${status}`;
    this.problem = problem;
    this.retryAfter = retryAfter; // seconds the server asked to wait (429, 503), or null
  }
}

// The seconds of an answer's Retry-After (a number of seconds or an HTTP date), or null.
export function retryAfterOf(response) {
  const value = response.headers.get("Retry-After");
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, (date - Date.now()) / 1000);
}

// How long to wait before trying again after `error` (ms): what the server asked for
// (Retry-After), else 1, 2, 4 … 30 s for the `failures`-th failure in a row.
export function backoff(error, failures) {
  const asked = error instanceof ApiError ? error.retryAfter : null;
  if (asked !== null && asked !== undefined) return Math.min(asked, 120) * 1000 + 100;
  return Math.min(30000, 1000 * 2 ** Math.max(0, failures - 1));
}

// Where this caller stands under the API's rate limit shared by every route (the IETF
// draft's `RateLimit: "all";r=<left>;t=<seconds to the reset>`, on each answer), or null.
let standing = null;

export function noteRateLimit(response) {
  const match = /^"all";r=(\d+);t=(\d+)/.exec((response.headers.get("RateLimit") || "").trim());
  if (match) {
    standing = { left: Number(match[1]), resetAt: performance.now() + Number(match[2]) * 1000 };
  }
}

// The pause (ms) to leave between two batches of `requests` calls so that what is left of
// the caller's allowance lasts until it resets, `reserve` kept for the viewer's own actions
// (a move, a message): next to nothing under a generous limit, about 0.2 s a request
// under the default 300 a minute, the rest of the window once only the reserve is left.
export function paceFor(requests, reserve = 10) {
  if (standing === null) return 0;
  const untilReset = standing.resetAt - performance.now();
  if (untilReset <= 0) return 0; // a new window: the figure is old
  const usable = standing.left - reserve;
  return usable <= 0 ? untilReset : (requests * untilReset) / usable;
}

export const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

// The headers of a call with the viewer's key, if any.
export function authHeaders(key = apiKey(), headers = {}) {
  const sent = { ...headers };
  if (key) sent.Authorization = `Bearer ${key}`;
  return sent;
}

// A JSON call to the API with the viewer's key, if any. Problems (RFC 9457) become
// ApiError, with the server's own words as the message.
export async function api(path, { method = "GET", body, key = apiKey(), headers = {} } = {}) {
  const sent = authHeaders(key, { Accept: "application/json", ...headers });
  if (body !== undefined) sent["Content-Type"] = "application/json";
  // "no-store": a page always wants the game as it is now, for this key. (Chromium was seen
  // to revalidate a stored answer made for another key, despite `Vary: Authorization`, and
  // to show it after a 304: the ETag is the version, the same for every reader.)
  const response = await fetch(path, {
    method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body),
    cache: "no-store",
  });
  noteRateLimit(response);
  const text = await response.text();
  if (!response.ok) throw new ApiError(response.status, problemOf(text), retryAfterOf(response));
  return text ? JSON.parse(text) : null;
}

// A text answer (a record: verified on its exact bytes) with the viewer's key: the response
// and its text; any other answer than 200 is an ApiError.
export async function apiText(path, { key = apiKey() } = {}) {
  const response = await fetch(path, { headers: authHeaders(key), cache: "no-store" });
  noteRateLimit(response);
  const text = await response.text();
  if (response.status !== 200) {
    throw new ApiError(response.status, problemOf(text), retryAfterOf(response));
  }
  return { response, text };
}

function problemOf(text) {
  try {
    const parsed = text ? JSON.parse(text) : null;
    return parsed && typeof parsed === "object" ? parsed : null;
  } catch {
    return null; // not JSON (a proxy's page): the status says it
  }
}

// A game type's title ("Trappist One") from its id ("trappist-one").
export async function typeTitle(typeId) {
  const types = await api("/v1/game-types");
  return types.find((type) => type.id === typeId)?.title || typeId;
}

// Every page of a game's log (the API pages it by 100 up to 500 a page).
export async function allEvents(gameId, after = 0) {
  const events = [];
  let next = after;
  while (next !== null) {
    const page = await api(`/v1/games/${gameId}/events?after=${next}&limit=500`);
    events.push(...page.items);
    next = page.next_after;
  }
  return events;
}

// "Seat 2" (Res Publica, Trobils: from 0) or "Player 3" (Trappist One, Trajan: from 1) in a
// game's text, named as the players are named: the same rule as games/text.py `named`.
export function named(text, names) {
  return text.replace(/\b(?:([Ss]eat)|Player) (\d+)\b/g, (whole, seatWord, number) => {
    const seat = Number(number) - (seatWord ? 0 : 1);
    return seat >= 0 && seat < names.length && names[seat] ? names[seat] : whole;
  });
}

// One event in words (as events/domain/log_text.py writes the emails' lines).
export function eventLines(envelope, names) {
  const data = envelope.data || {};
  const who = (seat) => names[seat] || `Seat ${seat}`;
  switch (envelope.type) {
    case "MovePlayed": return (data.facts || []).map((fact) => named(fact.text, names));
    case "MessagePosted": return [`${who(data.seat)} said: “${data.text}”`];
    case "TurnTimedOut": return [`${who(data.seat)}'s time ran out.`];
    case "PlayerResigned": return [`${who(data.seat)} resigned; a bot plays on for them.`];
    case "SeatTaken": return [`${data.name} sits down at seat ${data.seat}.`];
    case "GameStarted": return ["The game began."];
    case "GameEnded": return ["The game ended."];
    case "SeedRevealed": return ["The secret seed is revealed: the deal can be checked."];
    case "GameScored": return ["The players' ratings were updated."];
    default: return [];
  }
}

// The sections of GET /v1/games/{id}/table as HTML: a heading and a list per section.
export function renderSections(container, sections) {
  container.replaceChildren(...sections.map((section) => {
    const part = element("section", { className: "part" });
    part.append(element("h3", { textContent: section.title }));
    const list = element("ul");
    list.append(...section.lines.map((line) => element("li", { textContent: line })));
    part.append(list);
    return part;
  }));
}

export function element(tag, properties = {}) {
  return Object.assign(document.createElement(tag), properties);
}

export function showError(target, error) {
  target.textContent = error instanceof ApiError
    ? `${error.message} (${error.code})` : String(error.message || error);
}
