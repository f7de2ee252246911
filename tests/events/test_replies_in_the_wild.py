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


# --- session 38's player by post: phones, webmail and charsets that are no text encoding ---

PHONE_SIGNATURES = [
    "Von meinem iPhone gesendet",      # iOS, German
    "Enviado desde mi iPhone",         # iOS, Spanish
    "Inviato da iPhone",               # iOS, Italian
    "Verstuurd vanaf mijn iPhone",     # iOS, Dutch
    "Enviado do meu iPhone",           # iOS, Portuguese
    "Sent from my Android phone",
    "Sent with Proton Mail secure email.",  # Proton Mail's default
]


def plain_reply(body: str, charset: str = "utf-8") -> bytes:
    return ("From: alice@example.org\r\nTo: play+x@localhost\r\n"
            f"Content-Type: text/plain; charset={charset}\r\n\r\n{body}\r\n").encode()


@pytest.mark.parametrize("signature", PHONE_SIGNATURES)
def test_a_phones_default_signature_is_ignored(signature: str) -> None:
    """README: signatures ("-- ", "Sent from my iPhone") are ignored: a phone's in any
    language too (outside audit: "3" above "Von meinem iPhone gesendet" was unreadable)."""
    assert reply_words(parse_message(plain_reply(f"3\r\n\r\n{signature}"))) == ["3"]


def test_a_line_of_the_players_own_that_names_a_phone_is_kept() -> None:
    assert reply_words(parse_message(plain_reply("3\r\nmy iPhone died, sorry"))) == \
        ["3", "my", "iPhone", "died", "sorry"]


OUTLOOK_WEB = ('<html><body><div>3</div><hr style="display:inline-block;width:98%" tabindex="-1">'
               '<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif">'
               '<b>{frm}:</b> Meeple &lt;meeple@localhost&gt;<br><b>{sent}:</b> 6 dic 2026<br>'
               '<b>A:</b> alice@example.org</font><div>&nbsp;</div></div>'
               '<div><p>Your moves</p><ol><li>Request cards [request]</li></ol></div>'
               '</body></html>')


@pytest.mark.parametrize(("frm", "sent"), [("From", "Sent"), ("Da", "Inviato"),
                                           ("Van", "Verzonden"), ("Från", "Skickat")])
def test_an_outlook_web_reply_in_another_language(frm: str, sent: str) -> None:
    """Outlook on the web quotes the original unindented below a header block whose "From:"
    is in the reader's language: Italian, Dutch and Swedish were read as the reply's words."""
    raw = ("From: alice@example.org\r\nTo: play+x@localhost\r\n"
           "Content-Type: text/html; charset=utf-8\r\n\r\n"
           + OUTLOOK_WEB.format(frm=frm, sent=sent) + "\r\n").encode()
    assert reply_words(parse_message(raw)) == ["3"]


@pytest.mark.parametrize("charset", ["undefined", "rot13", "zlib", "base64", "hex", "idna"])
def test_a_charset_label_naming_no_text_encoding_is_read_as_utf8(charset: str) -> None:
    """README: a label Python does not know is read "else as UTF-8"; Python knows these
    names, but as codecs that transform bytes or refuse to decode: the inbound route was a
    500 and `meeple smtpd` said 451, after the reply's address was used up."""
    assert reply_words(parse_message(plain_reply("3", charset))) == ["3"]


@pytest.mark.parametrize("content_type", [
    "text/plain; charset*=idna''x", "text/plain; charset*=utf-8''%ff%fe",
    'text/plain; charset="utf-8\x00"', "text/plain; name*=punycode''x; charset=utf-8"])
def test_a_header_the_parser_chokes_on_leaves_the_words_readable(content_type: str) -> None:
    """The standard parser raises on an RFC 2231 parameter decoded with a codec that is no
    text encoding (it decodes every such parameter at once): the header is kept as text,
    and the words and the reply address are read."""
    raw = ("From: alice@example.org\r\nTo: play+x@localhost\r\n"
           f"Content-Type: {content_type}\r\n\r\n3\r\n").encode()
    message = parse_message(raw)
    assert reply_words(message) == ["3"]
    assert message["To"] == "play+x@localhost"
