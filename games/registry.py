"""Every hosted game, by its stable id, under every rules version this server still runs.

A rules change makes a new `rules_version` of a game (see DESIGN: history stays true): new
tables get the newest, and a game keeps being played, replayed and verified under the
version it was created with. Each game package lists its versions, oldest first, in
`VERSIONS`; its `GAME` is the newest.

A game's package is imported the first time one of its versions is looked up, not when this
module is: `meeple verify` of a Res Publica record never loads the other games' rules
(bench/verify.py). Listing the games (`sorted(GAMES)`, `game_type in RULES`) imports none.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from games.contract import Game

# game id -> the package that defines it (its VERSIONS, oldest first)
PACKAGES = {
    "res-publica-2230ad": "games.res_publica",
    "asking-for-trobils": "games.asking_for_trobils",
    "trappist-one": "games.trappist_one",
    "trajan": "games.trajan",
}


class _Versions(Mapping[str, Game]):
    """One game's rules versions (rules version -> game, oldest first), its package imported
    at the first look."""

    def __init__(self, game_id: str, package: str) -> None:
        self._game_id = game_id
        self._package = package
        self._loaded: dict[str, Game] | None = None

    @property
    def _versions(self) -> dict[str, Game]:
        if self._loaded is None:
            versions = importlib.import_module(self._package).VERSIONS
            if versions[-1].id != self._game_id:
                raise RuntimeError(f"{self._package} defines {versions[-1].id!r}, "
                                   f"not {self._game_id!r}")
            self._loaded = {game.rules_version: game for game in versions}
        return self._loaded

    def __getitem__(self, rules_version: str) -> Game:
        return self._versions[rules_version]

    def __iter__(self) -> Iterator[str]:
        return iter(self._versions)

    def __len__(self) -> int:
        return len(self._versions)

    def __repr__(self) -> str:
        return f"<rules versions of {self._game_id}: {self._package}>"


class _Newest(Mapping[str, Game]):
    """Game id -> the game under its newest rules, each package imported at the first look."""

    def __init__(self, versions: Mapping[str, Mapping[str, Game]]) -> None:
        self._versions = versions

    def __getitem__(self, game_id: str) -> Game:
        return list(self._versions[game_id].values())[-1]

    def __iter__(self) -> Iterator[str]:
        return iter(self._versions)

    def __len__(self) -> int:
        return len(self._versions)

    def __repr__(self) -> str:
        return f"<the newest rules of {sorted(self._versions)}>"


_PACKAGED: dict[str, Mapping[str, Game]] = {game_id: _Versions(game_id, package)
                                            for game_id, package in PACKAGES.items()}
# game id -> rules version -> the game under those rules (oldest first)
RULES: dict[str, Mapping[str, Game]] = dict(_PACKAGED)
# game id -> the game under its newest rules: what a new table gets
GAMES: Mapping[str, Game] = _Newest(_PACKAGED)


class UnknownGame(KeyError):
    pass


class UnknownRulesVersion(KeyError):
    pass


def get_game(game_type: str, rules_version: str | None = None) -> Game:
    """The game under `rules_version` (the newest if None)."""
    versions = RULES.get(game_type)
    if versions is None:
        raise UnknownGame(game_type)
    if rules_version is None:
        return GAMES[game_type]
    try:
        return versions[rules_version]
    except KeyError:
        raise UnknownRulesVersion(f"{game_type} rules_version {rules_version}") from None
