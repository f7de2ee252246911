"""Where archived games are kept (events.store.archive_document says what is kept).

`MEEPLE_ARCHIVE_URL` chooses one, for every process of a deployment alike:

    file:/var/lib/meeple/archive   a directory (the default: `var/archive` under the working
    /var/lib/meeple/archive        directory, which suits one host only)
    s3://bucket/some/prefix        S3 or any S3-compatible store, through boto3; credentials,
                                   region and endpoint (AWS_ENDPOINT_URL) as boto3 reads them
    none                           no archive: finished games stay in Redis

A document is written once and never changed; it is named by its game id. Every failure to
reach the store is `ArchiveUnavailable` (the API answers 503), never a game that seems gone.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from events.exceptions import ArchiveUnavailable

DEFAULT_URL = "file:var/archive"
SUFFIX = ".meeple.xz"
MAX_DOCUMENT_BYTES = 16 * 1024 * 1024  # a 5-player game is ~15 KB: more is not ours


class GameArchive(Protocol):
    def put(self, game_id: str, document: bytes) -> None: ...

    def get(self, game_id: str) -> bytes | None: ...

    def delete(self, game_id: str) -> None: ...

    def game_ids(self) -> Iterator[str]: ...


class DirectoryArchive:
    """One file per game under `root`, in 256 folders by the hash of the id (a million
    games make ~4,000 files a folder). Ids are checked by the store before they get here."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"DirectoryArchive({str(self.root.absolute())!r})"  # where, wherever it runs

    def path(self, game_id: str) -> Path:
        folder = hashlib.sha256(game_id.encode()).hexdigest()[:2]
        return self.root / folder / f"{game_id}{SUFFIX}"

    def put(self, game_id: str, document: bytes) -> None:
        path = self.path(game_id)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Whole or not at all: a crash leaves a temp file, never half a document.
            with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".", delete=False) as out:
                out.write(document)
                out.flush()
                os.fsync(out.fileno())
            os.replace(out.name, path)
        except OSError as err:
            raise ArchiveUnavailable(f"cannot write to the archive: {err.strerror}") from None

    def get(self, game_id: str) -> bytes | None:
        try:
            with self.path(game_id).open("rb") as found:
                return found.read(MAX_DOCUMENT_BYTES + 1)
        except FileNotFoundError:
            return None
        except OSError as err:
            raise ArchiveUnavailable(f"cannot read the archive: {err.strerror}") from None

    def delete(self, game_id: str) -> None:
        self.path(game_id).unlink(missing_ok=True)

    def game_ids(self) -> Iterator[str]:
        """Every archived game's id (`meeple rebuild-lobby`)."""
        for path in self.root.glob(f"??/*{SUFFIX}"):
            yield path.name[:-len(SUFFIX)]


class S3Archive:
    """One object per game, `<prefix><game id>.meeple.xz`, in an S3 bucket."""

    def __init__(self, bucket: str, prefix: str = "", client: Any = None) -> None:
        import boto3  # only deployments that archive to S3 pay for importing it
        from botocore.config import Config

        self.bucket = bucket
        self.prefix = prefix
        self._client = client or boto3.client("s3", config=Config(
            connect_timeout=5, read_timeout=10, retries={"max_attempts": 3}))

    def __repr__(self) -> str:
        return f"S3Archive({self.bucket!r}, {self.prefix!r})"

    def key(self, game_id: str) -> str:
        return f"{self.prefix}{game_id}{SUFFIX}"

    def put(self, game_id: str, document: bytes) -> None:
        self._call("put_object", Bucket=self.bucket, Key=self.key(game_id), Body=document,
                   ContentType="application/x-xz")

    def get(self, game_id: str) -> bytes | None:
        from botocore.exceptions import ClientError

        try:
            answer = self._client.get_object(Bucket=self.bucket, Key=self.key(game_id))
            return bytes(answer["Body"].read(MAX_DOCUMENT_BYTES + 1))
        except ClientError as err:
            if err.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return None
            raise ArchiveUnavailable(f"cannot read the archive: {_code(err)}") from None
        except Exception as err:  # botocore's connection errors have no common base
            raise ArchiveUnavailable(f"cannot reach the archive: {type(err).__name__}") from None

    def delete(self, game_id: str) -> None:
        self._call("delete_object", Bucket=self.bucket, Key=self.key(game_id))

    def game_ids(self) -> Iterator[str]:
        """Every archived game's id, a page of the bucket's listing at a time."""
        pages = self._client.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=self.prefix)
        try:
            for page in pages:
                for item in page.get("Contents", []):
                    key = str(item["Key"])[len(self.prefix):]
                    if key.endswith(SUFFIX) and "/" not in key:
                        yield key[:-len(SUFFIX)]
        except Exception as err:
            raise ArchiveUnavailable(f"cannot list the archive: {_code(err)}") from None

    def _call(self, method: str, **kwargs: Any) -> None:
        try:
            getattr(self._client, method)(**kwargs)
        except Exception as err:
            raise ArchiveUnavailable(f"cannot write to the archive: {_code(err)}") from None


def _code(err: Exception) -> str:
    response = getattr(err, "response", None)
    if isinstance(response, dict):
        return str(response.get("Error", {}).get("Code") or type(err).__name__)
    return type(err).__name__


class BadArchiveSetting(ValueError):
    """MEEPLE_ARCHIVE_URL is not one of the forms above."""


def open_archive(url: str | None = None) -> GameArchive | None:
    """The archive `url` names (default: MEEPLE_ARCHIVE_URL, else `var/archive`); None
    for `none`."""
    text = (url if url is not None else os.environ.get("MEEPLE_ARCHIVE_URL", "")).strip()
    text = text or DEFAULT_URL
    if text.lower() == "none":
        return None
    parts = urlsplit(text)
    if parts.scheme == "s3":
        if not parts.netloc:
            raise BadArchiveSetting("an S3 archive URL is s3://bucket/prefix")
        prefix = parts.path.lstrip("/")
        return S3Archive(parts.netloc, prefix + "/" if prefix and not prefix.endswith("/")
                         else prefix)
    if parts.scheme == "file":
        return DirectoryArchive(parts.path or ".")
    if parts.scheme == "" or len(parts.scheme) == 1:  # a plain path (or C:\ on Windows)
        return DirectoryArchive(text)
    raise BadArchiveSetting(f"MEEPLE_ARCHIVE_URL: expected file:<dir>, a directory, "
                            f"s3://bucket/prefix or none, not a {parts.scheme}: URL")
