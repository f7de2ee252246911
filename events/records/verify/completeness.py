"""What a record carries for its completeness: a complete one is nobody's redacted view and
its "scores" repeat GameEnded's score sheet; an incomplete one carries neither the seed nor
scores, and its report says what could not be checked (the problem with check "complete")."""

from __future__ import annotations

from events.records.verify.paths import first_difference
from events.records.verify.verification import Verification


def check_not_redacted(v: Verification) -> None:
    """A complete record: everything is public, so it is no seat's view."""
    if v.record["redacted_for"] is not None:
        v.findings.add("format", "redacted_for", "a complete record is nobody's redacted view",
                       expected=None, found=v.record["redacted_for"])


def check_scores(v: Verification) -> None:
    ended = v.first_index("GameEnded")
    if ended is None:
        return
    data = v.events[ended].get("data")
    sheet = data.get("scores") if isinstance(data, dict) else None
    difference = first_difference(sheet, v.record["scores"], "scores")
    if difference:
        v.findings.add_difference("scores", difference, "the record's scores disagree with "
                                  f"GameEnded (events[{ended}])")


def check_partial(v: Verification) -> None:
    seats = v.record["redacted_for"]
    if seats is None:
        v.findings.add("format", "redacted_for", "an incomplete record names the seats whose "
                       "view it is", expected=[])
    for name in ("seed", "scores"):
        if v.record[name] is not None:
            v.findings.add("format", name, "an incomplete record must not carry it")
    v.findings.add("complete", "complete", f"an unfinished game's record, redacted for seats "
                   f"{seats}: without the seed and the facts those seats may not read it cannot "
                   "be re-executed; only its shape, signature, chain links, the hashes of "
                   "unredacted events and its header were checked", expected=True, found=False)
