// Verify a Meeple game record (`meeple-record/1`) in the browser, with nothing but the page's
// own JavaScript and WebCrypto: no build step, no dependency, no server call.
//
// The format is docs/records.md; this file implements its three checks (sections 3 to 7):
//
//   hash chain  every event is unchanged, none removed, inserted or reordered;
//   seed        the seed revealed at the end is the one committed to at creation;
//   signature   a key that the server publishes (GET /v1/keys) signed exactly this record.
//
// What these cannot tell (whether the game was played by the rules) is `meeple verify`'s job:
// it re-executes the game (docs/records.md, section 8).
//
// Usage, in a page served over HTTPS or from localhost (WebCrypto exists only there):
//
//   import { verifyRecord } from "./verify.js";  // wherever the site serves this file
//   const text = await (await fetch(`/v1/games/${id}/record`)).text();
//   const keys = await (await fetch("/v1/keys")).json();
//   const result = await verifyRecord(text, keys);   // never rejects
//   result.ok; result.summary;                         // "1,009 events chained; …"
//
// Why the record is read by a parser of our own, not JSON.parse: hashes and the signature are
// computed over a *canonical* JSON text of the parsed value, made by Python's json.dumps, and
// JSON.parse forgets what that text needs: `25.0` (a float, written back `25.0`) becomes the
// same JavaScript number as `25` (an integer, written back `25`), and integers beyond 2^53
// lose digits. So `parseJson` keeps every number token as it was written (a JsonNumber).

const FORMAT = "meeple-record/1";
const GENESIS = "0".repeat(64); // the `prev` of version 1
const CHECKS = ["format", "hashes", "chain", "seed", "signature"]; // the order of `checks`

// --- JSON numbers, as written -------------------------------------------------------------

/** A number token of the record's text, kept exactly as written. A token with `.`, `e` or
 * `E` is a float (Python reads it as a double), any other an integer of any size. */
export class JsonNumber {
  constructor(raw) {
    this.raw = raw;
    this.isFloat = /[.eE]/.test(raw);
  }

  /** The number as JavaScript holds it (may round a big integer: for display only). */
  valueOf() {
    return Number(this.raw);
  }

  toString() {
    return this.raw;
  }
}

// --- parseJson: a strict JSON reader that keeps number tokens ------------------------------

/** Thrown by parseJson; `message` says what is wrong and where (line and column). */
export class JsonSyntaxError extends SyntaxError {
  constructor(message, text, index) {
    const before = text.slice(0, index);
    const line = before.split("\n").length;
    const column = index - before.lastIndexOf("\n");
    super(`${message} at line ${line}, column ${column}`);
    this.name = "JsonSyntaxError";
    this.index = index;
  }
}

// Sticky regular expressions (flag `y`) match exactly at `lastIndex`: the reader moves along
// the text with them instead of looking at one character at a time (records are ~1 MB).
const WHITESPACE = /[ \t\n\r]*/y; // JSON's four whitespace characters, no others
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const PLAIN_CHARS = /[^"\\\u0000-\u001f]*/y; // a run of string characters needing no work
const SHORT_ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r",
                        t: "\t" };

/**
 * Parse JSON text (RFC 8259) as Python's json.loads reads a record, with three differences
 * that make a record invalid rather than ambiguous:
 *   - numbers become JsonNumber objects (the raw token), never JavaScript numbers;
 *   - an object with the same key twice is an error (Python keeps the last, others the first,
 *     so two readers could hash two different records);
 *   - NaN, Infinity, and float tokens too large for a double are errors (not JSON, and
 *     Python cannot write them back).
 * Objects have no prototype, so a key like "__proto__" is an ordinary key.
 * Throws JsonSyntaxError.
 */
