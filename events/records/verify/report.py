"""What the verifier reports: problems, in record order, and the report that holds them."""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass, field, fields
from typing import Any

from events.records.verify.paths import Difference, brief

# Top-level fields in record order: problems are sorted by it.
RECORD_FIELDS = ("format", "game", "seed_commitment", "complete", "redacted_for", "note",
                 "events", "seed", "scores", "signature")
# A report lists the first problems in record order, and a run stops after this many: a
# record made of junk costs a bounded answer and a bounded run (issue 11).
MAX_LISTED = 100
MAX_FOUND = 10_000
_AFTER_EVERY_EVENT = 1 << 62  # "events" itself: what is missing after the last one
_EVENT = re.compile(r"events\[(\d+)\]")
_TOP = re.compile(r"[A-Za-z_]+")


@dataclass(frozen=True)
class Problem:
    # format, data (an event's data, data.py), signature, chain, header, rules, seed, replay,
    # scores, complete, internal
    check: str
    version: int | None
    path: str  # JSON path into the record ("" is the record itself)
    expected: Any
    found: Any
    detail: str

    def to_json(self) -> dict[str, Any]:
        # Not dataclasses.asdict: it deep-copies `expected` and `found` recursively, and a
        # found value nested some 500 deep (a hostile record) exceeded the recursion limit.
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def describe(self) -> str:
        where = self.path or "(the record)"
        text = f"{where}: {self.detail}"
        shown = [f"{word} {brief(value)}" for word, value in
                 (("expected", self.expected), ("found", self.found)) if value is not None]
        return text + (f" ({', '.join(shown)})" if shown else "")


@dataclass
class Report:
    ok: bool
    status: str  # "valid", "partial" (an incomplete record, nothing else wrong) or "invalid"
    problems: list[Problem] = field(default_factory=list)
    checked: dict[str, Any] = field(default_factory=dict)
    not_listed: int = 0  # problems found beyond the first MAX_LISTED
    stopped: bool = False  # True when the verifier gave up after MAX_FOUND problems

    @property
    def first(self) -> Problem | None:
        """The first problem in record order."""
        return self.problems[0] if self.problems else None

    def to_json(self) -> dict[str, Any]:
        first = self.first
        return {
            "ok": self.ok,
            "status": self.status,
            "first": first.to_json() if first else None,
            "problems": [problem.to_json() for problem in self.problems],
            "not_listed": self.not_listed,
            "stopped": self.stopped,
            "checked": self.checked,
        }


def unreadable(detail: str) -> Report:
    """The report for a document that is not even JSON."""
    problem = Problem("format", None, "", None, None, f"not a JSON document: {detail}")
    return Report(False, "invalid", [problem], {"events": 0})


def sort_key(path: str) -> tuple[int, int]:
    """(top-level field rank, event index) of a path: the record order of problems."""
    top = _TOP.match(path)
    name = top.group(0) if top else ""
    rank = RECORD_FIELDS.index(name) if name in RECORD_FIELDS else -1
    event = _EVENT.match(path)
    if event:
        return rank, int(event.group(1))
    return rank, _AFTER_EVERY_EVENT if name == "events" else -1


class TooManyProblems(Exception):
    """MAX_FOUND problems were found: the verifier stops looking (verify_record catches it)."""


class Findings:
    """The problems found so far, each with its place in the record: the checks run in their
    own order, the report lists problems in the record's (ties: in the order found).

    Whatever a record holds, this costs little: only the first MAX_LISTED problems in record
    order are kept (a heap of that size), the others are counted, and after MAX_FOUND the
    run stops, since a record that wrong needs no more looking at."""

    def __init__(self) -> None:
        # A max-heap by negated keys: its top is the last kept problem in record order.
        self._kept: list[tuple[tuple[int, int, int], Problem]] = []
        self.found = 0
        self._only_complete = True  # every problem so far is about an incomplete record

    def add(self, check: str, path: str, detail: str, *, version: int | None = None,
            expected: Any = None, found: Any = None) -> None:
        if version is None:
            event = _EVENT.match(path)
            version = int(event.group(1)) + 1 if event else None
        problem = Problem(check, version, path, expected, found, detail)
        rank, index = sort_key(path)
        entry = ((-rank, -index, -self.found), problem)
        self.found += 1
        self._only_complete = self._only_complete and check == "complete"
        if len(self._kept) < MAX_LISTED:
            heapq.heappush(self._kept, entry)
        elif entry[0] > self._kept[0][0]:  # earlier in record order than the last kept
            heapq.heapreplace(self._kept, entry)
        if self.found >= MAX_FOUND:
            raise TooManyProblems

    def add_difference(self, check: str, difference: Difference, what: str) -> None:
        detail = what if difference.detail == "differs" else f"{what}: {difference.detail}"
        self.add(check, difference.path, detail, expected=difference.expected,
                 found=difference.found)

    def report(self, checked: dict[str, Any]) -> Report:
        ordered = sorted(self._kept, key=lambda kept: kept[0], reverse=True)
        problems = [problem for _, problem in ordered]
        if not problems:
            status = "valid"
        elif self._only_complete:
            status = "partial"
        else:
            status = "invalid"
        return Report(status == "valid", status, problems, checked,
                      not_listed=self.found - len(problems),
                      stopped=self.found >= MAX_FOUND)
