"""verify_record: every check, in the order in which each needs the one before."""

from __future__ import annotations

import contextlib
from typing import Any

from events.records.verify.chain import check_chain
from events.records.verify.completeness import check_not_redacted, check_partial, check_scores
from events.records.verify.header import check_header
from events.records.verify.paths import described
from events.records.verify.replay import replay
from events.records.verify.report import Report, TooManyProblems
from events.records.verify.seed import check_seed
from events.records.verify.shape import check_shape
from events.records.verify.signature import check_signature
from events.records.verify.verification import TrustedKeys, Verification


def verify_record(record: Any, trusted_keys: TrustedKeys | None = None) -> Report:
    """Every check of events.records.verify; never raises."""
    verification = Verification(record, trusted_keys)
    try:
        _run(verification)
    except TooManyProblems:
        pass  # the report says it stopped, and how many problems it did not list
    except Exception as error:  # noqa: BLE001 - a report, whatever the input did to us
        with contextlib.suppress(TooManyProblems):
            verification.findings.add("internal", "",
                                      f"the verifier could not finish: {described(error)}")
    return verification.findings.report(verification.checked)


def _run(v: Verification) -> None:
    if not check_shape(v):
        return  # not a record whose fields can be read: nothing else can be checked
    check_signature(v)
    check_chain(v)
    game, created = check_header(v)
    if v.record["complete"] is not True:
        check_partial(v)
        return
    check_not_redacted(v)
    seed = check_seed(v, created)
    if game is not None and seed is not None and created is not None:
        replay(v, game, created, seed)
    check_scores(v)