export function parseJson(text) {
  if (typeof text !== "string") {
    throw new TypeError(`parseJson expects a string, not ${describeType(text)}`);
  }
  let at = 0;

  const fail = (message, index = at) => {
    throw new JsonSyntaxError(index < text.length ? message : "unexpected end of the text",
      text, index);
  };

  const skipWhitespace = () => {
    WHITESPACE.lastIndex = at;
    WHITESPACE.exec(text);
    at = WHITESPACE.lastIndex;
  };

  const expectWord = (word, value) => {
    if (text.startsWith(word, at)) {
      at += word.length;
      return value;
    }
    return fail("unexpected text");
  };

  const readString = () => {
    const start = at;
    at += 1; // the opening quote
    let result = "";
    for (;;) {
      PLAIN_CHARS.lastIndex = at;
      PLAIN_CHARS.exec(text);
      result += text.slice(at, PLAIN_CHARS.lastIndex);
      at = PLAIN_CHARS.lastIndex;
      if (at >= text.length) return fail("unterminated string", start);
      const char = text[at];
      if (char === '"') {
        at += 1;
        return result;
      }
      if (char !== "\\") return fail("control character in a string (it must be escaped)");
      const escape = text[at + 1];
      if (escape === "u") {
        const hex = text.slice(at + 2, at + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) return fail("bad \\u escape");
        // Each \uXXXX is one UTF-16 unit: an escaped surrogate pair joins up by itself, as
        // in Python. A lone surrogate stays in the string; canonicalJson refuses it later,
        // as Python's UTF-8 encoder does.
        result += String.fromCharCode(parseInt(hex, 16));
        at += 6;
      } else if (escape !== undefined && Object.hasOwn(SHORT_ESCAPES, escape)) {
        result += SHORT_ESCAPES[escape];
        at += 2;
      } else {
        return fail("bad escape in a string");
      }
    }
  };

  const readNumber = () => {
    NUMBER.lastIndex = at;
    const match = NUMBER.exec(text);
    if (!match) return fail("unexpected character");
    const number = new JsonNumber(match[0]);
    if (number.isFloat && !Number.isFinite(Number(number.raw))) {
      return fail(`the number ${number.raw} is too large for a double`);
    }
    at = NUMBER.lastIndex;
    return number;
  };

  const readValue = () => {
    skipWhitespace();
    const char = text[at];
    if (char === "{") return readObject();
    if (char === "[") return readArray();
    if (char === '"') return readString();
    if (char === "t") return expectWord("true", true);
    if (char === "f") return expectWord("false", false);
    if (char === "n") return expectWord("null", null);
    if (char === undefined) return fail("unexpected end of the text");
    return readNumber();
  };

  const readArray = () => {
    at += 1; // [
    const array = [];
    skipWhitespace();
    if (text[at] === "]") {
      at += 1;
      return array;
    }
    for (;;) {
      array.push(readValue());
      skipWhitespace();
      if (text[at] === ",") {
        at += 1;
      } else if (text[at] === "]") {
        at += 1;
        return array;
      } else {
        return fail("expected , or ] in an array");
      }
    }
  };

  const readObject = () => {
    at += 1; // {
    const object = Object.create(null);
    skipWhitespace();
    if (text[at] === "}") {
      at += 1;
      return object;
    }
    for (;;) {
      skipWhitespace();
      if (text[at] !== '"') return fail("expected a key (a string) in an object");
      const keyAt = at;
      const key = readString();
      if (Object.hasOwn(object, key)) {
        return fail(`the key ${JSON.stringify(key)} appears twice in one object`, keyAt);
      }
      skipWhitespace();
      if (text[at] !== ":") return fail("expected : after a key");
      at += 1;
      object[key] = readValue();
      skipWhitespace();
      if (text[at] === ",") {
        at += 1;
      } else if (text[at] === "}") {
        at += 1;
        return object;
      } else {
        return fail("expected , or } in an object");
      }
    }
  };

  const value = readValue();
  skipWhitespace();
  if (at !== text.length) fail("unexpected text after the JSON value");
  return value;
}

// --- canonicalJson: Python's json.dumps(sort_keys, compact, ensure_ascii=False) ------------

