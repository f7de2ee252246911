"""The pages (issue 19): the public games, a table live, a replay that verifies its record.

Jinja templates and plain JavaScript from this package: no build step, no CDN, nothing
fetched from elsewhere. The server renders only what anyone may read (the game types, the
lists of public games); everything about one game comes from the public API, called by the
page itself with the viewer's API key, which stays in the browser (localStorage). So a page
shows a spectator nothing the API would not, and a player nothing but their own seat.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, abort, render_template

from events.store.event_store import GAME_ID
from service.middleware.auth import meeple

HERE = Path(__file__).parent
SUMMARIES: dict[str, str] = json.loads((HERE / "summaries.json").read_text())
LISTED = 20  # games a list on the home page shows

bp = Blueprint("web", __name__, template_folder="templates", static_folder="static",
               static_url_path="/static/web")


@bp.get("/")
def home() -> str:
    app = meeple()
    types = [{"id": game.id, "title": game.title, "min": game.min_players,
              "max": game.max_players, "summary": SUMMARIES.get(game.id, "")}
             for game in app.game_types()]
    lists = {status: app.lobby.page(status=status, limit=LISTED).items
             for status in ("active", "open", "ended")}
    return render_template("home.html", types=types, lists=lists,
                           titles={t["id"]: t["title"] for t in types})


@bp.get("/games/<game_id>")
def table(game_id: str) -> str:
    return render_template("table.html", game_id=_game_id(game_id))


@bp.get("/games/<game_id>/replay")
def replay(game_id: str) -> str:
    return render_template("replay.html", game_id=_game_id(game_id))


def _game_id(game_id: str) -> str:
    """The id as the page will ask the API for it (whether the game exists, and whether the
    viewer may see it, is the API's answer, in the page)."""
    if not GAME_ID.fullmatch(game_id):
        abort(404)
    return game_id


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)

    @app.context_processor
    def page_defaults() -> dict[str, Any]:
        return {"site": "Meeple"}
