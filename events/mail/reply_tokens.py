"""Reply tokens: what authorises an emailed reply to play moves.

A token names a game, a seat and the version the email was written at, plus a random nonce
(two emails at the same version get different tokens, each single-use), and carries an
HMAC-SHA256 of those under a server secret, cut to 80 bits. It travels in the reply address,
`<kind>+<token>@<domain>`, so it is lower-case only (mail systems may fold the case of a local
part) and at most 64 characters with the prefix (RFC 5321's local-part limit). The kind says
what a reply to that address does, and is under the MAC too:

- `play+`: the reply's codes are moves (the Reply-To of a turn email);
- `talk+`: the reply's text is posted at the table (the Reply-To of a table-talk email);
- `stop+`: turns the seat's player's notifications off (List-Unsubscribe).

    <game_id>-<seat>-<version>-<nonce>-<mac>    nonce: 8, mac: 16 base32 characters

The secret is a file beside the record signing keys (MEEPLE_KEYS_DIR), created on first use
the way `events.records.keys` creates `current`: written under a temporary name, then
linked, so that processes starting together agree on one secret.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
from dataclasses import dataclass
from email.utils import getaddresses
from pathlib import Path

SECRET_FILE = "reply-token.secret"
KINDS = ("play", "talk", "stop")
LOCAL_PREFIX = "play+"
LOCAL_PREFIXES = tuple(f"{kind}+" for kind in KINDS)
MAX_LOCAL_PART = 64
MAC_BYTES = 10  # 80 bits
NONCE_BYTES = 5
_TOKEN = re.compile(r"([a-z0-9]+)-(\d{1,3})-(\d{1,9})-([a-z2-7]{8})-([a-z2-7]{16})")
_ADDRESS = re.compile(r"(play|talk|stop)\+([a-z0-9-]+)@", re.IGNORECASE)


@dataclass(frozen=True)
class ReplyToken:
    game_id: str
    seat: int
    version: int
    nonce: str
    kind: str = "play"

    @property
    def key(self) -> str:
        """What names this token once used (the MAC is implied by the other parts)."""
        return f"{self.kind}-{self.game_id}-{self.seat}-{self.version}-{self.nonce}"


def _b32(raw: bytes) -> str:
    return base64.b32encode(raw).decode("ascii").rstrip("=").lower()


def _mac(secret: bytes, game_id: str, seat: int, version: int, nonce: str,
         kind: str = "play") -> str:
    # "meeple-reply" for play tokens: the form of the tokens in emails sent before kinds.
    domain = "meeple-reply" if kind == "play" else f"meeple-{kind}"
    message = f"{domain}/1/{game_id}/{seat}/{version}/{nonce}".encode()
    return _b32(hmac.new(secret, message, hashlib.sha256).digest()[:MAC_BYTES])


def issue(secret: bytes, game_id: str, seat: int, version: int, kind: str = "play") -> str:
    """A new token for a reply from `seat` of `game_id`, written at `version`."""
    assert kind in KINDS, kind
    nonce = _b32(secrets.token_bytes(NONCE_BYTES))
    mac = _mac(secret, game_id, seat, version, nonce, kind)
    token = f"{game_id}-{seat}-{version}-{nonce}-{mac}"
    if len(kind) + 1 + len(token) > MAX_LOCAL_PART or not _TOKEN.fullmatch(token):
        raise ValueError(f"game id {game_id!r} does not fit in a reply address")
    return token


def read(secret: bytes, text: str, kind: str = "play") -> ReplyToken | None:
    """The token's contents if `text` (in any case) is a token of this kind this secret
    made, else None."""
    found = _TOKEN.fullmatch(text.strip().lower())
    if found is None or kind not in KINDS:
        return None
    game_id, seat, version, nonce, mac = found.groups()
    expected = _mac(secret, game_id, int(seat), int(version), nonce, kind)
    if not hmac.compare_digest(expected, mac):
        return None
    return ReplyToken(game_id, int(seat), int(version), nonce, kind)


def reply_address(token: str, domain: str | None = None, kind: str = "play") -> str:
    domain = domain or os.environ.get("MEEPLE_MAIL_REPLY_DOMAIN") or "localhost"
    return f"{kind}+{token}@{domain}"


def address_in(addresses: list[str]) -> tuple[str, str] | None:
    """(kind, token) of the first reply address among address header values or envelope
    recipients."""
    for _, address in getaddresses(addresses):
        found = _ADDRESS.match(address)
        if found:
            return found.group(1).lower(), found.group(2).lower()
    return None


def token_in(addresses: list[str]) -> str | None:
    """The first play token found among address header values or envelope recipients."""
    found = address_in(addresses)
    return found[1] if found and found[0] == "play" else None


# --- the secret ---------------------------------------------------------------------------

_secrets: dict[Path, bytes] = {}


def secret_in(keys_dir: Path | str) -> bytes:
    """The reply-token secret of this server (created on first use, mode 0600)."""
    path = Path(keys_dir)
    if path not in _secrets:
        _secrets[path] = _read_or_create(path / SECRET_FILE)
    return _secrets[path]


def default_secret() -> bytes:
    """The secret in MEEPLE_KEYS_DIR (default var/keys), as workers and `meeple smtpd` see it."""
    return secret_in(os.environ.get("MEEPLE_KEYS_DIR") or "var/keys")


def _read_or_create(file: Path) -> bytes:
    try:
        return bytes.fromhex(file.read_text().strip())
    except FileNotFoundError:
        pass
    file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temp = file.with_name(f".{file.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, secrets.token_hex(32).encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(temp, file)  # fails if another process made the secret first: use theirs
    except FileExistsError:
        pass
    finally:
        temp.unlink(missing_ok=True)
    return bytes.fromhex(file.read_text().strip())
