"""The engine's tasks while it runs: started together, stopped in a written order.

Each is kept alive by the supervisor (a loop that dies is started again). Stopping takes them in
this order: the ticks stop enqueueing; the workers get the grace; then the workers and the
heartbeat go (it keeps the leases of the jobs still finishing until the workers are done); last,
the handlers that ignored their cancellation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from core.jobs.attempt import Deadlines
from core.jobs.heartbeat import Heartbeat
from core.jobs.lease_watch import LeaseWatch
from core.jobs.producing import Producer
from core.jobs.registry import JobType
from core.jobs.supervision import Supervisor
from core.jobs.tasks import all_done, first_of, settle
from core.jobs.worker import Worker
from ports.clock import Clock


class Crew:
    def __init__(
        self,
        *,
        clock: Clock,
        supervisor: Supervisor,
        workers: Sequence[Worker],
        counted_workers: int,
        heartbeat: Heartbeat,
        lease_watch: LeaseWatch,
        producer: Producer,
        periodic: Sequence[JobType],
        deadlines: Deadlines,
    ) -> None:
        """`counted_workers`: the first workers, the ones /healthz counts (the quick lane's
        worker, last, is kept alive like them but is not one of the `concurrency` workers)."""
        self._clock = clock
        self._supervisor = supervisor
        self._workers = workers
        self._counted_workers = counted_workers
        self._heartbeat = heartbeat
        self._lease_watch = lease_watch
        self._producer = producer
        self._periodic = periodic
        self._deadlines = deadlines
        self._tasks: _Tasks | None = None

    @property
    def running(self) -> bool:
        return self._tasks is not None

    def start(self) -> None:
        keep = self._supervisor.keep_running
        self._tasks = _Tasks(
            workers=[
                keep(f"vidrelay-worker-{n}", worker.run, worker=n < self._counted_workers)
                for n, worker in enumerate(self._workers)
            ],
            heartbeat=keep("vidrelay-heartbeat", self._heartbeat.run),
            lease_watch=keep("vidrelay-lease-watch", self._lease_watch.run),
            ticks=[
                keep(f"vidrelay-tick-{job_type.name}", partial(self._producer.tick, job_type))
                for job_type in self._periodic
            ],
        )

    async def stop(self, grace_seconds: float) -> None:
        """The workers were told to stop claiming: in the order of the module's docstring."""
        tasks, self._tasks = self._tasks, None
        if tasks is None:
            return
        for task in tasks.ticks:
            task.cancel()
        await settle(tasks.ticks)
        # Every worker is let go on its own first, idle ones too: one in the middle of a claim or
        # of deleting a finished job's row must finish that step, or a claimed job would keep a
        # spent attempt and a delivered one would run again.
        await first_of(all_done(tasks.workers), self._clock.sleep(grace_seconds))
        last = [*tasks.workers, tasks.heartbeat, tasks.lease_watch]
        for task in last:
            task.cancel()
        await settle([*last, *self._deadlines.cancel_abandoned()])


@dataclass(frozen=True, slots=True)
class _Tasks:
    """The tasks of a running crew, by what each is: stopping takes them in a set order."""

    workers: list[asyncio.Task[None]]
    heartbeat: asyncio.Task[None]
    lease_watch: asyncio.Task[None]
    ticks: list[asyncio.Task[None]]
