"""Job and failed-job rows to port values: the column lists every statement names, and their decoders."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from adapters.sql.json_text import load_payload
from ports.jobs import FailedJob, Job

JOB_COLUMNS: Final = """id, name, payload, attempts, max_attempts, available_at, created_at, key,
    owner_id, claimed_by, lease_until, last_error, token, suspect, requester, turn"""
"""What every SELECT/RETURNING of a job lists, in the order job_from_row reads them."""
FAILED_JOB_COLUMNS: Final = """id, job_id, name, payload, error, attempts, max_attempts, created_at,
    failed_at, key, owner_id"""
"""What every SELECT/RETURNING of a failed job lists, in the order failed_from_row reads them."""


def job_from_row(row: Sequence[Any]) -> Job:
    """From the columns of JOB_COLUMNS."""
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
        requester=row[14],
        turn=row[15],
    )


def failed_from_row(row: tuple[Any, ...]) -> FailedJob:
    """From the columns of FAILED_JOB_COLUMNS."""
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
