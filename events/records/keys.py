"""The server's Ed25519 signing keys for game records, kept in one directory.

    <dir>/<key_id>.pem    the private key, PKCS8 PEM, mode 0600
    <dir>/<key_id>.json   its public half: {"id", "alg", "public_key", "created_at"}
    <dir>/current         the id of the key that signs new records

A key id is the first 16 hex digits of SHA-256 of the raw 32-byte public key, so anyone
holding a public key can recompute its id. Old keys are never deleted: records signed with
them stay verifiable after a rotation. Public keys travel as unpadded base64url.

Several processes (gunicorn workers) may find the directory empty at the same moment:
each writes a candidate key, then tries to *create* `current` with `os.link`, which fails
if the name exists, so exactly one candidate becomes the key and the others delete theirs.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from events.exceptions import KeysUnavailable

ALG = "Ed25519"
# Said (503 keys_unavailable) by a host with no signing key when another host of the service
# has one: records signed by keys of their own would not be trusted by each other.
ANOTHER_HOST_SIGNS = ("the service signs with a key this host's keys directory does not "
                      "hold: every API host needs the same keys directory")
CURRENT = "current"
KEY_ID = re.compile(r"[0-9a-f]{16}")


# --- encodings every verifier needs ---------------------------------------------------------


def b64url_encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Strict: only the canonical unpadded form is accepted, so that no two texts decode to
    the same bytes (a changed character in a signature must never go unnoticed)."""
    if not re.fullmatch(r"[A-Za-z0-9_-]*", text):
        raise ValueError("not unpadded base64url")
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not unpadded base64url") from None
    if b64url_encode(raw) != text:
        raise ValueError("not the canonical base64url of any bytes")
    return raw


