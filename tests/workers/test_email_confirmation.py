"""Issue 11, point 7: "an address must be confirmed (a code or link sent to it) before anything
else is sent to it, one player per address". The finding: "an email address is used without
confirmation, and claiming another player's address redirects that player's mail".

Real parts: the Flask app with RQ dispatch, a real RQ worker run, emails into a maildir."""

from __future__ import annotations

import mailbox
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from flask import Flask

from events.accounts.profiles import CODE_MAX_ATTEMPTS, CODES_PER_PLAYER_PER_DAY, Profiles
from events.application.meeple import Meeple
from tests.service.conftest import Caller
from tests.workers.helpers import (
    caller,
    confirm_by_code,
    emails,
    html_of,
    run_worker,
    text_of,
)

RP = "res-publica-2230ad"


def patch(who: Caller, body: dict[str, Any]) -> Any:
    return who.client.patch("/v1/players/me", json=body, headers=who.headers)


def confirm(who: Caller, code: str) -> Any:
    return who.client.post("/v1/players/me/email/confirm", json={"code": code},
                           headers=who.headers)


def mail_to(maildir: Path, address: str) -> list[EmailMessage]:
    return [mail for mail in emails(maildir) if mail["To"] == address]


def code_in(mail: EmailMessage) -> str:
    return str(mail["Subject"]).rsplit(" ", 1)[1]


def test_an_unconfirmed_address_gets_its_code_and_nothing_else(
    flask_app: Flask, meeple: Meeple, maildir: Path
) -> None:
    alice_caller, alice, _ = caller(flask_app, "alice", notify="email")
    assert patch(alice_caller, {"email": "alice@example.org"}).json["email"] is None
    _, bob, _ = caller(flask_app, "bob")
    table = meeple.create_game(alice, RP, 2)
    meeple.join_game(bob, table.id)  # the game starts: someone must act, maybe alice
    meeple.post_message(bob, table.id, "hello alice")  # table talk would be mailed too
    run_worker(meeple)
    mails = mail_to(maildir, "alice@example.org")
    assert [str(m["Subject"]).split(":")[0] for m in mails] == [
        "Your Meeple confirmation code"]
    assert "ignore this email" in text_of(mails[0])
    assert code_in(mails[0]) in text_of(mails[0]) and code_in(mails[0]) in html_of(mails[0])


def test_the_code_confirms_the_address_and_notices_follow(
    flask_app: Flask, meeple: Meeple, maildir: Path
) -> None:
    alice_caller, alice, _ = caller(flask_app, "alice", notify="email")
    patch(alice_caller, {"email": "Alice@Example.org"})
    run_worker(meeple)
    code = code_in(mail_to(maildir, "Alice@Example.org")[0])
    confirmed = confirm(alice_caller, code)
    assert confirmed.status_code == 200, confirmed.json
    assert confirmed.json["email"] == "Alice@Example.org"
    assert confirmed.json["email_pending"] is None
    assert confirm(alice_caller, code).json["code"] == "wrong_code"  # used up
    _, bob, _ = caller(flask_app, "bob")
    table = meeple.create_game(alice, RP, 2)
    meeple.join_game(bob, table.id)
    meeple.post_message(bob, table.id, "hello alice")
    run_worker(meeple)
    subjects = [str(m["Subject"]) for m in mail_to(maildir, "Alice@Example.org")]
    assert any(s.startswith("bob wrote") for s in subjects), subjects


def test_wrong_codes_are_refused_and_five_use_the_code_up(
    flask_app: Flask, meeple: Meeple, maildir: Path
) -> None:
    alice, _, _ = caller(flask_app, "alice")
    assert confirm(alice, "12345678").json["code"] == "wrong_code"  # nothing asked for
    patch(alice, {"email": "alice@example.org"})
    run_worker(meeple)
    code = code_in(mail_to(maildir, "alice@example.org")[0])
    wrong = "0" if code != "0" else "1"
    for _ in range(CODE_MAX_ATTEMPTS):
        answer = confirm(alice, wrong)
        assert answer.status_code == 422 and answer.json["code"] == "wrong_code"
    answer = confirm(alice, code)
    assert answer.status_code == 422 and "too many" in answer.json["detail"]
    assert alice.get("/v1/players/me").json["email"] is None
    # Setting the address again sends a new code, which works.
    mailbox.Maildir(str(maildir)).clear()
    patch(alice, {"email": "alice@example.org"})
    assert confirm_by_code(flask_app, alice, "alice@example.org").status_code == 200


