"""Issue 5 point 3, the pure parts: "The reply is authorised by a signed, single-use token
bound to game, seat and version in the reply address" and "Quoted text and signatures in
replies are ignored"."""

from __future__ import annotations

import os
import stat
from email.message import EmailMessage
from pathlib import Path

import pytest

from events.mail import reply_tokens
from events.mail.email_replies import pick
from events.mail.reply_text import html_to_text, own_lines, parse_message, reply_words

SECRET = b"s" * 32


# --- tokens -------------------------------------------------------------------------------


def test_a_token_round_trips_and_fits_an_address_local_part() -> None:
    token = reply_tokens.issue(SECRET, "0123456789abcdef", 2, 4711)
    read = reply_tokens.read(SECRET, token)
    assert read is not None
    assert (read.game_id, read.seat, read.version) == ("0123456789abcdef", 2, 4711)
    address = reply_tokens.reply_address(token, "meeple.example")
    local = address.split("@")[0]
    assert len(local) <= 64 and local == local.lower() and local.startswith("play+")


def test_two_tokens_for_the_same_seat_and_version_differ() -> None:
    first = reply_tokens.issue(SECRET, "0123456789abcdef", 0, 5)
    second = reply_tokens.issue(SECRET, "0123456789abcdef", 0, 5)
    assert first != second
    assert reply_tokens.read(SECRET, first) != reply_tokens.read(SECRET, second)


def test_mail_systems_that_fold_case_do_not_break_a_token() -> None:
    token = reply_tokens.issue(SECRET, "0123456789abcdef", 1, 9)
    assert reply_tokens.read(SECRET, token.upper()) == reply_tokens.read(SECRET, token)
    assert reply_tokens.token_in([f"Meeple <PLAY+{token.upper()}@X.ORG>"]) == token


@pytest.mark.parametrize("part", range(5))
def test_changing_any_part_of_a_token_makes_it_invalid(part: int) -> None:
    token = reply_tokens.issue(SECRET, "0123456789abcdef", 1, 9)
    pieces = token.split("-")
    original = pieces[part]
    replacement = {"0": "1", "1": "2", "9": "8"}.get(original)
    if replacement is None:  # change one character, staying in the part's alphabet
        swap = "b" if original[0] != "b" else "c"
        replacement = swap + original[1:]
    pieces[part] = replacement
    assert reply_tokens.read(SECRET, "-".join(pieces)) is None


def test_another_secret_or_garbage_is_not_a_token() -> None:
    token = reply_tokens.issue(SECRET, "0123456789abcdef", 1, 9)
    assert reply_tokens.read(b"t" * 32, token) is None
    for garbage in ("", "play", "a-b-c-d-e", token + "x", token.replace("-", "."), "😀"):
        assert reply_tokens.read(SECRET, garbage) is None


def test_the_secret_is_made_once_private_and_kept(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    first = reply_tokens._read_or_create(keys / reply_tokens.SECRET_FILE)
    again = reply_tokens._read_or_create(keys / reply_tokens.SECRET_FILE)
    assert first == again and len(first) == 32
    mode = stat.S_IMODE(os.stat(keys / reply_tokens.SECRET_FILE).st_mode)
    assert mode == 0o600
    assert [p.name for p in keys.iterdir()] == [reply_tokens.SECRET_FILE]  # no temp left


def test_the_token_is_found_in_the_first_reply_address_of_the_recipients() -> None:
    token = reply_tokens.issue(SECRET, "0123456789abcdef", 1, 9)
    found = reply_tokens.token_in(["someone@else.org", f"play+{token}@meeple.example"])
    assert found == token
    assert reply_tokens.token_in(["someone@else.org", "play@meeple.example"]) is None


# --- reply text ---------------------------------------------------------------------------


def message(body: str, subtype: str = "plain") -> EmailMessage:
    made = EmailMessage()
    made["From"] = "alice@example.org"
    made["To"] = "play+x@meeple.example"
    made.set_content(body, subtype=subtype)
    return parse_message(made.as_bytes())


def test_quoted_text_and_what_follows_on_wrote_are_ignored() -> None:
    body = ("3\n\nOn Mon, 30 Nov 2026 at 12:00, Meeple <play+abc@meeple.example> wrote:\n"
            "> Your moves:\n>   1. Request cards\n  2. Offer cards\n")
    assert reply_words(message(body)) == ["3"]


def test_a_wrapped_on_wrote_line_is_recognised() -> None:
    body = "2\nOn Mon, 30 Nov 2026 at 12:00 Meeple <\nplay+abc@meeple.example> wrote:\n7\n"
    assert reply_words(message(body)) == ["2"]


def test_inline_quoted_lines_are_skipped() -> None:
    assert reply_words(message("> 1. Request cards\n2\n> 3. Draw\n")) == ["2"]


@pytest.mark.parametrize("signature", [
    "-- \nAlice\n12 Main St", "--\nAlice", "Sent from my iPhone", "Get Outlook for Android",
    "Envoyé de mon iPhone", "________________________________\nFrom: Meeple",
    "-----Original Message-----\nFrom: Meeple",
])
def test_signatures_and_mobile_footers_are_ignored(signature: str) -> None:
    assert reply_words(message(f"1, 4\n\n{signature}\n9 9 9\n")) == ["1", "4"]


def test_several_codes_one_per_line_or_separated_by_spaces_or_commas() -> None:
    assert reply_words(message("1\n2, 3;4  done\n\n5.\n")) == ["1", "2", "3", "4", "done", "5"]


def test_an_html_only_reply_is_read_without_its_quote() -> None:
    html = ("<html><head><style>p {color: red}</style></head><body><div>4<br>done</div>"
            "<div class=\"gmail_quote\"><div>On Mon, Meeple wrote:</div>"
            "<blockquote>1. Request cards<br>2. Offer</blockquote></div></body></html>")
    assert reply_words(message(html, "html")) == ["4", "done"]
    assert html_to_text("<p>1</p><blockquote><p>2</p></blockquote><p>3</p>").split() == ["1", "3"]


def test_a_multipart_reply_uses_its_plain_part() -> None:
    made = EmailMessage()
    made["To"] = "play+x@meeple.example"
    made.set_content("2\n> 1. quoted\n")
    made.add_alternative("<p>7</p>", subtype="html")
    assert reply_words(parse_message(made.as_bytes())) == ["2"]


def test_blank_and_empty_replies_have_no_words() -> None:
    assert reply_words(message("\n\n   \n> 1\n")) == []
    assert own_lines("") == []


def test_a_huge_reply_is_cut_after_one_word_too_many() -> None:
    assert len(reply_words(message("1 " * 10_000))) == 51


# --- codes and move ids -------------------------------------------------------------------


LEGAL = [{"id": "request", "label": "Request"}, {"id": "offer", "label": "Offer"},
         {"id": "done", "label": "Done"}]


def test_a_code_is_a_position_in_the_list_and_a_move_id_works_in_any_case() -> None:
    assert pick(LEGAL, "1") == LEGAL[0]
    assert pick(LEGAL, "3") == LEGAL[2]
    assert pick(LEGAL, "Done") == LEGAL[2]
    assert pick(LEGAL, "offer") == LEGAL[1]
    for unknown in ("0", "4", "99", "thanks", "-1", "", "²", "9" * 5000):
        assert pick(LEGAL, unknown) is None
