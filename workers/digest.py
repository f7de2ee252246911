"""The daily digest, for players whose profile says `digest: daily`.

Their turn notices, table talk and game ends are held (`events.application.digests`) instead of
sent, and one job a day (`digest-{player}-{day}`, at MEEPLE_DIGEST_HOUR o'clock UTC, by RQ's
scheduler) sends a single message: the games awaiting them now, what was said at their
tables and which games ended. Reminders of a deadline are never held: they are urgent.
"""

from __future__ import annotations

from email.message import EmailMessage
from typing import Any

import structlog

from events.accounts.profiles import Profiles
from events.application.digests import SEND_DIGEST, Digests
from events.application.dispatch import HANDED_OVER, WEBHOOKS_QUEUE
from events.application.meeple import Meeple
from events.domain.visibility import table_view
from events.exceptions import MeepleError
from games.text import named
from workers.jobs import _app
from workers.letters import Letter, email_message, reply_to, short_id
from workers.notify import deliver_email, handed_over, post_signed

log = structlog.get_logger()

AWAITING_SHOWN = 50


def send_digest(player_id: str, day: str) -> str:
    """Send the player's digest for `day`: once, and only if there is something to say."""
    app = _app()
    profiles, digests = Profiles(app.redis), Digests(app.redis)
    delivery = f"digest-{player_id}-{day}"
    if profiles.already_sent(delivery):
        return "already sent"
    held = digests.held(player_id)
    awaiting = app.lobby.inbox(player_id, awaiting=True, limit=AWAITING_SHOWN)
    profile = profiles.get(player_id)
    # Held turn notices are told by what awaits the player now (a turn played since is over).
    if not awaiting.total and not any(item["event"] != "your_turn" for item in held):
        digests.release(player_id, held)
        return "nothing to say"
    digest = {
        "event": "digest", "day": day,
        "awaiting": [{"game_id": g["id"], "type": g["type"], "version": g["version"],
                      "updated_at": g["updated_at"], **where_you_stand(app, g["id"], player_id)}
                     for g in awaiting.items],
        "awaiting_total": awaiting.total,
        "messages": [item for item in held if item["event"] == "message"],
        "ended": [item for item in held if item["event"] == "game_ended"],
        "dropped": digests.dropped(player_id),  # older notices not kept (MAX_HELD)
    }
    if profile.notify == "email" and profile.email:
        deliver_email(digest_email(profile.email, digest, delivery, stop_address(digest)))
    elif (profile.notify == "webhook" and profile.webhook_url and profile.webhook_secret
          and not profile.webhook_disabled_reason):
        if handed_over(SEND_DIGEST, (player_id, day), delivery, WEBHOOKS_QUEUE):
            return HANDED_OVER
        post_signed(profiles, profile, digest, delivery)
    else:
        digests.release(player_id, held)
        return "no channel"
    profiles.mark_sent(delivery)
    digests.release(player_id, held)
    log.info("digest sent", delivery=delivery, held=len(held), awaiting=awaiting.total)
    return "sent"


def where_you_stand(app: Meeple, game_id: str, player_id: str) -> dict[str, Any]:
    """The game's title, what it asks of the player (at a seat that must act) and their own
    part of the table, in the game's words (`Game.describe`, as the turn emails show it)."""
    try:
        table = app.load(game_id)
    except MeepleError:  # gone, or its rules no longer on this server
        return {}
    seats = table.seats_of(player_id)
    # A player at several seats ("hot seat") is told of a seat that must act, not the first.
    seat = next((s for s in seats if s in table.actors()), seats[0] if seats else None)
    view = table_view(table, seat) if seat is not None else None
    if view is None:
        return {"title": table.game.title}
    names = table.names()
    own = table.game.describe(view, seat, names)[:1]
    return {"title": table.game.title, "seat": seat,
            "prompt": named(str(view.get("prompt") or ""), names),
            "yours": [line for part in own for line in part.lines]}


def stop_address(digest: dict[str, Any]) -> str | None:
    """The digest's List-Unsubscribe address, as every email has: a `stop` reply token
    names a seat of a game (here, any game of the digest the player sits at) and stops the
    emails of that seat's player."""
    for item in [*digest["messages"], *digest["ended"], *digest["awaiting"]]:
        if "seat" in item:
            return reply_to(item, "stop")
    return None


def digest_email(to: str, digest: dict[str, Any], delivery: str,
                 unsubscribe: str | None = None) -> EmailMessage:
    count = digest["awaiting_total"]
    letter = Letter(f"Meeple, {digest['day']}: {count} game{'s' if count != 1 else ''} "
                    f"await{'s' if count == 1 else ''} your move")
    letter.add("", ["Your daily digest."])
    awaiting = []
    for g in digest["awaiting"]:
        awaiting.append(f"{g.get('title') or g['type']} {short_id(g['game_id'])} (game "
                        f"{g['game_id']}), version {g['version']}, since {g['updated_at']}"
                        + (f": {g['prompt']}" if g.get("prompt") else ""))
        awaiting += [f"    {line}" for line in g.get("yours", [])]
    if count > len(digest["awaiting"]):
        awaiting.append(f"... and {count - len(digest['awaiting'])} more")
    letter.add("Awaiting your move", awaiting)
    talk = [f"{m['title']} {short_id(m['game_id'])}: {m['from_name']}: \u201c{m['text']}\u201d"
            for m in digest["messages"]]
    if digest.get("dropped"):
        talk.insert(0, f"... {digest['dropped']} earlier notices were not kept (only the "
                       "latest are)")
    letter.add("Table talk", talk)
    letter.add("Ended", [f"{e['title']} {short_id(e['game_id'])} (game {e['game_id']})"
                         for e in digest["ended"]])
    letter.add("", ["To get one message per turn instead, set digest to 'each' in your "
                    "profile."])
    return email_message(letter, to, delivery, unsubscribe=unsubscribe, event="digest")
