"""Replies as the auditor's mail clients wrote them (s35, kept in replies_in_the_wild/): charset
labels Python does not know, a blank plain part beside the HTML one, and quote attributions in
other languages. Each is a reply "1" above the quoted turn email."""

from __future__ import annotations

from pathlib import Path

import pytest

from events.mail.reply_text import body_text, codec_of, own_lines, parse_message, reply_words

WILD = Path(__file__).parent / "replies_in_the_wild"


def words_of(name: str) -> list[str]:
    return reply_words(parse_message((WILD / name).read_bytes()))


@pytest.mark.parametrize("name", [
    "charset_iso-8859-8-i.eml", "charset_windows-874.eml", "charset_x-mac-roman.eml",
    "charset_windows-1252.eml", "weird_unknown_charset.eml"])
def test_a_charset_label_python_does_not_know_still_reads_the_code(name: str) -> None:
    assert words_of(name) == ["1"]


@pytest.mark.parametrize(("label", "codec"), [
    ("ISO-8859-8-I", "iso-8859-8"), ("windows-874", "cp874"), ("x-mac-roman", "mac_roman"),
    ("x-unknown-8bit", "utf-8"), (None, "utf-8"), ("windows-1252", "windows-1252")])
def test_charset_labels_are_read_by_their_alias_or_else_as_utf8(label: str | None,
                                                                 codec: str) -> None:
    assert codec_of(label) == codec


def test_an_aliased_charset_decodes_its_own_letters() -> None:
    raw = (b"From: a@example.org\r\nContent-Type: text/plain; charset=x-mac-roman\r\n"
           b"Content-Transfer-Encoding: 8bit\r\n\r\n") + "1 café".encode("mac_roman")
    assert body_text(parse_message(raw)).strip() == "1 café"


def test_a_blank_plain_part_gives_way_to_the_html_part() -> None:
    assert words_of("weird_empty_plain_html_has_code.eml") == ["1"]


@pytest.mark.parametrize("language", ["en", "es", "it", "nl", "pt"])
def test_a_quote_attribution_in_any_language_ends_the_players_own_text(language: str) -> None:
    assert words_of(f"lang_{language}_gmail.eml") == ["1"]


def test_an_attribution_is_a_line_ending_in_a_colon_above_quoted_lines() -> None:
    text = "2\n\nQuinta-feira, Meeple <meeple@localhost> disse:\n\n\n> 1. Request\n"
    assert own_lines(text) == ["2"]
    # A colon with no quote below is the player's own text.
    assert own_lines("my moves:\n1\n2") == ["my moves:", "1", "2"]
