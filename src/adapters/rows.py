"""Rows to port values and back, for every SQL store (SQLite, PostgreSQL): both keep the same
columns in the same order and the same JSON text for payloads and scraped entries; nothing else
is encoded."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Sequence
from typing import Any

from ports.blobs import BlobRecord
from ports.jobs import FailedJob, Job, NewJob
from ports.json import Payload
from ports.media import VideoInfo
from ports.pending import PendingRequest


class CorruptEntry(ValueError):
    """A stored JSON value that does not decode to what it should."""


def dump_json(value: object) -> str:
    # ASCII escapes keep odd Unicode (lone surrogates) storable as SQLite text.
    return json.dumps(value, separators=(",", ":"))


def load_payload(text: str) -> Payload:
    """A payload row is only ever written by dump_json; if it was damaged anyway, keep its text
    for the operator and let the job fail (and dead-letter) instead of wedging the queue."""
    try:
        value = json.loads(text)
    except ValueError:
        return {"corrupt_payload": text}
    return value if isinstance(value, dict) else {"corrupt_payload": text}


def job_from_row(row: Sequence[Any]) -> Job:
    """From the columns every SELECT/RETURNING of a job lists: id, name, payload, attempts,
    max_attempts, available_at, created_at, key, owner_id, claimed_by, lease_until, last_error,
    token, suspect."""
    (id_, name, payload, attempts, max_attempts, available_at, created_at, key, owner, by, lease, error) = (
        row[:12]
    )
    return Job(
        id=id_,
        name=name,
        payload=load_payload(payload),
        attempts=attempts,
        max_attempts=max_attempts,
        available_at=available_at,
        created_at=created_at,
        key=key,
        owner_id=owner,
        claimed_by=by,
        lease_until=lease,
        last_error=error,
        token=row[12],
        suspect=bool(row[13]),
    )


def failed_from_row(row: tuple[Any, ...]) -> FailedJob:
    (id_, job_id, name, payload, error, attempts, max_attempts, created_at, failed_at, key, owner) = row
    return FailedJob(
        id=id_,
        job_id=job_id,
        name=name,
        payload=load_payload(payload),
        error=error,
        attempts=attempts,
        max_attempts=max_attempts,
        created_at=created_at,
        failed_at=failed_at,
        key=key,
        owner_id=owner,
    )


def pending_params(request: PendingRequest) -> tuple[object, ...]:
    job = request.job
    return (
        request.id,
        request.chat_id,
        request.user_id,
        request.message_id,
        job.name,
        dump_json(job.payload),
        job.max_attempts,
        job.available_at,
        job.key,
        job.owner_id,
        request.blob_key,
        request.created_at,
    )


def pending_from_row(row: tuple[Any, ...]) -> PendingRequest:
    (id_, chat, user, message, name, payload, max_attempts, available_at, key, owner, blob, created) = row
    job = NewJob(name, load_payload(payload), max_attempts, available_at, key, owner)
    return PendingRequest(id_, chat, user, message, job, blob, created)


def blob_params(record: BlobRecord) -> tuple[object, ...]:
    return tuple(getattr(record, f.name) for f in dataclasses.fields(BlobRecord))


def blob_from_row(row: tuple[Any, ...]) -> BlobRecord:
    return BlobRecord(*row)


# Scraped info --------------------------------------------------------------------------------

_INFO_HINTS: dict[str, Any] = typing.get_type_hints(VideoInfo)
_INFO_REQUIRED = frozenset(
    f.name
    for f in dataclasses.fields(VideoInfo)
    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
)


def dump_entries(entries: Sequence[VideoInfo]) -> str:
    return dump_json([dataclasses.asdict(entry) for entry in entries])


def load_entries(text: str) -> list[VideoInfo]:
    """Decode a stored list of entries; CorruptEntry for bad JSON or any wrong shape."""
    try:
        raw = json.loads(text)
    except ValueError as error:
        raise CorruptEntry(f"not JSON: {error}") from error
    if not isinstance(raw, list):
        raise CorruptEntry("not a list of entries")
    return [_entry(item) for item in raw]


def _entry(item: object) -> VideoInfo:
    if not isinstance(item, dict):
        raise CorruptEntry("an entry is not an object")
    unknown = item.keys() - _INFO_HINTS.keys()
    missing = _INFO_REQUIRED - item.keys()
    if unknown or missing:
        raise CorruptEntry(f"unknown fields {sorted(unknown)}, missing fields {sorted(missing)}")
    for name, value in item.items():
        if not _fits(value, _INFO_HINTS[name]):
            raise CorruptEntry(f"field {name!r} holds {type(value).__name__}")
    return VideoInfo(**item)


def _fits(value: object, hint: Any) -> bool:
    if isinstance(hint, types.UnionType):
        return any(_fits(value, option) for option in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def load_urls(text: str) -> list[str]:
    try:
        raw = json.loads(text)
    except ValueError as error:
        raise CorruptEntry(f"not JSON: {error}") from error
    if not isinstance(raw, list) or not all(isinstance(u, str) for u in raw):
        raise CorruptEntry("not a list of URLs")
    return raw
