"""Every hosted game, by its stable id, under every rules version this server still runs.

A rules change makes a new `rules_version` of a game (see DESIGN: history stays true): new
tables get the newest, and a game keeps being played, replayed and verified under the
version it was created with. Each game package lists its versions, oldest first, in
`VERSIONS`; its `GAME` is the newest.
"""

from __future__ import annotations

from games.contract import Game


def _load() -> dict[str, dict[str, Game]]:
    from games.asking_for_trobils import VERSIONS as asking_for_trobils
    from games.res_publica import VERSIONS as res_publica

    return {versions[-1].id: {game.rules_version: game for game in versions}
            for versions in (res_publica, asking_for_trobils)}


# game id -> rules version -> the game under those rules (oldest first)
RULES: dict[str, dict[str, Game]] = _load()
# game id -> the game under its newest rules: what a new table gets
GAMES: dict[str, Game] = {game_id: list(versions.values())[-1]
                          for game_id, versions in RULES.items()}


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
