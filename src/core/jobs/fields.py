"""The fields every job log line carries (SPEC: job id, job name, chat id, attempt)."""

from __future__ import annotations

from typing import Any

from ports.jobs import Job


def log_fields(job: Job) -> dict[str, Any]:
    chat = job.payload.get("chat_id")
    return {"job_id": job.id, "job_name": job.name, "chat_id": chat, "attempt": job.attempts}
