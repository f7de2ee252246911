"""Every hosted game, by its stable id."""

from __future__ import annotations

from games.contract import Game


def _load() -> dict[str, Game]:
    from games.asking_for_trobils import GAME as asking_for_trobils
    from games.res_publica import GAME as res_publica

    return {game.id: game for game in (res_publica, asking_for_trobils)}


GAMES: dict[str, Game] = _load()


class UnknownGame(KeyError):
    pass


def get_game(game_type: str) -> Game:
    try:
        return GAMES[game_type]
    except KeyError:
        raise UnknownGame(game_type) from None