// The only characters escaped (docs/records.md, section 3): `"`, `\` and U+0000 to U+001F.
const ESCAPED = /["\\\u0000-\u001f]/g;
const ESCAPES = { '"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n",
                  "\f": "\\f", "\r": "\\r" };
// With the `u` flag a well-formed surrogate pair is one code point, so this matches only a
// lone surrogate, which has no UTF-8 form (Python raises; TextEncoder would silently write
// U+FFFD and hash a different text).
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * The canonical JSON text of `value`, over whose UTF-8 bytes hashes and signatures are made:
 * exactly the text of Python's
 *   json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
 *              allow_nan=False)
 * for the value Python would have read. Values: what parseJson returns (objects, arrays,
 * strings, true, false, null, JsonNumber). For convenience a JavaScript number is taken as
 * an integer when it is a safe integer, else as a float, and a bigint as an integer; write a
 * float with an integral value (25.0) as a JsonNumber. Throws TypeError for anything else,
 * NaN, the infinities and lone surrogates.
 */
export function canonicalJson(value) {
  const parts = [];
  writeCanonical(value, parts);
  return parts.join("");
}

function writeCanonical(value, parts) {
  if (value === null) {
    parts.push("null");
  } else if (value === true || value === false) {
    parts.push(String(value));
  } else if (typeof value === "string") {
    parts.push(canonicalString(value));
  } else if (value instanceof JsonNumber) {
    parts.push(value.isFloat ? floatRepr(Number(value.raw)) : canonicalInteger(value.raw));
  } else if (typeof value === "number") {
    parts.push(Number.isSafeInteger(value) ? String(value) : floatRepr(value));
  } else if (typeof value === "bigint") {
    parts.push(value.toString());
  } else if (Array.isArray(value)) {
    parts.push("[");
    value.forEach((item, index) => {
      if (index > 0) parts.push(",");
      writeCanonical(item, parts);
    });
    parts.push("]");
  } else if (typeof value === "object" && isPlainObject(value)) {
    parts.push("{");
    Object.keys(value).sort(compareCodePoints).forEach((key, index) => {
      if (index > 0) parts.push(",");
      parts.push(canonicalString(key), ":");
      writeCanonical(value[key], parts);
    });
    parts.push("}");
  } else {
    throw new TypeError(`not a JSON value: ${describeType(value)}`);
  }
}

function isPlainObject(value) {
  const prototype = Object.getPrototypeOf(value);
  return prototype === null || prototype === Object.prototype;
}

function canonicalString(text) {
  if (LONE_SURROGATE.test(text)) {
    throw new TypeError("a string holds a lone surrogate, which has no UTF-8 form");
  }
  return `"${text.replace(ESCAPED, (char) => ESCAPES[char] ??
    `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)}"`;
}

/** An integer token as Python writes the int it reads: the same digits, except that `-0`
 * (which JSON allows) is the int 0, written `0`. JSON has no leading zeros or `+`. */
function canonicalInteger(raw) {
  return /^-0+$/.test(raw) ? "0" : raw;
}

/**
 * A double as Python's repr(float) writes it: the shortest digits that read back as the same
 * double, positional when the decimal exponent is in range (25.0, 0.0001,
 * 1234567890123456.0), else in exponent form (1e+16, 1e-05, 5e-324).
 */
