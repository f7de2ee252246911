"""Trappist One's final scoring (rulebook "Scoring Dominion Points" and its Expert Version):
each seat's points by category, the majorities, and the ranking, stargold breaking ties."""

from __future__ import annotations

from typing import Any

from games.standings import rank_tied_together
from games.trappist_one.board import (
    INVESTMENT,
    PLANET_VP,
    PLANETS,
    RESOURCES,
    State,
    controls,
    factories_of,
)


def _majority(state: State, counts: list[int]) -> set[int]:
    """"the mega-corporation with the most amount of stargold wins the tie and scores the
    points. If there is also a tie on stargold, all tied mega-corporations get the full
    score". A majority needs at least one (decisions note)."""
    best = max(counts)
    if best <= 0:
        return set()
    tied = [s for s, c in enumerate(counts) if c == best]
    gold = max(state["seats"][s]["stargold"] for s in tied)
    return {s for s in tied if state["seats"][s]["stargold"] == gold}


def breakdowns(state: State) -> list[dict[str, int]]:
    seats = state["seats"]
    sheets: list[dict[str, int]] = []
    for p in seats:
        cards = [p["satellites"][pl] for pl in PLANETS if pl in p["satellites"]] + p["stations"]
        sheets.append({
            "planets": sum(PLANET_VP[pl] for pl in PLANETS if controls(p, pl)),
            "satellites_stations": sum(int(INVESTMENT[c]["vp"]) for c in cards),
            "cargo_in_hand": sum(int(INVESTMENT[c]["vp"]) for c in p["cargo"]),
            "scrapyard": sum(int(INVESTMENT[c]["vp"]) for c in p["scrapyard"] if c in INVESTMENT),
            "clans": 0, "workers": 0, "factories": 0,
            "total_control": 2 if all(controls(p, pl) for pl in PLANETS) else 0,
        })

    def workers(p: dict[str, Any], clan: str | None) -> int:
        return sum(1 for c in p["scrapyard"] if c in INVESTMENT
                   and INVESTMENT[c]["kind"] == "worker"
                   and (clan is None or INVESTMENT[c]["clan"] == clan))

    for clan in RESOURCES:
        for s in _majority(state, [workers(p, clan) for p in seats]):
            sheets[s]["clans"] += 1
    for s in _majority(state, [workers(p, None) for p in seats]):
        sheets[s]["workers"] += 1
    for s in _majority(state, [sum(len(f) for f in p["planets"].values()) for p in seats]):
        sheets[s]["factories"] += 1
    if state["options"]["expert_scoring"]:
        for sheet in sheets:
            sheet.update({"resources": 0, "orbits": 0, "space": 0, "richest": 0})
        for r in RESOURCES:
            for s in _majority(state, [factories_of(p, r) for p in seats]):
                sheets[s]["resources"] += 1
        for s in _majority(state, [len(p["satellites"]) for p in seats]):
            sheets[s]["orbits"] += 1
        for s in _majority(state, [len(p["stations"]) for p in seats]):
            sheets[s]["space"] += 1
        for s in _majority(state, [p["stargold"] for p in seats]):
            sheets[s]["richest"] += 1
    return sheets


def score(state: State) -> dict[str, Any]:
    """Most dominion points wins; stargold breaks the tie; a tie on both: all of them win.
    The sheet's `end` names the end trigger that fired (a key of TRIGGERS)."""
    sheets = breakdowns(state)
    entries = []
    for s, sheet in enumerate(sheets):
        entries.append({"seat": s, "total": sum(sheet.values()), "breakdown": sheet,
                        "tiebreak": [state["seats"][s]["stargold"]]})
    return {"ranking": rank_tied_together(entries),
            "seats": entries,
            "end": state["ending"]}  # the end trigger that fired (TRIGGERS)
