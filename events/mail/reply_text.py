"""What a player wrote in an emailed reply: the words before the quoted email and signature.

Pure functions over the standard library's email parser. A reply's own text is what comes
before the first quote marker ("> " lines, "On ... wrote:", an Outlook header block, a
forwarded-message line), the signature ("-- ") or a mobile client's signature line ("Sent from
my iPhone"); quoted lines met earlier (inline replies) are skipped too. The attribution line
of a quote in any language ("El ... escribió:", "Op ... schreef ...:") is known by its form: a
line of its own that ends in ":" right above the quoted lines.

The body is the text/plain part, or the HTML part when there is no plain one or it is blank,
decoded by its charset label; a label Python does not know is read by its common alias, else
as UTF-8 (codes are ASCII, which every such label shares).
"""

from __future__ import annotations

import codecs
import re
from email import message_from_bytes, policy
from email.headerregistry import BaseHeader, HeaderRegistry, UnstructuredHeader
from email.message import EmailMessage
from html.parser import HTMLParser

# Lines after which nothing is the player's own text.
_END_MARKERS = [
    re.compile(r"^-- ?$"),  # RFC 3676 signature separator ("-- "); many clients trim it
    re.compile(r"^_{5,}$"),  # Outlook's rule above the quoted email
    re.compile(r"^-{3,}\s*(original message|forwarded message)\s*-{3,}$", re.IGNORECASE),
    # A quoted header block ("From:" in the reader's language: en, es/fr/pt, de, it, nl, sv).
    re.compile(r"^(from|de|von|da|van|från):\s", re.IGNORECASE),
    re.compile(r"^(sent from|envoyé de|gesendet von|sent with proton mail)\b", re.IGNORECASE),
    # A phone's own signature in any language: "Von meinem iPhone gesendet", "Enviado desde
    # mi iPhone", "Inviato da iPhone", "Verstuurd vanaf mijn iPhone", "Sent from my Android".
    re.compile(r"^(?=.*\b(iphone|ipad|android)\b)(?=.*\b(sent|gesendet|enviado|inviato|"
               r"verstuurd|verzonden|envoyé|skickat|sendt|wysłane|lähetetty)\b).{0,60}$",
               re.IGNORECASE),
    re.compile(r"^get outlook for\b", re.IGNORECASE),
    re.compile(r"^on\b.*\bwrote:?$", re.IGNORECASE),
    re.compile(r"^le\b.*\ba écrit\s?:?$", re.IGNORECASE),
    re.compile(r"^am\b.*\bschrieb\b.*:?$", re.IGNORECASE),
]
# "On Mon, 30 Nov 2026 at 12:00, Meeple <play+...@x>" + "wrote:" on the next line (wrapped).
_ON_START = re.compile(r"^on\b", re.IGNORECASE)
_WROTE_END = re.compile(r"\bwrote:?$", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s,;]+")
MAX_WORDS = 50
# Charset labels mail clients send that Python's codecs do not know, by what they mean.
CHARSET_ALIASES = {
    "iso-8859-8-i": "iso-8859-8",  # "i": logical order, the same bytes (RFC 1556)
    "iso-8859-6-i": "iso-8859-6",
    "iso-8859-8-e": "iso-8859-8",
    "iso-8859-6-e": "iso-8859-6",
    "windows-874": "cp874",
    "x-mac-roman": "mac_roman",
    "x-mac-cyrillic": "mac_cyrillic",
}


def parse_message(raw: bytes) -> EmailMessage:
    """The email `raw` holds, however malformed: a header the standard parser cannot read
    (it raises on an RFC 2231 parameter such as `charset*=idna''x`, decoding it with a codec
    that is no text encoding) is kept as plain text, so its body and reply address are still
    read; bytes nothing can read give an empty message (no reply address: "forged")."""
    for parsing in (policy.default, _LENIENT):
        try:
            message = message_from_bytes(raw, policy=parsing)
        except Exception:  # noqa: BLE001 - the stdlib parser raises assorted errors on bad input
            continue
        assert isinstance(message, EmailMessage)  # an EmailPolicy makes EmailMessage
        return message
    return EmailMessage()


class _LenientHeaders(HeaderRegistry):
    """Headers as the default policy reads them, but one it cannot parse is plain text."""

    def __call__(self, name: str, value: str) -> BaseHeader:
        try:
            return super().__call__(name, value)
        except Exception:  # noqa: BLE001 - as above
            plain = type("_PlainHeader", (UnstructuredHeader, self.base_class), {})
            return plain(name, value)  # type: ignore[no-any-return]


_LENIENT = policy.default.clone(header_factory=_LenientHeaders())


