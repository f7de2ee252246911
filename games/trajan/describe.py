"""Trajan's table in words (games.text): a seat's view as named sections of short lines.

Built from the view alone (view.py), so it holds nothing the viewer may not see: the
viewer's own mat, hand and pieces first, then each other seat by name (its hand's size and
the cards seen taken from a discard pile), then the time track and the boards (seaport,
forum, military map, Trajan tiles, senate, construction district, demands), then the turn in
progress, a senate vote and the final score. Things are named as the moves' labels name
them: commodities "wool", "spices"; forum tiles "votes 2", "wild commodity"; Trajan tiles
by kind and colours "vp (orange + blue)"; construction and bonus tiles by their ids
("C-window-2", "B-wine-oil"); ships and provinces by the data file's names.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from typing import Any

from games.text import Section, counted, listed, named, seat_name, section
from games.trajan.board import SETUP, TRAJAN

View = dict[str, Any]
WIDTH = 76  # a line and its indent stay under 80 characters


def describe(view: View, seat: int | None, names: Sequence[str]) -> list[Section]:
    """The viewer's section first ("You (<name>)"), every other seat by name, the boards,
    then what is in progress."""
    players = view["players"]
    order = [seat] if seat is not None else []
    order += [s for s in range(len(players)) if s != seat]
    sections = [_seat_section(view, s, names, s == seat) for s in order]
    sections += [_time(view), _seaport(view), _forum(view), _military(view, names),
                 _trajan(view), _senate(view, names), _district(view, names),
                 _demands(view)]
    sections += [s for s in (_turn(view, names), _vote(view, names), _score(view, names))
                 if s is not None]
    return sections


# --- helpers ------------------------------------------------------------------------------


_BREAK = re.compile(r"(?<=[,;]) ")


def _wrapped(lines: Sequence[str]) -> list[str]:
    """Each line under WIDTH characters: a long one broken after a comma or semicolon (so
    that "1-5 C-steps-5" stays whole), else at a space."""
    out: list[str] = []
    for line in lines:
        parts = [""]
        for chunk in _BREAK.split(line):
            if parts[-1] and len(parts[-1]) + 1 + len(chunk) > WIDTH:
                parts.append("  " + chunk)
            else:
                parts[-1] = f"{parts[-1]} {chunk}" if parts[-1] else chunk
        for part in parts:
            out += textwrap.wrap(part, WIDTH, subsequent_indent="  ", break_long_words=False,
                                 break_on_hyphens=False) if len(part) > WIDTH else [part]
    return out


def _n(count: int, thing: str) -> str:
    """2 "cards", 1 "card": `thing` given in the plural."""
    return f"{count} {thing if count != 1 else thing.removesuffix('s')}"


def _titled(title: str, lines: Sequence[str]) -> Section:
    return section(title, _wrapped(lines))


def _forum_name(tile: dict[str, Any]) -> str:
    """A forum tile as the labels name it: "bread", "votes 2", "wild commodity"."""
    return str(tile["kind"]).replace("_", " ")


def _tally(items: Sequence[str]) -> str:
    """["bread", "bread", "votes 2"] as "2 bread, votes 2" ("none" if empty)."""
    counts = {item: items.count(item) for item in items}
    return listed([f"{n} {item}" if n > 1 else item for item, n in counts.items()])


def _colours(colours: Sequence[str]) -> str:
    return " + ".join(colours).replace("_", " ")


def _trajan_name(tile: dict[str, Any]) -> str:
    """A Trajan tile as the labels name it, "vp (orange + blue)"; a demand tile with the
    demand it meets."""
    text = f"{tile['kind']} ({_colours(tile['colours'])})"
    demand = TRAJAN[tile["tile"]].get("demand")
    return f"{text} for {demand}" if demand else text


def _seats(seats: Sequence[int], names: Sequence[str]) -> str:
    return listed([seat_name(names, s) for s in seats])


def _ordinal(n: int) -> str:
    return f"{n}{'st' if n == 1 else 'nd' if n == 2 else 'rd' if n == 3 else 'th'}"


# --- the seats ----------------------------------------------------------------------------


def _seat_section(view: View, s: int, names: Sequence[str], own: bool) -> Section:
    p = view["players"][s]
    title = f"You ({seat_name(names, s)})" if own else seat_name(names, s)
    lines = [f"Points: {p['points']}", *_hand(p, own), f"Display: {counted(p['display'])}",
             "Action mat:", *_mat(p)]
    if p["plus2"]:
        lines.append(f"+2 markers: {p['plus2']}")
    lines += [f"Forum tiles: {_tally([_forum_name(t) for t in p['tiles']])}",
              *_demand_tiles(p),
              f"Construction tiles: {listed([t['tile'] for t in p['construction']])}",
              f"Bonus tiles: {listed([_bonus(b) for b in p['bonus']])}",
              f"Pieces: personal supply {p['supply']}, military camp {p['military_camp']}, "
              f"worker camp {p['worker_camp']}",
              *_figures(view, s), _senate_place(view, p)]
    return _titled(title, lines)


def _bonus(tile: dict[str, Any]) -> str:
    return f"{tile['tile']} ({tile['side']})"


def _hand(p: dict[str, Any], own: bool) -> list[str]:
    """The hand by name to its owner (and to all at the end), else its size and the cards
    every seat saw it take from a discard pile."""
    known = p["known_cards"]
    if "hand" in p:
        lines = [f"Hand: {counted(p['hand'])}"]
        if own and known:
            lines.append(f"Seen taken by the others: {counted(known)}")
        return lines
    size = p["hand_size"]
    text = f"Hand: {_n(size, 'cards')}"
    return [text + (f", known: {counted(known)}" if known else "")]


def _mat(p: dict[str, Any]) -> list[str]:
    """The view's mat lines (trays, Trajan tiles, the arch), a long one split before its
    Trajan tile; the arch in the centre when every slot is full."""
    lines: list[str] = []
    for line in p["mat"]:
        head, sep, tail = line.partition(" [")
        lines += [f"  {line}"] if len(line) < WIDTH - 2 or not sep else \
            [f"  {head}", f"    [{tail}"]
    if p["arch"] == "centre":
        lines.append("  Trajan arch: in the centre (every slot is full)")
    return lines


def _demand_tiles(p: dict[str, Any]) -> list[str]:
    """Which demand each Trajan demand tile meets (the mat lines do not say)."""
    on_mat = [f"for {TRAJAN[t['trajan_tile']['tile']]['demand']} on slot {t['slot']}"
              for t in p["trays"] if t["trajan_tile"] and t["trajan_tile"]["kind"] == "demand"]
    kept = [_trajan_name(t) for t in p["trajan_demand_tiles"]]
    lines = [f"Trajan demand tiles: {listed(on_mat)}"] if on_mat else []
    if kept:
        lines.append(f"Trajan demand tiles kept: {listed(kept)}")
    return lines


def _figures(view: View, s: int) -> list[str]:
    provinces = view["military"]["provinces"]
    leader = next((pr["name"] for pr in provinces if s in pr["leaders"]), None)
    legions = [pr["name"] for pr in provinces if s in pr["legionnaires"]]
    sites = [site["site"] for site in view["construction"]["sites"] if s in site["workers"]]
    return [f"Military leader: {leader or 'in the military camp'}",
            f"Legionnaires in provinces: {listed(legions)}",
            f"Workers on construction sites: {listed(sites)}"]


def _senate_place(view: View, p: dict[str, Any]) -> str:
    space, height = p["senate"]["space"], p["senate"]["height"]
    discs = len(view["senate"]["spaces"][space]["discs"])
    where = "the start space" if space == 0 else f"space {space}"
    place = "alone" if discs == 1 else f"{_ordinal(discs - height)} of {discs} from the top"
    return f"Senate: {where}, {place}; {_n(p['senate']['votes'], 'votes')}"


# --- the boards ---------------------------------------------------------------------------


def _time(view: View) -> Section:
    track = view["time_track"]
    lines = [f"Quarter {view['quarter']} of {view['quarters']}, round {view['round']} of "
             f"{SETUP['rounds']}",
             f"Time marker: space {track['position']} of {track['length']} (start: space "
             f"{track['start']})"]
    if track["round_ends_after_turn"]:
        lines.append("The round ends after this turn.")
    return _titled("Time track", lines)


def _seaport(view: View) -> Section:
    port = view["seaport"]
    deck = f"Commodity deck: {port['deck']} cards face down"
    lines = [deck + (f" (reshuffled {port['reshuffles']}x)" if port["reshuffles"] else "")]
    for side, pile in zip(("Left", "Right"), port["piles"], strict=True):
        lines.append(f"{side} discard pile: {pile[-1]} on top ({_n(len(pile), 'cards')})" if pile
                     else f"{side} discard pile: empty")
    for ship in port["ships"]:
        unit = "pairs" if ship["combination"] == "pairs" else "cards"
        counts, points = "/".join(ship["points"]), "/".join(map(str, ship["points"].values()))
        lines.append(f"{ship['name']} ({ship['side']} side): {counts} {unit} for {points}")
    return _titled("Seaport", lines)


def _forum(view: View) -> Section:
    forum = view["forum"]
    tiles = [_forum_name(t) for t in forum["tiles"] if t]
    return _titled("Forum", [f"Tiles: {_tally(tiles)}",
                             f"Face down: {forum['stack']} forum tiles, "
                             f"{forum['extra_stack']} extra-action tiles"])


def _military(view: View, names: Sequence[str]) -> Section:
    military = view["military"]
    lines = [f"Leaders in the military camp: {_seats(military['camp_leaders'], names)}"]
    for pr in military["provinces"]:
        tiles = pr["tiles"] if "tiles" in pr else [pr["tile"]] if pr["tile"] else []
        parts = [f"{_forum_name(tiles[0])} tile"] if len(tiles) == 1 else \
            [f"{len(tiles)} tiles: {listed([_forum_name(t) for t in tiles])}"] if tiles else []
        if pr["leaders"]:
            parts.append(f"leaders: {_seats(pr['leaders'], names)}")
        if pr["legionnaires"]:
            parts.append(f"legionnaires: {_seats(pr['legionnaires'], names)}")
        lines.append(f"{pr['name']} ({pr['points']} points): {'; '.join(parts) or 'empty'}")
    return _titled("Military", lines)


_EFFECTS = {"draw_cards": "draw {count}", "plus2": "gain {count} +2 marker",
            "legionnaires": "{count} piece(s) to the military camp",
            "workers": "{count} piece(s) to the worker camp"}


def _trajan(view: View) -> Section:
    lines = []
    for stack in view["trajan"]:
        top = stack["top"]
        if top is None:
            lines.append(f"{stack['kind']}: none left")
            continue
        spec = TRAJAN[top["tile"]]
        effect = _EFFECTS.get(spec["effect"], "").format(count=spec.get("count"))
        worth = _n(top["points"], "points") + (f", {effect}" if effect else "")
        lines.append(f"{_trajan_name(top)}: {worth}; {stack['size']} in the stack")
    return _titled("Trajan tiles (top of each stack)", lines)


def _senate(view: View, names: Sequence[str]) -> Section:
    senate = view["senate"]
    lines = []
    for space in senate["spaces"]:
        where = "Start space" if space["space"] == 0 else \
            f"Space {space['space']} ({space['points']} points, {space['votes']} votes)"
        if space["discs"]:
            lines.append(f"{where}: {_seats(space['discs'][::-1], names)} (top first)")
    lines.append(f"Bonus tiles: {listed(senate['bonus_tiles'])}; {senate['bag']} in the bag")
    return _titled("Senate", lines)


def _district(view: View, names: Sequence[str]) -> Section:
    sites = view["construction"]["sites"]
    tiles = [f"{site['site']} {site['tile']}" for site in sites if site["tile"]]
    workers = [f"{site['site']} {'+'.join(seat_name(names, s) for s in site['workers'])}"
               for site in sites if site["workers"]]
    return _titled("Construction district", [f"Tiles: {listed(tiles)}",
                                             f"Workers: {listed(workers)}"])


def _demands(view: View) -> Section:
    demands = view["demands"]
    lines = [f"This quarter: {listed(demands['revealed'])}",
             f"Face down: {demands['stack']} ({demands['removed']} removed unseen)"]
    if demands["earlier"]:
        lines.append(f"Earlier quarters: {listed(demands['earlier'])}")
    return _titled("The people's demands", lines)


# --- in progress --------------------------------------------------------------------------

_WHY = {"tray": "", "bonus": " (construction bonus)", "extra": " (extra action)"}
_DOING = {"start_cards": "takes a starting commodity card",
          "start_trajan": "takes a starting Trajan tile", "choose": "chooses a tray",
          "sow": "puts the action markers in the next trays", "action": "performs an action",
          "discard": "discards a commodity card", "load": "loads a ship",
          "extra": "may spend an extra-action tile", "bonus": "chooses a bonus tile",
          "demands": "chooses how to meet the people's demands"}


def _turn(view: View, names: Sequence[str]) -> Section | None:
    if view["phase"] == "over":
        return None
    turn = view["this_turn"]
    lines = [f"{seat_name(names, view['active'])} {_DOING.get(view['phase'], 'plays')}"]
    if view["prompt"]:
        lines.append(named(view["prompt"], names))  # the viewer is to act
    if turn["markers_in_hand"]:
        lines.append(f"Markers in hand: {listed(turn['markers_in_hand']).replace('_', ' ')}")
    if turn["target"]:
        what = "Markers sown up to" if view["phase"] == "sow" else "Target tray"
        lines.append(f"{what}: {turn['target'].capitalize()}")
    if turn["pending"]:
        pending = [f"{p['action']}{_WHY.get(p['why'], '')}" for p in turn["pending"]]
        lines.append(f"Action: {', then '.join(pending)}")
    if turn["extra_used"]:
        lines.append("An extra action was spent this turn.")
    if turn["loading"]:
        lines.append(_loading(view, turn["loading"]))
    choice = view.get("demand_choice")
    if choice:
        lines += [f"Demands still to meet: {listed(choice['open'])}",
                  f"Met so far: {listed(choice['met'])}"]
    return _titled("This turn", lines)


def _loading(view: View, loading: dict[str, Any]) -> str:
    ship = next(s["name"] for s in view["seaport"]["ships"] if s["ship"] == loading["ship"])
    units = [u.replace("+wild", " and a commodity wildcard").replace("wild", "a commodity "
             "wildcard") for u in loading["cards"]]
    return f"Loading the {ship}: {listed(units) if units else 'nothing yet'}"


def _vote(view: View, names: Sequence[str]) -> Section | None:
    order = view["vote"]
    if not order:
        return None
    ranked = [f"{_ordinal(i + 1)} {seat_name(names, s)}" for i, s in enumerate(order)]
    return _titled("Senate vote", [
        f"Votes: {', '.join(ranked)}",
        f"{seat_name(names, order[0])} chooses a bonus tile (gold side); "
        f"{seat_name(names, order[1])} takes the other (silver side)"])


_ITEMS = {"track": "track", "cards": "cards in hand", "worker_camp": "worker camp",
          "military_camp": "military camp", "construction_sets": "construction sets",
          "bonus_tiles": "bonus tiles"}


def _score(view: View, names: Sequence[str]) -> Section | None:
    sheet = view["score"]
    if not sheet:
        return None
    lines = []
    for entry in sorted(sheet["seats"], key=lambda e: (e["rank"], e["seat"])):
        items = ", ".join(f"{_ITEMS.get(k, k)} {v}" for k, v in entry["breakdown"].items()
                          if v or k == "track")
        lines.append(f"{_ordinal(entry['rank'])} {seat_name(names, entry['seat'])}: "
                     f"{_n(entry['total'], 'points')} ({items})")
    return _titled("Final score", lines)
