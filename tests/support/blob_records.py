"""Blob rows for rule tests: an unsent row with bytes unless told otherwise."""

from __future__ import annotations

from dataclasses import replace

from ports.blobs import BlobRecord

NOW = 1_800_000_000.0


def record(key: str = "k", **changes: object) -> BlobRecord:
    base = BlobRecord(
        key=key,
        file_name=f"{key}.mp4",
        size=100,
        duration=None,
        width=None,
        height=None,
        file_id=None,
        file_unique_id=None,
        created_at=NOW,
        last_used=NOW,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def sent(key: str, last_used: float, size: int = 100) -> BlobRecord:
    return record(key, file_id=f"id-{key}", file_unique_id=f"u-{key}", last_used=last_used, size=size)
