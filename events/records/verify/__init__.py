"""Verify a game record (events.records.record) offline: no server, no Redis, only the rules code.

`verify_record(record)` runs every check it can and reports every problem it finds; each kind
of check is a module of this package (run.py runs them in order):

1. format and shape (shape.py): a JSON object in the meeple-record/1 layout, every field of
   its type;
2. signature (signature.py): Ed25519 by the embedded public key over the canonical record
   without "signature"; the key id is that key's id; with `trusted_keys`, the key is trusted;
3. hash chain (chain.py): versions 1..n without gap or repeat, each `prev` the hash before,
   each `hash` the SHA-256 of its envelope's canonical JSON (events.domain.envelope);
4. header (header.py): what "game" and "seed_commitment" say equals what GameCreated and
   SeatTaken say; the game type and its rules_version are the ones this code has;
5. seed (seed.py): SHA-256(seed) is the commitment, and SeedRevealed, right after GameEnded,
   carries it;
6. re-execution (replay.py): setup with the seed at GameStarted (which must come exactly when
   the last seat is taken), then every move with its random stream (numbered by the moves
   where GameCreated says "draws": "moves", else by versions: games.rng): its seat must be an
   actor, its id a legal move, its facts exactly the ones the rules produce; GameEnded exactly
   when the game is over, with the rules' score sheet, which the record's "scores" repeat
   (completeness.py); table talk by its seat's player, never a bot's; after SeedRevealed,
   nothing but one GameScored (older records);
7. deadlines (deadlines.py; events.domain.deadlines), for a table with one: each TurnTimedOut
   names a seat on the clock started at that version and comes at or after its deadline;
   then, at a "resign" table, that seat's PlayerResigned at once; a MovePlayed by "system"
   only for a resigned seat or one timed out at a "bot" table, until it stops acting (which
   moves the bot chose is not re-derived: any legal move re-executes); resigned seats rank
   last.

A record that is not complete (an unfinished game, one seat's redacted view) holds neither
the seed nor the other seats' facts, so it cannot be re-executed. Its report says so: `ok`
is False and `status` is "partial" when nothing else is wrong (a problem with check
"complete" says what could and could not be checked; completeness.py), "invalid" when
something is.

Problems are ordered by their place in the record (header, events in order, seed, scores,
signature; report.py); `path` is a JSON path into the record (paths.py), e.g.
`events[41].data.facts[0].data.card`, and `version` the version of the event at that place
(its index + 1). Nothing raises: any JSON value gets a report.

`checked` says what was checked: events, hashes_checked, redacted_events, signature
{key_id, valid, trusted (None when no trusted keys were given)}, rules, seed_commitment,
moves_reexecuted, facts_compared, reexecuted_to_the_end, and not_rederived: events carried
in the record that the rules cannot re-derive (GameScored: ratings depend on other games).
"""

from events.records.verify.paths import Difference, first_difference, json_path
from events.records.verify.report import Problem, Report, unreadable
from events.records.verify.run import verify_record
from events.records.verify.shape import FORMAT
from events.records.verify.verification import TrustedKeys

__all__ = [
    "FORMAT",
    "Difference",
    "Problem",
    "Report",
    "TrustedKeys",
    "first_difference",
    "json_path",
    "unreadable",
    "verify_record",
]
