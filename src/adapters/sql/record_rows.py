"""Parked requests and blob records as statement parameters and back, in table column order."""

from __future__ import annotations

import dataclasses
from typing import Any

from adapters.sql.json_text import dump_json, load_payload
from ports.blobs import BlobRecord
from ports.jobs import NewJob
from ports.pending import PendingRequest


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