def body_text(message: EmailMessage) -> str:
    """The text/plain body, else (none, or only blank lines) the HTML body as text (quotes
    dropped), else ""."""
    plain = part_text(message, "plain")
    return plain if plain.strip() else part_text(message, "html")


def part_text(message: EmailMessage, subtype: str) -> str:
    """The text of the message's body part of this subtype ("" if none); HTML as lines."""
    try:
        part = message.get_body(preferencelist=(subtype,))
        payload = part.get_payload(decode=True) if part is not None else None
    except Exception:  # noqa: BLE001 - the stdlib parser raises assorted errors on bad input
        return ""
    if part is None or not isinstance(payload, bytes):
        return ""
    try:
        text = payload.decode(codec_of(part.get_content_charset()), errors="replace")
    except (LookupError, UnicodeError, ValueError):  # a codec that refuses to decode ("undefined")
        text = payload.decode("utf-8", errors="replace")
    return html_to_text(text) if subtype == "html" else text


def codec_of(charset: str | None) -> str:
    """The Python codec for a charset label: its alias if Python does not know it, UTF-8 if
    it is unknown altogether (or missing: UTF-8 reads ASCII too), or no text encoding
    (Python's "rot13", "zlib" or "base64" transform, not decode, bytes)."""
    name = CHARSET_ALIASES.get((charset or "").strip().lower(), charset or "utf-8")
    try:
        codec = codecs.lookup(name)
    except (LookupError, ValueError):  # ValueError: a label with a NUL in it
        return "utf-8"
    return name if getattr(codec, "_is_text_encoding", True) else "utf-8"


def own_lines(text: str) -> list[str]:
    """The non-blank lines the sender wrote, before any quote or signature."""
    lines = [line.strip() for line in text.replace("\r\n", "\n").split("\n")]
    kept: list[str] = []
    for index, line in enumerate(lines):
        if _ends_own_text(lines, index):
            break
        if line and not line.startswith(">"):
            kept.append(line)
    return kept


def _ends_own_text(lines: list[str], index: int) -> bool:
    line = lines[index]
    following = lines[index + 1] if index + 1 < len(lines) else ""
    if any(marker.match(line) for marker in _END_MARKERS):
        return True
    if _ON_START.match(line) and _WROTE_END.search(following):
        return True
    return _introduces_quote(lines, index)


def _introduces_quote(lines: list[str], index: int) -> bool:
    """Whether the line is a quote's attribution in whatever language: it ends in ":" and the
    next line that is not blank is quoted (">")."""
    if not lines[index].endswith(":") or lines[index].startswith(">"):
        return False
    after = next((lines[later] for later in range(index + 1, len(lines)) if lines[later]), "")
    return after.startswith(">")


def raw_headers(message: EmailMessage, names: tuple[str, ...]) -> list[str]:
    """The values of these headers as received: parsing them as addresses (policy.default)
    raises on some malformed input, where `email.utils.getaddresses` never does."""
    wanted = {name.lower() for name in names}
    # Undecodable bytes arrive as lone surrogates, which no later encode() accepts.
    return [str(value).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            for name, value in message.raw_items() if name.lower() in wanted]


def reply_words(message: EmailMessage) -> list[str]:
    """The codes or move ids the sender wrote, in order: words of their own lines split on
    spaces, commas and semicolons; a trailing "." is dropped ("3." is how the email lists 3).
    At most MAX_WORDS + 1, so a huge body is rejected without splitting all of it."""
    words: list[str] = []
    for line in own_lines(body_text(message)):
        for word in _SEPARATORS.split(line):
            word = word.rstrip(".")
            if word:
                words.append(word)
            if len(words) > MAX_WORDS:
                return words
    return words


class _TextOfHtml(HTMLParser):
    """HTML to plain lines: blocks become line breaks; quoted replies, signatures and scripts
    (with everything inside them) vanish."""

    _BLOCKS = {"p", "div", "li", "tr", "h1", "h2", "h3", "h4", "table"}
    _VOID = {"br", "img", "hr", "meta", "input", "link", "wbr", "col", "area", "base", "source"}
    _SKIPPED = {"blockquote", "script", "style", "head", "title"}
    _SKIPPED_CLASSES = ("gmail_quote", "gmail_signature", "moz-cite-prefix", "moz-signature")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip_depth = 0  # > 0 inside a skipped element: its open tags so far

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._VOID:
            if tag == "br" and not self._skip_depth:
                self.parts.append("\n")
            return
        if self._skip_depth:
            self._skip_depth += 1
            return
        classes = dict(attrs).get("class") or ""
        if tag in self._SKIPPED or any(name in classes for name in self._SKIPPED_CLASSES):
            self._skip_depth = 1
        elif tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._VOID:
            return
        if self._skip_depth:
            self._skip_depth -= 1
        elif tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip_depth:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    parser = _TextOfHtml()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)
