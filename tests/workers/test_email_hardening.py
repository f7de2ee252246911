"""Email as safe as the API (issue 11, point 7): an emailed batch ends at a move that shows
the player something new, as a batch sent to the API does; refused replies of a seat are
answered a few times per turn, not without end; names and headers cannot break an email."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask

from events.application.meeple import Meeple
from games.information import ends_batch
from tests.responses import body_of
from tests.workers.test_email_replies import AUTH, Game, mails_to, reply, run_worker, text_of


def test_a_reply_that_goes_on_after_a_revealing_move_is_refused_as_the_api_would(
        flask_app: Flask, meeple: Meeple, maildir: Path) -> None:
    """"If a later move's legality could depend on what an earlier one revealed, a refused
    batch would tell the player that hidden thing" (games/information.py): by email too."""
    game = Game(flask_app, meeple, maildir)
    seed = meeple.store.get_seed(game.id) or b""
    for _ in range(200):  # play on (by the API) until the actor has a move that reveals
        email, player, seat = game.actor()
        table = meeple.load(game.id)
        assert table.state is not None
        legal = table.game.legal_moves(table.state, seat)
        revealing = [code for code, move in enumerate(legal, start=1)
                     if ends_batch(table.game, table.state, seat, move, table.rng_key(seed),
                                   table.version + 1)]
        if revealing:
            break
        meeple.play_moves(player, game.id, [{"id": legal[0]["id"]}], table.version, seat)
        run_worker(meeple)
    else:
        raise AssertionError("no move that reveals came up")
    _, turn = game.turn_email()
    before = game.versions()
    outcome = game.send(reply(turn, f"{revealing[0]} 1", email))
    assert outcome["outcome"] == "unreadable"
    assert game.versions() == before  # nothing played
    answer = [m for m in mails_to(maildir, email)
              if m["X-Meeple-Reply-Outcome"] == "unreadable"][-1]
    # The same words whatever the hidden card is: only the code and its place are named.
    assert (f"'{revealing[0]}' (word 1) shows you something you cannot know yet"
            in text_of(answer))
    # Alone, the same code plays.
    assert game.send(reply(game.turn_email()[1], str(revealing[0]), email))["outcome"] \
        == "played"


def test_refused_replies_are_answered_three_times_a_turn_then_no_more(
        flask_app: Flask, meeple: Meeple, maildir: Path) -> None:
    game = Game(flask_app, meeple, maildir)
    email, latest = game.turn_email()
    before = game.versions()
    outcomes = []
    for _ in range(5):  # each answer carries a fresh token: probing would never end
        outcomes.append(game.send(reply(latest, "no-such-code", email))["outcome"])
        refused = [m for m in mails_to(maildir, email) if m["X-Meeple-Reply-Outcome"]]
        latest = refused[-1] if refused else latest
    # Three answers, each with a fresh token; the fourth reply (on the third answer's token)
    # is refused without an answer, and so nothing new can be tried: the fifth is a reuse,
    # answered from a budget of its own (so replays never use up the player's).
    assert outcomes == ["unreadable"] * 4 + ["reused"]
    answers = [m["X-Meeple-Reply-Outcome"] for m in mails_to(maildir, email)
               if m["X-Meeple-Reply-Outcome"]]
    assert answers == ["unreadable"] * 3 + ["reused"]
    assert game.versions() == before


def test_a_name_that_could_break_an_email_is_refused(flask_app: Flask) -> None:
    client = flask_app.test_client()
    for name in ("eve\r\nBcc: all@example.org", "line\u2028separator", "tab\there",
                 "bidi\u202eeve", "   "):
        response = client.post("/v1/players", json={"name": name})
        assert response.status_code == 422, name
        assert body_of(response)["code"] == "invalid_request"
    assert client.post("/v1/players", json={"name": "Zoë Ğ 鈴木"}).status_code == 201


def test_headers_are_one_line_whatever_the_text() -> None:
    from workers.letters import header_text  # here: the other tests need none of it

    assert header_text("eve\r\nBcc: all@example.org wrote") == "eve Bcc: all@example.org wrote"
    assert header_text("a\u2028b\u0000c\u202ed") == "a b c d"


@pytest.mark.parametrize("content_type", [
    # Python knows these names as codecs that do not decode text (outside audit, session 38):
    "text/plain; charset=undefined", "text/plain; charset=rot13", "text/plain; charset=zlib",
    # The parser chokes on the header itself (outside audit, session 39):
    "text/plain; charset*=idna''abc", "text/plain; charset*=punycode''abc",
    "text/plain; charset*=undefined''abc",
    # A label holding a NUL (session 39):
    'text/plain; charset="utf-8\x00"', "text/plain; charset=utf\x00-8"])
def test_a_reply_in_a_charset_that_is_no_text_encoding_plays(
        flask_app: Flask, meeple: Meeple, maildir: Path, content_type: str) -> None:
    """README: a charset label Python does not know is read "else as UTF-8". Each of these
    was a 500 at `POST /v1/inbound/email` (and a 451 at `meeple smtpd`): some before the
    reply's address was read, the others after it was used up, so the provider's retry was
    "reused" and the move lost. The reply plays, and its retry is "reused"."""
    game = Game(flask_app, meeple, maildir)
    email, turn = game.turn_email()
    raw = (f"From: {email}\r\nTo: {turn['Reply-To']}\r\nSubject: Re: turn\r\n"
           f"Content-Type: {content_type}\r\n\r\n1\r\n").encode()
    before = game.versions()
    assert game.send(raw)["outcome"] == "played"
    assert game.versions() > before
    assert game.send(raw)["outcome"] == "reused"


def test_a_strangers_email_the_parser_chokes_on_is_answered_202(flask_app: Flask) -> None:
    """`POST /v1/inbound/email` answers 202 "with what the reply did, whatever it did"."""
    raw = (b"From: someone@example.org\r\nTo: play+nothing@localhost\r\nSubject: hi\r\n"
           b"Content-Type: text/plain; charset*=idna''abc\r\n\r\n1\r\n")
    response = flask_app.test_client().post("/v1/inbound/email", data=raw, headers=AUTH)
    assert response.status_code == 202
    assert response.get_json()["outcome"] == "forged"


def test_a_providers_retry_of_a_played_reply_is_not_answered(
        flask_app: Flask, meeple: Meeple, maildir: Path) -> None:
    """One answer per message: the same bytes again (an inbound provider retries after a
    timeout) are "reused", and the player is not mailed "Nothing was played" about a move
    that was played (outside audit, session 38)."""
    game = Game(flask_app, meeple, maildir)
    email, turn = game.turn_email()
    raw = reply(turn, "1", email)
    assert game.send(raw)["outcome"] == "played"
    answers = len([m for m in mails_to(maildir, email) if m["X-Meeple-Reply-Outcome"]])
    assert game.send(raw)["outcome"] == "reused"
    assert len([m for m in mails_to(maildir, email) if m["X-Meeple-Reply-Outcome"]]) == answers