def test_an_expired_code_is_refused(flask_app: Flask, meeple: Meeple, maildir: Path) -> None:
    alice, _, _ = caller(flask_app, "alice")
    patch(alice, {"email": "alice@example.org"})
    run_worker(meeple)
    code = code_in(mail_to(maildir, "alice@example.org")[0])
    meeple.redis.hset(f"meeple:profile:{alice.id}", "email_code_expires", "1")
    answer = confirm(alice, code)
    assert answer.status_code == 422 and "expired" in answer.json["detail"]


def test_one_player_per_address_and_no_mail_redirected(
    flask_app: Flask, meeple: Meeple, maildir: Path
) -> None:
    alice_caller, alice, _ = caller(flask_app, "alice", email="alice@example.org",
                                    notify="email")
    mallory, _, _ = caller(flask_app, "mallory", notify="email")
    taken = patch(mallory, {"email": "ALICE@example.org"})
    assert taken.status_code == 409 and taken.json["code"] == "email_taken"
    assert Profiles(meeple.redis).player_by_email("alice@example.org") == alice.id
    # Two players asking for one free address: whoever confirms first has it.
    carol, _, _ = caller(flask_app, "carol")
    patch(mallory, {"email": "shared@example.org"})
    patch(carol, {"email": "shared@example.org"})
    run_worker(meeple)
    codes = [code_in(m) for m in mail_to(maildir, "shared@example.org")]
    assert len(codes) == 2
    results = [confirm(who, code) for who in (carol, mallory) for code in codes]
    assert [r.status_code for r in results].count(200) == 1
    assert any(r.json.get("code") == "email_taken" for r in results)
    assert Profiles(meeple.redis).player_by_email("shared@example.org") == carol.id
    assert alice_caller.get("/v1/players/me").json["email"] == "alice@example.org"


def test_a_new_address_replaces_the_old_only_once_confirmed(
    flask_app: Flask, meeple: Meeple, maildir: Path
) -> None:
    alice, player, _ = caller(flask_app, "alice", email="alice@example.org", notify="email")
    changed = patch(alice, {"email": "alice@elsewhere.org"}).json
    assert changed["email"] == "alice@example.org"
    assert changed["email_pending"] == "alice@elsewhere.org"
    profiles = Profiles(meeple.redis)
    assert profiles.player_by_email("alice@example.org") == player.id
    confirm_by_code(flask_app, alice, "alice@elsewhere.org")
    assert profiles.player_by_email("alice@example.org") is None
    assert profiles.player_by_email("alice@elsewhere.org") == player.id
    # Asking again for one's own confirmed address sends nothing.
    before = len(emails(maildir))
    again = patch(alice, {"email": "alice@elsewhere.org"}).json
    run_worker(meeple)
    assert again["email_pending"] is None and len(emails(maildir)) == before


def test_codes_a_day_are_bounded_and_a_superseded_code_is_not_sent(
    flask_app: Flask, meeple: Meeple, maildir: Path
) -> None:
    alice, _, _ = caller(flask_app, "alice")
    for n in range(CODES_PER_PLAYER_PER_DAY):
        assert patch(alice, {"email": f"a{n}@example.org"}).status_code == 200
    answer = patch(alice, {"email": "one-more@example.org"})
    assert answer.status_code == 409 and answer.json["code"] == "quota_exceeded"
    run_worker(meeple)
    # Only the address still pending when the worker ran was mailed.
    assert [m["To"] for m in emails(maildir)] == [f"a{CODES_PER_PLAYER_PER_DAY - 1}@example.org"]
    # And one address is mailed at most 3 codes a day, whoever asks.
    others = [caller(flask_app, f"p{n}")[0] for n in range(4)]
    answers = [patch(who, {"email": "target@example.org"}).status_code for who in others]
    assert answers == [200, 200, 200, 409]


def test_the_code_is_in_no_job_description(flask_app: Flask, meeple: Meeple) -> None:
    from rq import Queue

    alice, _, _ = caller(flask_app, "alice")
    patch(alice, {"email": "alice@example.org"})
    jobs = Queue("notify", connection=meeple.redis).get_jobs()
    assert len(jobs) == 1
    code = jobs[0].args[2]
    assert code not in (jobs[0].description or "") and code not in jobs[0].id
    assert "alice@example.org" not in (jobs[0].description or "")