function floatRepr(x) {
  if (!Number.isFinite(x)) throw new TypeError(`${x} is not JSON (Python: allow_nan=False)`);
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  // String(x) gives the shortest round-trip digits, as repr does; only its layout differs
  // (String: "1e+21", "1e-7", "25"). Take the digits and the exponent out of it, whichever
  // layout it used: x = 0.DIGITS × 10^point.
  const [mantissa, exponent = "0"] = String(Math.abs(x)).split("e");
  const [whole, fraction = ""] = mantissa.split(".");
  let digits = whole + fraction;
  let point = whole.length + Number(exponent);
  const leadingZeros = digits.length - digits.replace(/^0+/, "").length;
  digits = digits.slice(leadingZeros).replace(/0+$/, "");
  point -= leadingZeros;
  // Python's rule (float_repr_style "short", repr): positional when -4 < point <= 16.
  if (point > -4 && point <= 16) {
    if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
    if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}.0`;
    return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  }
  const power = point - 1; // d.ddd × 10^power
  const rest = digits.length > 1 ? `.${digits.slice(1)}` : "";
  const powerText = String(Math.abs(power)).padStart(2, "0");
  return `${sign}${digits[0]}${rest}e${power < 0 ? "-" : "+"}${powerText}`;
}

/** Compare strings by Unicode code point, as Python sorts str (and as UTF-8 bytes sort).
 * JavaScript's `<` compares UTF-16 units, which puts U+10000 and above before U+E000. */
function compareCodePoints(a, b) {
  if (a === b) return 0;
  const left = Array.from(a);
  const right = Array.from(b);
  const length = Math.min(left.length, right.length);
  for (let i = 0; i < length; i += 1) {
    const difference = left[i].codePointAt(0) - right[i].codePointAt(0);
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}

// --- bytes: hex, base64url, SHA-256, Ed25519 -----------------------------------------------

const encoder = new TextEncoder();

function subtle() {
  // WebCrypto is only there in a secure context: an https: page, or http://localhost.
  const crypto = globalThis.crypto;
  if (!crypto || !crypto.subtle) {
    throw new Error("this page has no WebCrypto (crypto.subtle): open it over HTTPS " +
                    "or from localhost");
  }
  return crypto.subtle;
}

async function sha256Hex(bytes) {
  return toHex(new Uint8Array(await subtle().digest("SHA-256", bytes)));
}

function toHex(bytes) {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function fromHex(hex) {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** Unpadded base64url (RFC 4648 §5) of exactly `size` bytes, in its one canonical form, or
 * null. Strict on purpose (docs/records.md, section 6): a lenient decoder reads `…A` and
 * `…B` at the end of a signature as the same bytes, and the server refuses the other one. */
function base64urlBytes(text, size) {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
    return null;
  }
  const padding = "=".repeat((4 - (text.length % 4)) % 4);
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + padding;
  const bytes = Uint8Array.from(atob(padded), (char) => char.charCodeAt(0));
  const again = btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return again === text && bytes.length === size ? bytes : null;
}

/** The id of a raw public key: the first 16 hex digits of its SHA-256. */
async function keyIdOf(rawPublicKey) {
  return (await sha256Hex(rawPublicKey)).slice(0, 16);
}

async function ed25519Verify(rawPublicKey, signature, message) {
  let key;
  try {
    key = await subtle().importKey("raw", rawPublicKey, { name: "Ed25519" }, false, ["verify"]);
  } catch (error) {
    if (error && error.name === "NotSupportedError") {
      throw new Error("this browser's WebCrypto cannot verify Ed25519 signatures");
    }
    throw error;
  }
  return subtle().verify({ name: "Ed25519" }, key, signature, message);
}

// --- helpers to name things in messages ----------------------------------------------------

function describeType(value) {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  if (value instanceof JsonNumber) return "a number";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !(value instanceof JsonNumber);
}

/** The version of an envelope when its `v` is a JSON integer, else null. */
function versionOf(envelope) {
  const v = isObject(envelope) ? envelope.v : undefined;
  return v instanceof JsonNumber && !v.isFloat ? Number(canonicalInteger(v.raw)) : null;
}

/** "event 57 (MovePlayed)", or "the event at position 57" when it has no usable version. */
function eventName(envelope, index) {
  const version = versionOf(envelope);
  const type = isObject(envelope) && typeof envelope.type === "string"
    ? ` (${envelope.type})` : "";
  return version === null ? `the event at position ${index + 1}${type}`
    : `event ${version}${type}`;
}

function count(n) {
  return n.toLocaleString("en-US");
}

/** A check's outcome: passed, or failed at `version` (null when not about one envelope). */
const pass = (detail) => ({ ok: true, detail, version: null });
const fail = (detail, version = null) => ({ ok: false, detail, version });

function withoutMember(object, name) {
  const copy = Object.create(null);
  for (const key of Object.keys(object)) if (key !== name) copy[key] = object[key];
  return copy;
}

// --- the five checks -----------------------------------------------------------------------
//
// Each takes what `format` could read and returns pass(...) or fail(...). Each guards what
// it needs itself, so that a check after a failed one still says what it can (a record
// whose seed was changed still shows an intact chain).

function checkFormat(record) {
  if (!isObject(record)) {
    return fail(`the record's format: it is ${describeType(record)}, not a JSON object`);
  }
  if (record.format !== FORMAT) {
    return fail(`the record's format: "format" is ${shown(record.format)}, not "${FORMAT}"`);
  }
  if (record.complete !== true) {
    return fail("the record's format: it is not a complete record (\"complete\" is " +
      `${shown(record.complete)}): a game still in play has no seed and no hashes to check`);
  }
  if (!Array.isArray(record.events) || record.events.length === 0) {
    return fail("the record's format: \"events\" is not a non-empty array");
  }
  const odd = record.events.findIndex((envelope) => !isObject(envelope));
  if (odd !== -1) {
    return fail(`the record's format: the event at position ${odd + 1} is not a JSON object`);
  }
  if (typeof record.seed !== "string") {
    return fail(`the record's format: "seed" is ${shown(record.seed)}, not a string`);
  }
  return pass(`a complete ${FORMAT} record of ${count(record.events.length)} events`);
}

