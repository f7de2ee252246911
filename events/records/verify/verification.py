"""What the checks of one verification share: the record, the problems found so far, what
was checked, and the record's events, each with whether its envelope can be read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from events.records.verify.report import Findings

# The trusted public key of a key id, None for an unknown id (events.records.keys makes one).
TrustedKeys = Callable[[str], Ed25519PublicKey | None]


@dataclass
class Verification:
    record: Any  # any JSON value; a dict once the shape check has passed
    trusted_keys: TrustedKeys | None
    findings: Findings = field(default_factory=Findings)
    checked: dict[str, Any] = field(default_factory=lambda: {"events": 0})
    events: list[Any] = field(default_factory=list)  # the record's, once its shape is known
    usable: list[bool] = field(default_factory=list)  # per event: its envelope has the right shape

    def first_index(self, kind: str) -> int | None:
        """The index of the first event of type `kind`, if any."""
        return next((i for i, e in enumerate(self.events)
                     if isinstance(e, dict) and e.get("type") == kind), None)
