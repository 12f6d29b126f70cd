"""Settings of the job engine: how many jobs at once, their attempts and leases, the queue's
order, how long an update waits for the store, and the grace at shutdown."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class JobSettings(BaseModel):
    job_concurrency: int = Field(3, ge=1, le=64, description="jobs at once")
    max_attempts: int = Field(
        3, ge=1, le=100, description="attempts per job (a crash counts: attempts are written ahead)"
    )
    retry_base_seconds: float = Field(
        1.0, gt=0, le=3600, description="backoff base: attempt n waits about base·2^(n-1), ±25 % jitter"
    )
    lease_seconds: float = Field(
        30.0,
        ge=1,
        le=3600,
        description="a running job's claim, renewed every third of it; a job whose worker died is "
        "claimable again once its lease ended",
    )
    queue_order: Literal["fair", "fifo"] = Field(
        "fair",
        description="`fair`: workers take the next link round-robin across users (a group counts as one); "
        "`fifo`: strictly in the order links came (what `bench/fairness.py` compares with)",
    )
    intake_retry_seconds: float = Field(
        3600.0,
        gt=0,
        description="an update kept in the inbox whose link the store will not queue yet (locked, busy, "
        "disk full) is handled again, with backoff, for this long; then its sender is asked to send it again",
    )
    shutdown_grace_seconds: float = Field(
        30.0, ge=0, description="in-flight jobs may finish for this long after SIGTERM"
    )

    @property
    def fair_queue(self) -> bool:
        return self.queue_order == "fair"

    @property
    def heartbeat_seconds(self) -> float:
        """Three renewals per lease: one late or failed heartbeat never loses a live job."""
        return self.lease_seconds / 3