function shown(value) {
  if (value === undefined) return "missing";
  if (value instanceof JsonNumber) return value.raw;
  if (typeof value === "string") {
    return JSON.stringify(value.length > 70 ? `${value.slice(0, 70)}…` : value);
  }
  if (isObject(value) || Array.isArray(value)) return describeType(value);
  return String(value);
}

async function checkHashes(events) {
  if (!Array.isArray(events)) return fail("not checked: the record has no events array");
  // Hash every envelope at once (WebCrypto works in parallel), then report the first
  // mismatch in order.
  const outcomes = await Promise.all(events.map(async (envelope, index) => {
    if (!isObject(envelope)) return `${eventName(envelope, index)} is not a JSON object`;
    if (envelope.hash === null || envelope.hash === undefined) {
      return `${eventName(envelope, index)}: it has no hash`;
    }
    let text;
    try {
      text = canonicalJson(withoutMember(envelope, "hash"));
    } catch (error) {
      return `${eventName(envelope, index)}: its content cannot be hashed (${error.message})`;
    }
    const hash = await sha256Hex(encoder.encode(text));
    return hash === envelope.hash ? null
      : `${eventName(envelope, index)}: its hash does not match its content`;
  }));
  const first = outcomes.findIndex((outcome) => outcome !== null);
  if (first !== -1) return fail(outcomes[first], versionOf(events[first]));
  return pass(`each of the ${count(events.length)} hashes is the SHA-256 of its event`);
}

function checkChain(events) {
  if (!Array.isArray(events) || events.length === 0) {
    return fail("not checked: the record has no events");
  }
  for (let index = 0; index < events.length; index += 1) {
    const envelope = events[index];
    const name = eventName(envelope, index);
    const version = versionOf(envelope);
    if (!isObject(envelope)) return fail(`${name} is not a JSON object`);
    const expected = index + 1;
    // A version is a JSON integer: `true` or `1.0` is not version 1.
    if (version === null) {
      return fail(`${name}: its version ${shown(envelope.v)} is not the integer ${expected}`);
    }
    if (version !== expected) {
      const problem = index === 0 ? "the first event must be version 1"
        : version > expected
          ? `version ${expected} is missing (the event before it is version ${expected - 1})`
          : `it comes after version ${expected - 1}, so it should be version ${expected}`;
      return fail(`${name}: ${problem}`, version);
    }
    if (index === 0 && envelope.type !== "GameCreated") {
      return fail(`${name}: the first event must be GameCreated`, version);
    }
    const previous = index === 0 ? GENESIS : events[index - 1].hash;
    if (typeof envelope.prev !== "string" || envelope.prev !== previous) {
      const what = index === 0 ? "GENESIS (64 zeros)" : `the hash of event ${index}`;
      return fail(`${name}: its prev is not ${what}`, version);
    }
  }
  return pass(`versions 1 to ${events.length}, each event's prev the hash of the one before`);
}

