"""Issue 16 point 4, through `meeple smtpd`'s handler on a real socket, turn emails over real
SMTP (the `provider` of tests/workers/conftest.py) from a real RQ worker:

- "a reply is played when the moves its codes name are still legal for that seat and
  unchanged, even if the game's version moved (a message, another opponent's ...answer); only
  a reply whose moves changed is "stale"";
- "A reply from an address other than the player's is not played and is answered to the
  player's own address (so a forwarded email cannot play for you)";
- "Replying to a table-talk email posts to the table"; and List-Unsubscribe turns the
  notices off.
Trappist One's starting choice is where several seats act at once: every seat is asked at
once, and each one's pick leaves the others' moves as they were."""

from __future__ import annotations

import smtplib
from email import policy
from email.message import EmailMessage
from email.utils import parseaddr
from typing import Any

import pytest
from flask import Flask

from events.accounts.profiles import Profiles
from events.application.meeple import Meeple
from tests.workers.by_post import Mail, Provider, people, run_worker
from tests.workers.helpers import first_legal_move
from tests.workers.test_trappist_play_by_post import seated


def emails(provider: Provider, address: str, game_id: str, event: str,
           since: int = 0) -> list[Mail]:
    return [mail for mail in provider.to(address, since)
            if mail.message["X-Meeple-Game"] == game_id
            and mail.message["X-Meeple-Event"] == event]


def send(port: int, to: str, sender: str, subject: str, text: str) -> str:
    """An email from `sender` to `to`, by SMTP to `meeple smtpd`; the outcome it answers."""
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, subject
    message.set_content(text)
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.ehlo()
        smtp.mail(sender)
        code, _ = smtp.rcpt(to)
        assert code == 250
        code, said = smtp.data(message.as_bytes(policy=policy.SMTP))
    assert code == 250, said
    return said.decode().split()[-1]


def answer(port: int, mail: Mail, sender: str, words: str) -> str:
    """A reply as a mail client makes it: the words, then the quoted email."""
    quoted = "\n".join("> " + line for line in mail.text.splitlines())
    return send(port, str(mail.message["Reply-To"]), sender, "Re: " + mail.subject,
                f"{words}\n\nOn Wed, 2 Dec 2026, Meeple wrote:\n{quoted}\n")


def test_a_reply_stays_good_after_table_talk_and_other_seats_moves_and_goes_stale_once_its_moves_changed(  # noqa: E501
        flask_app: Flask, meeple: Meeple, provider: Provider, smtpd: int) -> None:
    who = people(meeple.redis, meeple)
    table = seated(meeple, who)
    run_worker(meeple.redis)
    asked = {seat: emails(provider, address, table.id, "your_turn")[0]
             for seat, (_, address) in who.items()}
    assert all(mail.message["Reply-To"].startswith("play+") for mail in asked.values())
    meeple.post_message(who[0][0], table.id, "Good luck, all!")  # the version moves on
    # bob answers the email he got before the talk: played; carol answers hers after bob's
    # pick (another seat's move) and the talk: her moves are as they were, so played too.
    assert answer(smtpd, asked[1], who[1][1], "1") == "played"
    assert answer(smtpd, asked[2], who[2][1], "1") == "played"
    after = meeple.load(table.id)
    assert after.actors() == [0] and after.version == table.version + 3
    # alice makes her pick through the API: her email's moves are gone, its reply is stale.
    move = first_legal_move(after, 0)
    meeple.play_moves(who[0][0], table.id, [{"id": move["id"]}], after.version, 0)
    before = meeple.store.version(table.id)
    assert answer(smtpd, asked[0], who[0][1], "1") == "stale"
    assert meeple.store.version(table.id) == before


def test_a_reply_from_another_address_plays_nothing_and_the_player_is_told(
        flask_app: Flask, meeple: Meeple, provider: Provider, smtpd: int) -> None:
    who = people(meeple.redis, meeple)
    table = seated(meeple, who)
    run_worker(meeple.redis)
    bobs = emails(provider, who[1][1], table.id, "your_turn")[0]
    sent = provider.count()
    # bob forwarded his email; whoever has it replies with a code from it.
    assert answer(smtpd, bobs, "eve@elsewhere.example", "1") == "wrong_sender"
    assert meeple.store.version(table.id) == table.version
    run_worker(meeple.redis)
    told = [mail for mail in provider.to(who[1][1], sent)
            if mail.message["X-Meeple-Reply-Outcome"] == "wrong_sender"]
    assert len(told) == 1 and "eve@elsewhere.example" in told[0].text
    assert "nothing was done" in told[0].text
    assert not provider.to("eve@elsewhere.example", sent)  # a stranger gets nothing
    # The forwarded email's token was not used up: bob's own reply to it still plays.
    assert answer(smtpd, bobs, who[1][1], "1") == "played"


