"""The fields every job log line carries (SPEC: job id, job name, chat id, attempt, url/site)."""

from __future__ import annotations

from typing import Any

from ports.jobs import Job


def log_fields(job: Job, **more: Any) -> dict[str, Any]:
    """`more` adds fields of this line (its `error`, say); None values are left out of the line."""
    payload = job.payload
    return {
        "job_id": job.id,
        "job_name": job.name,
        "chat_id": payload.get("chat_id"),
        "attempt": job.attempts,
        "url": payload.get("url"),
        "site": job.key or None,
        **more,
    }