async function checkSeed(record) {
  const { seed, events } = record;
  const commitment = record.seed_commitment;
  if (typeof seed !== "string" || !/^(?:[0-9a-f]{2})+$/.test(seed)) {
    return fail(`the seed: it is ${shown(seed)}, not lowercase hex of whole bytes`);
  }
  if (!Array.isArray(events) || !isObject(events[0]) || !isObject(events[0].data)) {
    return fail("the seed: there is no GameCreated event at version 1 holding the commitment");
  }
  // The commitment that counts is the one published at creation, in GameCreated's data:
  // the top-level seed_commitment is a copy for readers, and must agree.
  const published = events[0].data.seed_commitment;
  // The commitment is the hash of the seed's bytes, not of its hex text.
  // These two are about the seed, not about one event: version null.
  if (await sha256Hex(fromHex(seed)) !== published) {
    return fail("the seed: its SHA-256 is not the commitment published at creation " +
      `(in ${eventName(events[0], 0)})`);
  }
  if (commitment !== published) {
    return fail("the seed: the record's seed_commitment is not the one published at " +
      `creation (in ${eventName(events[0], 0)})`);
  }
  // docs/records.md, section 5: the event right after the first GameEnded is SeedRevealed,
  // revealing this same seed; and no SeedRevealed anywhere reveals another.
  const ended = events.findIndex((item) => isObject(item) && item.type === "GameEnded");
  if (ended === -1) return fail("the seed: the record has no GameEnded event");
  const next = events[ended + 1];
  if (!isObject(next) || next.type !== "SeedRevealed") {
    return fail(`${eventName(events[ended], ended)}: the event after it is not SeedRevealed`,
      versionOf(events[ended]));
  }
  for (let index = 0; index < events.length; index += 1) {
    const envelope = events[index];
    if (isObject(envelope) && envelope.type === "SeedRevealed" &&
        (!isObject(envelope.data) || envelope.data.seed !== seed)) {
      return fail(`${eventName(envelope, index)}: it reveals another seed than the record's`,
        versionOf(envelope));
    }
  }
  return pass(`SHA-256 of the seed (${count(seed.length / 2)} bytes) is the commitment ` +
    "published at creation, and SeedRevealed reveals that seed");
}

async function checkSignature(record, keys) {
  const signature = record.signature;
  if (!isObject(signature)) return fail("the signature: the record has none");
  if (signature.alg !== "Ed25519") {
    return fail(`the signature: its alg is ${shown(signature.alg)}, not "Ed25519"`);
  }
  const publicKey = base64urlBytes(signature.public_key, 32);
  if (publicKey === null) {
    return fail("the signature: its public_key is not the unpadded base64url of 32 bytes");
  }
  const value = base64urlBytes(signature.value, 64);
  if (value === null) {
    return fail("the signature: its value is not the canonical unpadded base64url of 64 bytes");
  }
  const keyId = signature.key_id;
  if (keyId !== await keyIdOf(publicKey)) {
    return fail(`the signature: its key_id ${shown(keyId)} is not the id of its public key`);
  }
  // The signed bytes: the canonical JSON of everything but the signature itself.
  const message = encoder.encode(canonicalJson(withoutMember(record, "signature")));
  if (!await ed25519Verify(publicKey, value, message)) {
    return fail("the signature: it does not match the record (the record was changed after " +
      "it was signed, or the signature was)");
  }
  // Mathematically sound; now, is it the server's key? Only GET /v1/keys says so.
  const published = await publishedKeys(keys);
  if (typeof published === "string") return fail(`the signature: ${published}`);
  if (!published.has(keyId)) {
    return fail(`the signature: key ${keyId} is not published by this server (GET /v1/keys ` +
      `lists ${published.size === 0 ? "no key" : [...published.keys()].join(", ")})`);
  }
  if (published.get(keyId) !== signature.public_key) {
    return fail(`the signature: the server publishes key ${keyId} with another public key`);
  }
  return pass(`Ed25519 signature by key ${keyId}, which the server publishes`);
}

/** The keys of a GET /v1/keys document, id → public key, or a string saying what is wrong.
 * Each entry is checked as docs/records.md section 7 asks: Ed25519, and its id is the id of
 * its public key. (Strict base64url makes equal texts the same as equal bytes.) */