def test_a_reply_to_table_talk_is_posted_at_the_table(
        flask_app: Flask, meeple: Meeple, provider: Provider, smtpd: int) -> None:
    who = people(meeple.redis, meeple)
    table = seated(meeple, who)
    meeple.post_message(who[0][0], table.id, "Good luck, all!")
    run_worker(meeple.redis)
    (talk,) = emails(provider, who[1][1], table.id, "message")
    assert talk.message["Reply-To"].startswith("talk+")
    assert "Good luck, all!" in talk.text and "alice" in talk.subject
    assert answer(smtpd, talk, who[1][1], "Thanks, alice.\nYou too!") == "talked"
    last = meeple.events(table.id)[-1]
    assert last["type"] == "MessagePosted" and last["data"] == {
        "seat": 1, "text": "Thanks, alice. You too!"}  # the quote and its header left out
    # An address is used once, as a turn email's is.
    assert answer(smtpd, talk, who[1][1], "Again") == "reused"


def test_a_talk_reply_loses_what_the_mail_client_slipped_in(
        flask_app: Flask, meeple: Meeple, provider: Provider, smtpd: int) -> None:
    """Table talk refuses format characters (U+200B, U+FEFF: invisible, they make a message
    look empty); a mail client's own are dropped, not the player's reply."""
    who = people(meeple.redis, meeple)
    table = seated(meeple, who)
    meeple.post_message(who[0][0], table.id, "Good luck, all!")
    run_worker(meeple.redis)
    (talk,) = emails(provider, who[1][1], table.id, "message")
    assert answer(smtpd, talk, who[1][1], "\ufeffThanks,\u200b alice.") == "talked"
    assert meeple.events(table.id)[-1]["data"] == {"seat": 1, "text": "Thanks, alice."}


def test_the_list_unsubscribe_address_turns_the_notices_off(
        flask_app: Flask, meeple: Meeple, provider: Provider, smtpd: int) -> None:
    who = people(meeple.redis, meeple)
    table = seated(meeple, who)
    run_worker(meeple.redis)
    bobs = emails(provider, who[1][1], table.id, "your_turn")[0]
    header = str(bobs.message["List-Unsubscribe"])
    assert header.startswith("<mailto:stop+") and header.endswith("?subject=unsubscribe>")
    address = parseaddr(header.strip("<>").removeprefix("mailto:").split("?")[0])[1]
    assert send(smtpd, address, who[1][1], "unsubscribe", "") == "stopped"
    assert Profiles(meeple.redis).get(who[1][0].id).notify == "none"
    sent = provider.count()
    meeple.post_message(who[0][0], table.id, "Still there, bob?")
    run_worker(meeple.redis)
    notices = provider.to(who[1][1], sent)
    assert [mail.message["X-Meeple-Reply-Outcome"] for mail in notices] == ["stopped"]
    assert emails(provider, who[2][1], table.id, "message", sent)  # carol still hears


@pytest.mark.parametrize("racer", ["table_talk", "other_seats_pick"])
def test_a_reply_overtaken_while_it_is_played_is_played_all_the_same(
        flask_app: Flask, meeple: Meeple, provider: Provider, smtpd: int,
        monkeypatch: pytest.MonkeyPatch, racer: str) -> None:
    """README: "A reply is played while the moves its codes name are unchanged for your
    seat, even if the game moved on meanwhile (table talk, another seat's pick)", also when
    that happens between the reading of the game and the append (outside audit: 5 of 6
    replies racing table talk were refused as stale, their addresses used up)."""
    who = people(meeple.redis, meeple)
    table = seated(meeple, who)
    run_worker(meeple.redis)
    asked = emails(provider, who[1][1], table.id, "your_turn")[0]
    real_play = meeple.play_moves
    raced: list[int] = []

    def play_after_a_racer(*args: Any, **kwargs: Any) -> Any:
        if not raced:  # the racer lands just before the reply's append
            raced.append(1)
            if racer == "table_talk":
                meeple.post_message(who[0][0], table.id, "hurry up, bob")
            else:
                now = meeple.load(table.id)
                assert now.state is not None
                pick = now.game.legal_moves(now.state, 2)[0]
                real_play(who[2][0], table.id, [{"id": pick["id"]}], now.version, 2)
        return real_play(*args, **kwargs)

    monkeypatch.setattr(meeple, "play_moves", play_after_a_racer)
    before = meeple.store.version(table.id)
    assert answer(smtpd, asked, who[1][1], "1") == "played"
    after = meeple.load(table.id)
    assert raced and after.version == before + 2 and 1 not in after.actors()
