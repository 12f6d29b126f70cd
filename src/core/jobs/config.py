"""How the job engine runs: the deployment's knobs and the reliability constants behind them."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.lifecycle.retry_policy import RetryPolicy


@dataclass(frozen=True, slots=True)
class EngineConfig:
    concurrency: int = 3
    quick_lane: bool = True
    """One more worker that takes only quick rows (a cache hit: the video is only sent again), so
    they never wait behind downloads however busy the `concurrency` workers are."""
    claim_ahead: int = 6
    """While its jobs are short, a worker claims this many at once (core.jobs.ahead); 1: never.
    On 2 cores, bench/queue_throughput.py's no-op jobs on SQLite: 3,900-4,800 jobs/s with six,
    3,500-3,900 with three, 2,100-2,750 one at a time."""
    claim_ahead_below_seconds: float = 0.1
    """A job shorter than this is short; jobs claimed ahead go back to the queue once the job
    running beside them took this long (found within twice this)."""
    max_attempts: int = 3
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    lease_seconds: float = 30.0
    """Short: a dead worker's jobs come back this soon. The heartbeat keeps live ones held."""
    max_lease_margin_seconds: float = 5.0
    """A Telegram call for a job goes out only with this much of its lease left (less with short
    leases: see `lease_margin_seconds`)."""
    heartbeat_seconds: float = 10.0
    max_idle_seconds: float = 30.0
    """Safety net for work of another process: in-process enqueues wake at once, and the stores
    announce other processes' (PostgreSQL by NOTIFY, SQLite through the file's data_version)."""
    sole_instance: bool = True
    """This process is the store's only user (SQLite under the instance lock): at boot, every
    other holder of a row is dead."""
    deadline_grace_seconds: float = 5.0
    """After an attempt's deadline, how long a cancelled handler may take to stop."""
    hook_timeout_seconds: float = 120.0
    """A retry or dead-letter report (flood control may hold it) gets this long."""
    health_grace_seconds: float = 30.0
    """Fewer live workers than `concurrency` for longer than this is unhealthy."""
    stall_seconds: float = 60.0
    """Claimable work waiting this long while a worker is free and nothing was claimed is
    unhealthy: twice the idle workers' fallback wake, so a lost wake-up alone never trips it."""
    error_backoff: RetryPolicy = field(
        default_factory=lambda: RetryPolicy(base_seconds=0.5, cap_seconds=30.0, jitter=0.5)
    )
    """Between tries of a background loop whose store or handler failed."""

    @property
    def lease_margin_seconds(self) -> float:
        """At most a third of the lease: renewed every third, a live lease always has two left."""
        return min(self.max_lease_margin_seconds, self.lease_seconds / 3)
