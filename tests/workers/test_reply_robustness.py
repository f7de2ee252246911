"""Emailed replies against what the auditor sent (s35): a From header that names one address
but is read as another, an envelope sender that is not the From address, answers used up by
strangers and replays, and answers that left their game's thread. Replies go through
`POST /v1/inbound/email` or `EmailReplies.handle` with the envelope `meeple smtpd` sees; the
answers are made by a real RQ worker into a maildir."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
import redis
import structlog
import structlog.testing
from flask import Flask

from events.accounts.profiles import Profiles
from events.application.digests import Digests
from events.application.dispatch import RQDispatcher
from events.application.meeple import Meeple
from events.domain.deadlines import parse_time
from events.domain.table import decide_moves
from events.mail import reply_tokens
from events.mail.email_replies import EmailReplies, RQMailer, sender_of
from events.mail.reply_text import parse_message
from tests.workers.by_post import (
    Mail,
    Provider,
    assert_is_a_turn_email,
    people,
    sleep_until,
    turn_emails,
)
from tests.workers.by_post import reply as reply_by_smtp
from tests.workers.by_post import run_worker as run_rq_worker
from tests.workers.helpers import emails, first_legal_move, sections
from tests.workers.test_email_replies import RP, Game, mails_to, reply, run_worker, text_of
from tests.workers.test_jobs import play_to_end
from workers.deadlines import expire
from workers.letters import thread_of


@pytest.fixture()
def game(flask_app: Flask, meeple: Meeple, maildir: Path) -> Game:
    return Game(flask_app, meeple, maildir)


def with_from(raw: bytes, header: bytes) -> bytes:
    """The reply with its From header replaced by `header`, byte for byte."""
    return re.sub(rb"^From: [^\r\n]*", b"From: " + header.replace(b"\\", b"\\\\"), raw,
                  count=1, flags=re.MULTILINE)


def answers(game: Game, address: str) -> list[str]:
    """The outcomes of the answers mailed to `address`, oldest first."""
    return [str(m["X-Meeple-Reply-Outcome"]) for m in mails_to(game.maildir, address)
            if m["X-Meeple-Reply-Outcome"]]


# --- 1. whose reply it is --------------------------------------------------------------------


@pytest.mark.parametrize("header", [
    "bob@example.org <mallory@evil.test>",  # parseaddr reads bob (CVE-2023-27043)
    "<bob@example.org>mallory@evil.test",
    "bob@example.org (x) <mallory@evil.test>",
    "bob@example.org, mallory@evil.test",  # two addresses: whose is it?
    "<<<@@@>>> \"unterminated",
    "garbage",
    "",
])
def test_a_from_header_that_is_not_one_clean_address_names_nobody(header: str) -> None:
    message = parse_message(f"From: {header}\r\nTo: play+x@localhost\r\n\r\n1\r\n".encode())
    assert sender_of(message) == ""


@pytest.mark.parametrize(("header", "address"), [
    (b"bob@example.org", "bob@example.org"),
    (b"Bob <Bob@Example.org>", "Bob@Example.org"),
    (b"J. Smith <js@example.org>", "js@example.org"),  # obsolete syntax, one address
    (b"\xc3\x89lise <elise@example.org>", "elise@example.org"),  # a raw UTF-8 name
    (b"=?utf-8?q?Al=C3=AFce?= <alice@example.org>", "alice@example.org"),
    (b"\"bob@example.org\" <mallory@evil.test>", "mallory@evil.test"),  # a quoted name
])
def test_a_clean_from_header_names_its_one_address(header: bytes, address: str) -> None:
    message = parse_message(b"From: " + header + b"\r\nTo: play+x@localhost\r\n\r\n1\r\n")
    assert sender_of(message) == address


def test_a_from_header_with_the_players_address_as_its_name_plays_nothing_and_mails_nobody(
        game: Game) -> None:
    email, turn = game.turn_email()
    before = game.versions()
    forged = with_from(reply(turn, "1", email), f"{email} <mallory@evil.test>".encode())
    outcome = game.send(forged)
    assert outcome["outcome"] == "wrong_sender"
    assert game.versions() == before
    # Nobody is mailed: the header names no one we could believe.
    assert answers(game, email) == [] and mails_to(game.maildir, "mallory@evil.test") == []
    # The email is still good for its player.
    assert game.send(reply(turn, "1", email))["outcome"] == "played"


def test_an_envelope_sender_that_is_not_the_from_address_is_refused_and_logged(
        game: Game, tmp_path: Path) -> None:
    email, turn = game.turn_email()
    before = game.versions()
    replies = EmailReplies(game.meeple, reply_tokens.secret_in(tmp_path / "keys"),
                           RQMailer(game.meeple.redis))
    raw = reply(turn, "1", email)
    to = [str(turn["Reply-To"])]
    with structlog.testing.capture_logs() as logged:
        refused = replies.handle(raw, to, envelope_sender="mallory@evil.test")
    run_worker(game.meeple)
    assert refused.outcome == "forged" and "envelope sender" in refused.reason
    assert [entry["event"] for entry in logged] == [
        "email reply refused: the envelope sender is not the From address"]
    assert "mallory" not in str(logged)  # no address in the log
    assert game.versions() == before and answers(game, email) == []
    # The same reply with its own address in the envelope (in any case) plays.
    assert replies.handle(raw, to, envelope_sender=email.upper()).outcome == "played"


# --- 4. answers that strangers and replays cannot use up ---------------------------------------


def test_strangers_and_replays_do_not_use_up_the_answers_to_the_players_own_reply(
        game: Game) -> None:
    email, turn = game.turn_email()
    for index in range(4):  # someone who has the email (forwarded) tries it, over and over
        stranger = with_from(reply(turn, f"1 {index}", email), b"eve@example.net")
        assert game.send(stranger)["outcome"] == "wrong_sender"
    assert answers(game, email) == ["wrong_sender"] * 3  # they have a budget of their own
    assert game.send(reply(turn, "no-such-code", email))["outcome"] == "unreadable"
    assert answers(game, email)[-1] == "unreadable"


def test_the_players_first_refused_reply_to_a_notice_is_answered_whatever_went_before(
        game: Game, tmp_path: Path) -> None:
    email, latest = game.turn_email()
    for _ in range(4):  # three answers, each a fresh token, then no more
        game.send(reply(latest, "no-such-code", email))
        latest = mails_to(game.maildir, email)[-1]
    assert answers(game, email) == ["unreadable"] * 3
    # Another notice at the same version (a deadline reminder carries a fresh token too).
    _, _, seat = game.actor()
    notice = reply_tokens.reply_address(reply_tokens.issue(
        reply_tokens.secret_in(tmp_path / "keys"), game.id, seat, game.versions()))
    raw = reply(latest, "no-such-code", email).replace(
        str(latest["Reply-To"]).encode(), notice.encode())
    assert game.send(raw)["outcome"] == "unreadable"
    assert answers(game, email) == ["unreadable"] * 4


# --- 5. answers in their game's thread ---


def test_an_answer_belongs_to_the_games_thread_and_can_unsubscribe(game: Game) -> None:
    email, turn = game.turn_email()
    _, player, _ = game.actor()
    assert game.send(reply(turn, "no-such-code", email))["outcome"] == "unreadable"
    answer = mails_to(game.maildir, email)[-1]
    thread = thread_of(game.id, player.id)
    assert answer["In-Reply-To"] == thread and answer["References"] == thread
    assert re.fullmatch(r"<mailto:stop\+[a-z0-9-]+@localhost\?subject=unsubscribe>",
                        str(answer["List-Unsubscribe"]))
    assert answer["In-Reply-To"] == turn["In-Reply-To"]  # the same thread as the turn email


def test_an_answer_after_the_end_names_the_game_and_promises_no_turn(game: Game) -> None:
    email, turn = game.turn_email()
    players = {s.seat: game.people[f"{s.name}@example.org"][1]
               for s in game.meeple.load(game.id).seats}
    play_to_end(game.meeple, game.id, players)
    assert game.send(reply(turn, "1", email))["outcome"] == "stale"
    answer = mails_to(game.maildir, email)[-1]
    assert answer["X-Meeple-Reply-Outcome"] == "stale"
    assert str(answer["Subject"]).endswith(f"Res Publica 2230 AD #{game.id[:6]}")
    text = text_of(answer)
    assert "you will get an email when you do" not in text
    assert f"game {game.id}, has ended" in text
    assert str(answer["List-Unsubscribe"]).startswith("<mailto:stop+")


# --- 2, 3. replies as mail clients in other countries write them -------------------------------


def test_a_reply_in_an_unknown_charset_below_a_spanish_attribution_plays(game: Game) -> None:
    email, turn = game.turn_email()
    before = game.versions()
    quoted = "\r\n".join("> " + line for line in text_of(turn).splitlines())
    raw = (f"From: {email}\r\nTo: {turn['Reply-To']}\r\nSubject: Re: turn\r\n"
           "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=windows-874\r\n"
           "Content-Transfer-Encoding: 8bit\r\n\r\n1\r\n\r\n"
           "El s\u00e1b, 5 dic 2026 a las 23:22, Meeple (<meeple@localhost>) escribi\u00f3:"
           f"\r\n\r\n{quoted}\r\n").encode("cp874", errors="replace")
    assert game.send(raw)["outcome"] == "played"
    assert game.versions() > before


# --- 6. a player at two seats ("hot seat") ---


def seat_emails(provider: Provider, address: str, game_id: str, seat: int) -> list[Mail]:
    """The turn emails to `address` about `seat` of the game (their first line names it)."""
    return [mail for mail in turn_emails(provider, address, game_id=game_id)
            if mail.text.splitlines()[0].endswith(f"(seat {seat}).")]


def test_a_move_by_email_that_hands_the_turn_to_the_players_other_seat_mails_that_seat(
        flask_app: Flask, meeple: Meeple, provider: Provider, smtpd: int) -> None:
    carol, address = people(meeple.redis, meeple)[2]
    table = meeple.join_game(carol, meeple.create_game(carol, RP, 2).id)
    run_rq_worker(meeple.redis)
    for _ in range(30):  # seat 0 plays by email until its move makes seat 1 act
        assert table.actors() == [0]
        latest = seat_emails(provider, address, table.id, 0)[-1]
        move = first_legal_move(table, 0)["id"]
        assert reply_by_smtp(smtpd, latest, address, move) == "played"
        run_rq_worker(meeple.redis)
        table = meeple.load(table.id)
        if 1 in table.actors():
            break
    else:
        raise AssertionError("seat 1 never came to act")
    told = seat_emails(provider, address, table.id, 1)
    assert told, "no turn email for the player's other seat"
    assert_is_a_turn_email(told[-1], table, 1)
    # The seat's own email plays for that seat.
    move = first_legal_move(table, 1)["id"]
    assert reply_by_smtp(smtpd, told[-1], address, move) == "played"


def test_meeple_smtpd_refuses_a_reply_whose_envelope_sender_is_not_its_from(
        flask_app: Flask, meeple: Meeple, provider: Provider, smtpd: int) -> None:
    """A forger writes the player's address into From but sends from its own (MAIL FROM):
    `meeple smtpd` hands the envelope sender on, and nothing is played."""
    carol, address = people(meeple.redis, meeple)[2]
    table = meeple.join_game(carol, meeple.create_game(carol, RP, 2).id)
    run_rq_worker(meeple.redis)
    latest = seat_emails(provider, address, table.id, 0)[-1]
    move = first_legal_move(table, 0)["id"]
    before = meeple.load(table.id).version
    assert reply_by_smtp(smtpd, latest, address, move, mail_from="mallory@evil.test") == \
        "forged"
    assert meeple.load(table.id).version == before
    assert reply_by_smtp(smtpd, latest, address, move) == "played"



def test_the_answer_to_a_refused_reply_is_about_the_seat_it_came_from(
        meeple: Meeple, provider: Provider, smtpd: int) -> None:
    """README: "each seat that comes to act gets its own turn email"; a refused reply "is
    answered by email with the reason and your current moves": of that seat (outside audit,
    session 38: the answer to seat 1's reply listed seat 0's moves under seat 0's address,
    and the player's next code played seat 0's secret pick)."""
    who = people(meeple.redis, meeple)
    kim, address = who[0]
    table = meeple.create_game(kim, "trappist-one", 3)
    table = meeple.join_game(kim, table.id, 1)  # kim holds seats 0 and 1
    table = meeple.join_game(who[2][0], table.id, 2)
    assert table.actors() == [0, 1, 2]  # the secret starting choice
    run_rq_worker(meeple.redis)
    (seat1,) = [m for m in turn_emails(provider, address, game_id=table.id)
                if str(m.message["Reply-To"]).startswith(f"play+{table.id}-1-")]
    since = provider.count()
    assert reply_by_smtp(smtpd, seat1, address, "hello") == "unreadable"
    run_rq_worker(meeple.redis)
    (answer,) = [m for m in provider.to(address, since)
                 if m.message["X-Meeple-Event"] == "reply_answer"]
    assert str(answer.message["Reply-To"]).startswith(f"play+{table.id}-1-")
    assert reply_by_smtp(smtpd, answer, address, "1") == "played"
    after = meeple.load(table.id)
    assert 0 in after.actors() and 1 not in after.actors()  # seat 1 chose, seat 0 still has to


# --- 7. a daily digest does not hold the next step of the player's own turn ---


def test_a_daily_digest_player_gets_the_next_step_of_their_turn_at_once(game: Game) -> None:
    seed = game.meeple.store.get_seed(game.id) or b""
    for _ in range(200):  # play on (by the API) until the actor has a move that leaves them acting
        email, player, seat = game.actor()
        table = game.meeple.load(game.id)
        assert table.state is not None
        legal = table.game.legal_moves(table.state, seat)
        going_on = [code for code, move in enumerate(legal, start=1)
                    if seat in decide_moves(table, player.id, seat, [{"id": move["id"]}],
                                            seed).table.actors()]
        if going_on:
            break
        game.meeple.play_moves(player, game.id, [{"id": legal[0]["id"]}], table.version, seat)
        run_worker(game.meeple)
    else:
        raise AssertionError("no move that leaves its player acting came up")
    _, turn = game.turn_email()
    Profiles(game.meeple.redis).update(player.id, {"digest": "daily"})
    assert game.send(reply(turn, str(going_on[0]), email))["outcome"] == "played"
    _, follow_up = game.turn_email()
    assert follow_up["Message-ID"] != turn["Message-ID"]
    assert f"(version {game.versions()})." in text_of(follow_up)
    assert Digests(game.meeple.redis).held(player.id) == []  # not held for the digest too


# --- 8. a seat whose time ran out is told ---


def test_the_player_whose_time_ran_out_reads_it_in_their_next_turn_email(
        redis_url: str, redis_client: redis.Redis, tmp_path: Path, maildir: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEEPLE_REDIS_URL", redis_url)  # the jobs read these, as in production
    monkeypatch.setenv("MEEPLE_KEYS_DIR", str(tmp_path / "keys"))
    monkeypatch.setenv("MEEPLE_NOTIFY_RETRY_INTERVALS", "0")
    app = Meeple(redis_client, RQDispatcher(redis_client), min_move_seconds=1)
    who = people(redis_client, app)
    (alice, alice_address), (bob, _) = who[0], who[1]
    opened = app.create_game(alice, RP, 2, deadline={"hours": 1 / 3600, "on_expiry": "bot",
                                                         "bot": "random"})
    table = app.join_game(bob, opened.id)
    seat = table.actors()[0]
    clock = table.clock_of(seat)
    assert seat == 0 and clock is not None
    sleep_until((parse_time(clock.at) + timedelta(seconds=1)).timestamp())
    assert expire(table.id, seat, clock.version) == "expired"
    for _ in range(200):  # bob plays (by the API) until alice must act again
        table = app.load(table.id)
        if 0 in table.actors():
            break
        move = first_legal_move(table, table.actors()[0])
        app.play_moves(bob, table.id, [{"id": move["id"]}], table.version, 1)
    else:
        raise AssertionError("alice never came to act again")
    run_worker(app)
    latest = [m for m in emails(maildir) if m["To"] == alice_address
              and m["X-Meeple-Event"] == "your_turn"][-1]
    assert "alice's time ran out." in sections(text_of(latest))["Since your last turn"]