async function publishedKeys(document) {
  const entries = isPlainData(document) ? document.keys : undefined;
  if (!Array.isArray(entries)) {
    return 'the published keys are not a {"keys": [...]} document, as GET /v1/keys answers';
  }
  const keys = new Map();
  for (let index = 0; index < entries.length; index += 1) {
    const entry = entries[index];
    const raw = isPlainData(entry) ? base64urlBytes(entry.public_key, 32) : null;
    if (raw === null || entry.alg !== "Ed25519" || entry.id !== await keyIdOf(raw)) {
      return `published key ${index + 1} is not an Ed25519 public key under its own id`;
    }
    keys.set(entry.id, entry.public_key);
  }
  return keys;
}

function isPlainData(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// --- verifyRecord --------------------------------------------------------------------------

/**
 * Verify a record's text against the keys a server publishes. Resolves, never rejects, to
 *   {ok, events, keyId, summary, checks: [{name, ok, detail}], failure}
 * `checks` holds format, hashes, chain, seed, signature, in that order, each run as far as
 * the record allows; `ok` is true only when all pass. `failure` is the first place that
 * fails, {check, version, detail}, `version` being the `v` of the event where it fails (or
 * null): a record that cannot be read at all fails at its format; otherwise the failed
 * check at the lowest version (an event removed at 20 and a move changed at 41: 21, the
 * chain, though hashes are checked first), and with none at a version, the first failed.
 * `keyId` is the record's signature.key_id as written (whether or not it verified), or null.
 */
export async function verifyRecord(recordText, keys) {
  try {
    return await verify(recordText, keys);
  } catch (error) {
    // Not expected: every check guards itself. Still, a verdict, never an exception.
    const detail = `the record could not be verified: ${error && error.message}`;
    const checks = CHECKS.map((name) => ({ name, ...fail(name === "format" ? detail
      : "not checked: the record could not be read") }));
    return conclude(checks, 0, null);
  }
}

async function verify(recordText, keys) {
  let record;
  let outcome;
  if (typeof recordText !== "string") {
    outcome = fail("the record's format: expected the record's text (a string), not " +
      describeType(recordText));
  } else {
    try {
      record = parseJson(recordText);
      outcome = checkFormat(record);
    } catch (error) {
      outcome = fail(`the record's format: it is not valid JSON (${error.message})`);
    }
  }
  const checks = [{ name: "format", ...outcome }];
  const events = isObject(record) && Array.isArray(record.events) ? record.events : null;
  const keyId = isObject(record) && isObject(record.signature) &&
    typeof record.signature.key_id === "string" ? record.signature.key_id : null;

  const run = async (name, check) => {
    try {
      checks.push({ name, ...await check() });
    } catch (error) {
      checks.push({ name, ...fail(`${name} could not be checked: ${error.message}`) });
    }
  };
  if (!isObject(record)) {
    for (const name of CHECKS.slice(1)) {
      checks.push({ name, ...fail("not checked: the record could not be read") });
    }
  } else {
    await run("hashes", () => checkHashes(events));
    await run("chain", () => checkChain(events));
    await run("seed", () => checkSeed(record));
    await run("signature", () => checkSignature(record, keys));
  }
  return conclude(checks, events ? events.length : 0, keyId);
}

/** The first place that fails (see verifyRecord), or undefined. */
function firstFailure(checks) {
  const failed = checks.filter((check) => !check.ok);
  if (failed.length === 0 || failed[0].name === "format") return failed[0];
  const placed = failed.filter((check) => typeof check.version === "number");
  if (placed.length === 0) return failed[0];
  return placed.reduce((first, check) => (check.version < first.version ? check : first));
}

function conclude(checks, events, keyId) {
  const failed = firstFailure(checks);
  const ok = failed === undefined && checks.length === CHECKS.length;
  const summary = ok
    ? `${count(events)} events chained; seed matches the commitment published at ` +
      `creation; signed by key ${keyId}`
    : `Verification failed at ${failed.detail}`;
  return {
    ok,
    events,
    keyId,
    summary,
    checks: checks.map(({ name, ok: passed, detail }) => ({ name, ok: passed, detail })),
    failure: ok ? null : { check: failed.name, version: failed.version, detail: failed.detail },
  };
}
