"""The files the fake has seen, by file_id: the same bytes sent as the same kind (a video, an audio,
a document) always get the same file_id, as on Telegram, whose file_ids say the kind."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class FileRecord:
    file_id: str
    file_unique_id: str
    sha256: str
    size: int
    duration: int = 0
    width: int = 0
    height: int = 0
    kind: str = "video"
    """"video", "audio" or "document": a file_id is only good for its own kind."""
    title: str | None = None
    performer: str | None = None
    file_name: str | None = None


class FileRegistry:
    def __init__(self) -> None:
        self._files: dict[str, FileRecord] = {}
        self._forgotten: set[str] = set()

    def get(self, file_id: str) -> FileRecord | None:
        return None if file_id in self._forgotten else self._files.get(file_id)

    def forget(self, file_id: str) -> None:
        """Telegram no longer accepts this file_id ("wrong file identifier")."""
        self._forgotten.add(file_id)

    def known(self, sha256: str, kind: str = "video") -> FileRecord | None:
        """The record of bytes sent before as `kind`; sending them again makes a forgotten file_id
        valid again."""
        file_id = _file_id(sha256, kind)
        existing = self._files.get(file_id)
        if existing is not None:
            self._forgotten.discard(file_id)
        return existing

    def add(
        self,
        sha256: str,
        size: int,
        *,
        duration: int,
        width: int,
        height: int,
        kind: str = "video",
        title: str | None = None,
        performer: str | None = None,
        file_name: str | None = None,
    ) -> FileRecord:
        unique = _file_unique_id(sha256, kind)
        record = FileRecord(
            _file_id(sha256, kind),
            unique,
            sha256,
            size,
            duration,
            width,
            height,
            kind,
            title,
            performer,
            file_name,
        )
        self._files[record.file_id] = record
        return record


def _file_unique_id(sha256: str, kind: str) -> str:
    if kind == "video":
        return "AgAD" + base64.urlsafe_b64encode(bytes.fromhex(sha256)[:9]).decode()
    digest = hashlib.sha256(kind.encode() + bytes.fromhex(sha256)).digest()
    return "AgAD" + base64.urlsafe_b64encode(digest[:9]).decode()


_KIND_PREFIXES = {"video": "BAAC", "audio": "CQAC", "document": "BQAC"}
"""How Telegram's file_ids of each kind begin."""


def _file_id(sha256: str, kind: str) -> str:
    salt = b"file_id" if kind == "video" else f"file_id:{kind}".encode()
    digest = hashlib.sha256(salt + bytes.fromhex(sha256)).digest()
    return (_KIND_PREFIXES[kind] + "AgIAAxkBAAI" + base64.urlsafe_b64encode(digest).decode()).rstrip("=")


def hash_file(path: Path) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with path.open("rb") as handle:
        while chunk := handle.read(1024 * 1024):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size