def raw_public_key(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes_raw()


def key_id_of(public_key: Ed25519PublicKey | bytes) -> str:
    raw = public_key if isinstance(public_key, bytes) else raw_public_key(public_key)
    return hashlib.sha256(raw).hexdigest()[:16]


def public_key_from_b64(text: str) -> Ed25519PublicKey:
    """ValueError unless `text` is the base64url of a 32-byte Ed25519 public key."""
    raw = b64url_decode(text)
    if len(raw) != 32:
        raise ValueError(f"an Ed25519 public key is 32 bytes, not {len(raw)}")
    return Ed25519PublicKey.from_public_bytes(raw)


def trusted_keys(published: Any) -> Callable[[str], Ed25519PublicKey | None]:
    """A lookup over what GET /v1/keys answers (`{"keys": [{"id", "alg", "public_key"}, ...]}`):
    every listed key is trusted, current or not, since old records carry old keys.
    ValueError when the document is not such a list or an id does not match its key."""
    entries = published.get("keys") if isinstance(published, dict) else None
    if not isinstance(entries, list):
        raise ValueError('expected {"keys": [...]}, as GET /v1/keys answers')
    keys: dict[str, Ed25519PublicKey] = {}
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or entry.get("alg") != ALG:
            raise ValueError(f"keys[{index}] is not an {ALG} key")
        text, key_id = entry.get("public_key"), entry.get("id")
        if not isinstance(text, str) or not isinstance(key_id, str):
            raise ValueError(f"keys[{index}] needs a string id and public_key")
        key = public_key_from_b64(text)
        if key_id_of(key) != key_id:
            raise ValueError(f"keys[{index}]: id {key_id} is not the id of its public key")
        keys[key_id] = key
    return keys.get


# --- the keyring ----------------------------------------------------------------------------


class KeyRegistry(Protocol):
    """Where the hosts of one service agree on its first signing key (the control store:
    events.records.key_registry): a host with no key makes none once another has one."""

    def first(self) -> str | None:
        """The id of the service's first key, if some host has made or used one."""

    def claim(self, key_id: str) -> bool:
        """Record `key_id` as the service's first key unless there is one: whether it is."""

    def replace(self, key_id: str) -> None:
        """Record `key_id` as the service's first key (its keys were lost: it starts anew)."""


class Keyring:
    """The signing keys in `path` (created on first use, mode 0700)."""

    def __init__(self, path: Path, registry: KeyRegistry | None = None) -> None:
        """`registry`: the service's hosts share their keys (one keys directory, copied);
        without it this keyring is the service's only one."""
        self.path = Path(path)
        self._private: dict[str, Ed25519PrivateKey] = {}  # keys never change once written
        self._registry = registry
        self._registered = False

    def current(self) -> tuple[str, Ed25519PrivateKey]:
        """The key that signs new records; the first call on an empty directory makes it.
        KeysUnavailable when the directory cannot be read or written."""
        with self._or_unavailable():
            key_id = self._current_id()
            if key_id is None:
                key_id = self._create_first()
            elif not self._registered and not self._the_services():
                raise KeysUnavailable(ANOTHER_HOST_SIGNS)
            self._registered = True
            return key_id, self._load_private(key_id)

    def _the_services(self) -> bool:
        """Whether the keys here are the service's: its first key is one of them (claimed
        now if no host has yet: a service whose keys predate the registry)."""
        if self._registry is None:
            return True
        current = self._current_id()
        if current is not None and self._registry.claim(current):
            return True
        first = self._registry.first()
        return first is None or first in self._key_ids()

    def foreign(self) -> str | None:
        """The service's first key, when this keyring does not hold it (another host's keys,
        or this host's lost): the reason it will not sign. Makes nothing."""
        first = self._registry.first() if self._registry is not None else None
        return first if first is not None and first not in self._key_ids() else None

    def has_current(self) -> bool:
        """Whether a current key exists (without making one)."""
        return self._current_id() is not None

    def usable(self) -> bool:
        """Whether this keyring can sign: it has a current key, or can make its first one
        (its directory, or the nearest one that exists above it, is writable). Makes nothing."""
        try:
            if self.has_current():
                return self.foreign() is None
        except (OSError, RuntimeError):
            return False
        if self._registry is not None and self._registry.first() is not None:
            return False  # another host signs: this one must get its keys, not make one
        existing = self.path
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        return existing.is_dir() and os.access(existing, os.W_OK | os.X_OK)

    def rotate(self, anew: bool = False) -> str:
        """A new current key. The old ones stay, so their records still verify. Refused
        (KeysUnavailable) where the service's first key is not (another host's keys are the
        service's), unless `anew`: then the new key becomes the service's first."""
        if self.foreign() is not None and not anew:
            raise KeysUnavailable(ANOTHER_HOST_SIGNS)
        key_id = self._new_key()
        # Readers see either the old id or the new one, never a half-written file.
        self._write_file(CURRENT, key_id.encode(), 0o644, replace=True)
        if self._registry is not None and (anew or self._registry.first() is None):
            self._registry.replace(key_id)
        return key_id

    def public_keys(self) -> list[dict[str, Any]]:
        """Every key's public half, oldest first, the current one marked. A server publishes
        its key before it signs anything: an empty keyring makes its first key here."""
        current = self.current()[0]
        with self._or_unavailable():
            keys = [self._public_entry(key_id, current) for key_id in self._key_ids()]
        return sorted(keys, key=lambda entry: (entry["created_at"], entry["id"]))

    def public_key(self, key_id: str) -> Ed25519PublicKey | None:
        """The public key with this id, or None (also for ids that are not ids at all: the
        id comes from records anyone can write, and names a file here)."""
        if not isinstance(key_id, str) or not KEY_ID.fullmatch(key_id):
            return None
        if not (self.path / f"{key_id}.pem").exists():
            return None
        return self._load_private(key_id).public_key()

    # -- files ---------------------------------------------------------------------------------

    @contextmanager
    def _or_unavailable(self) -> Iterator[None]:
        """An OSError of the key files (a read-only or missing directory, a file in the way)
        is KeysUnavailable to the caller, the OSError its cause (which names the path: the
        server's log shows it, never an answer). No logging here: `meeple verify` imports
        this module and nothing of the server's set-up."""
        try:
            yield
        except OSError as err:
            raise KeysUnavailable("the server cannot read or write its signing keys; "
                                  "try again later") from err

    def _key_ids(self) -> list[str]:
        if not self.path.is_dir():
            return []
        return sorted(p.stem for p in self.path.glob("*.pem") if KEY_ID.fullmatch(p.stem))

    def _current_id(self) -> str | None:
        try:
            key_id = (self.path / CURRENT).read_text().strip()
        except FileNotFoundError:
            return None
        if not KEY_ID.fullmatch(key_id) or not (self.path / f"{key_id}.pem").exists():
            raise RuntimeError(f"{self.path / CURRENT} names no key of this keyring")
        return key_id

    def _create_first(self) -> str:
        if self._registry is not None and self._registry.first() is not None:
            raise KeysUnavailable(ANOTHER_HOST_SIGNS)
        candidate = self._new_key()
        if self._registry is not None and not self._registry.claim(candidate):
            for suffix in (".pem", ".json"):  # another host made the first key meanwhile
                (self.path / f"{candidate}{suffix}").unlink(missing_ok=True)
            raise KeysUnavailable(ANOTHER_HOST_SIGNS)
        try:
            self._write_file(CURRENT, candidate.encode(), 0o644, replace=False)
            return candidate
        except FileExistsError:
            # Another process won the race: its key is the one; ours was never used.
            for suffix in (".pem", ".json"):
                (self.path / f"{candidate}{suffix}").unlink(missing_ok=True)
            winner = self._current_id()
            assert winner is not None
            return winner

    def _new_key(self) -> str:
        private = Ed25519PrivateKey.generate()
        public = private.public_key()
        key_id = key_id_of(public)
        entry = {"id": key_id, "alg": ALG, "public_key": b64url_encode(raw_public_key(public)),
                 "created_at": _now()}
        # Public half first: a listed .pem always has its .json beside it.
        self._write_file(f"{key_id}.json", json.dumps(entry).encode(), 0o644, replace=True)
        # Here, not at the top: PEM needs all of `serialization` (ssh, ciphers), a verifier none.
        from cryptography.hazmat.primitives import serialization

        pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())
        self._write_file(f"{key_id}.pem", pem, 0o600, replace=False)
        self._private[key_id] = private
        return key_id

    def _write_file(self, name: str, content: bytes, mode: int, replace: bool) -> None:
        """Write a complete file under `name`: to a temporary name first, then renamed
        (`replace`) or linked (fails with FileExistsError if `name` exists)."""
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        import secrets  # here, not at the top: only writing keys needs it, a verifier never

        temp = self.path / f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            os.fchmod(fd, mode)  # the umask may have narrowed it; never widened past `mode`
            os.write(fd, content)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            if replace:
                os.replace(temp, self.path / name)
            else:
                os.link(temp, self.path / name)
        finally:
            temp.unlink(missing_ok=True)
        _fsync_dir(self.path)

    def _load_private(self, key_id: str) -> Ed25519PrivateKey:
        cached = self._private.get(key_id)
        if cached is not None:
            return cached
        pem = (self.path / f"{key_id}.pem").read_bytes()
        # Here, not at the top: PEM needs all of `serialization` (ssh, ciphers), a verifier none.
        from cryptography.hazmat.primitives import serialization

        try:
            private = serialization.load_pem_private_key(pem, password=None)
        except (ValueError, TypeError, UnsupportedAlgorithm) as err:
            raise RuntimeError(f"{key_id}.pem is not a readable private key: {err}") from None
        if not isinstance(private, Ed25519PrivateKey):
            raise RuntimeError(f"{key_id}.pem is not an {ALG} key")
        self._private[key_id] = private
        return private

    def _public_entry(self, key_id: str, current: str | None) -> dict[str, Any]:
        public = self._load_private(key_id).public_key()
        try:
            created_at = json.loads((self.path / f"{key_id}.json").read_text())["created_at"]
        except (OSError, ValueError, KeyError, TypeError):
            mtime = (self.path / f"{key_id}.pem").stat().st_mtime
            created_at = _iso(datetime.fromtimestamp(mtime, UTC))
        return {"id": key_id, "alg": ALG, "public_key": b64url_encode(raw_public_key(public)),
                "created_at": created_at, "current": key_id == current}


def _now() -> str:
    return _iso(datetime.now(UTC))


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _fsync_dir(path: Path) -> None:
    """Make the new name itself durable, not only the file's content."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
