"""The daily digest, for players whose profile says `digest: daily`.

Their turn notices, table talk and game ends are held (`events.application.digests`) instead of
sent, and one job a day (`digest-{player}-{day}`, at MEEPLE_DIGEST_HOUR o'clock UTC, by RQ's
scheduler) sends a single message: the games awaiting them now, what was said at their
tables and which games ended. Reminders of a deadline are never held: they are urgent.
"""

from __future__ import annotations

import os
from email.message import EmailMessage
from email.utils import formatdate
from typing import Any

import structlog

from events.accounts.profiles import Profiles
from events.application.digests import Digests
from workers.email_text import header_text
from workers.jobs import _app
from workers.notify import deliver_email, post_signed

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
    if not held and not awaiting.total:
        return "nothing to say"
    digest = {
        "event": "digest", "day": day,
        "awaiting": [{"game_id": g["id"], "type": g["type"], "version": g["version"],
                      "updated_at": g["updated_at"]} for g in awaiting.items],
        "awaiting_total": awaiting.total,
        "messages": [item for item in held if item["event"] == "message"],
        "ended": [item for item in held if item["event"] == "game_ended"],
    }
    if profile.notify == "email" and profile.email:
        deliver_email(digest_email(profile.email, digest, delivery))
    elif (profile.notify == "webhook" and profile.webhook_url and profile.webhook_secret
          and not profile.webhook_disabled_reason):
        post_signed(profiles, profile, digest, delivery)
    else:
        digests.release(player_id, len(held))
        return "no channel"
    profiles.mark_sent(delivery)
    digests.release(player_id, len(held))
    log.info("digest sent", delivery=delivery, held=len(held), awaiting=awaiting.total)
    return "sent"


def digest_email(to: str, digest: dict[str, Any], delivery: str) -> EmailMessage:
    count = digest["awaiting_total"]
    email = EmailMessage()
    email["Subject"] = header_text(f"Meeple, {digest['day']}: "
                        f"{count} game{'s' if count != 1 else ''} await{'s' if count == 1 else ''}"
                        " your move")
    email["From"] = os.environ.get("MEEPLE_MAIL_FROM") or "meeple@localhost"
    email["To"] = to
    email["Date"] = formatdate(usegmt=True)
    email["Message-ID"] = f"<{delivery}@meeple>"
    email["X-Meeple-Delivery"] = delivery
    lines = ["Your daily digest.", ""]
    if digest["awaiting"]:
        lines.append("Awaiting your move:")
        lines += [f"  game {g['game_id']} ({g['type']}), version {g['version']}, "
                  f"since {g['updated_at']}" for g in digest["awaiting"]]
        if count > len(digest["awaiting"]):
            lines.append(f"  ... and {count - len(digest['awaiting'])} more")
        lines.append("")
    if digest["messages"]:
        lines.append("Table talk:")
        lines += [f"  game {m['game_id']}: {m['from_name']} (seat {m['from_seat']}): "
                  f"{m['text']}" for m in digest["messages"]]
        lines.append("")
    if digest["ended"]:
        lines.append("Ended:")
        lines += [f"  game {e['game_id']} ({e['title']})" for e in digest["ended"]]
        lines.append("")
    lines.append("To get one message per turn instead, set digest to 'each' in your profile.")
    email.set_content("\n".join(lines) + "\n", cte="quoted-printable")
    return email
