"""One attempt's handler under a hard deadline: its slot frees at the deadline, whatever it does.

At the deadline the handler is cancelled, which is how adapters kill their child process
groups. A handler that ignores the cancellation is waited for a short grace, then abandoned:
logged, kept referenced (so it is not garbage-collected mid-flight) and no longer waited for.
Hooks get the same treatment with their own deadline.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import Awaitable
from typing import Any, TypeVar

from returns.result import Failure

from core import texts
from core.jobs.context import JobContext
from core.jobs.fields import log_fields
from core.jobs.in_flight import AttemptStopped, HeldJob
from core.jobs.outcome import INTERNAL, JobFailure, JobOutcome
from core.jobs.registry import JobType
from core.jobs.tasks import finished_within
from core.texts.phrase import Phrase
from core.texts.reasons import timed_out
from ports.clock import Clock
from ports.errors import ShutdownAbort
from ports.jobs import Job

log = logging.getLogger("vidrelay.engine")
T = TypeVar("T")


class Deadlines:
    def __init__(self, *, clock: Clock, hook_timeout_seconds: float, grace_seconds: float) -> None:
        """`grace_seconds`: how long a cancelled handler or hook may take to stop."""
        self._clock = clock
        self._hook_timeout = hook_timeout_seconds
        self._grace = grace_seconds
        self._abandoned: set[asyncio.Future[Any]] = set()

    async def run(self, job_type: JobType, context: JobContext, held: HeldJob) -> JobOutcome:
        """The handler's outcome; a timeout or a crash of the handler is a transient failure.
        ShutdownAbort (the process is stopping) and AttemptStopped (a lost lease, a cancel) pass
        through."""
        seconds = job_type.timeout_seconds
        task = asyncio.ensure_future(job_type.run(context))
        try:
            finished = await self._within(task, seconds, held, "attempt")
        except (ShutdownAbort, AttemptStopped):
            raise
        except Exception as error:  # noqa: BLE001 - a bug in one job must not kill the worker
            return Failure(
                JobFailure(
                    Phrase(texts.INTERNAL_ERROR, error=str(error)),
                    detail=traceback.format_exc(),
                    code=INTERNAL,
                )
            )
        if not finished:
            return Failure(JobFailure(timed_out(seconds)))
        outcome: JobOutcome = task.result()
        return outcome

    async def hook(self, hook: Awaitable[None], held: HeldJob, what: str) -> None:
        """A reporting hook must never take the worker down with it, nor hold it for long."""
        task = asyncio.ensure_future(hook)
        job = held.job
        try:
            if not await self._within(task, self._hook_timeout, held, what):
                log.warning("%s hook timed out: the job goes on without it", what, extra=log_fields(job))
        except AttemptStopped:
            raise
        except Exception:
            log.exception("%s hook failed", what, extra=log_fields(job))

    async def _within(self, task: asyncio.Future[T], seconds: float, held: HeldJob, what: str) -> bool:
        """Whether `task` finished by the deadline; its exception, if it raised, is raised here."""
        finished = False
        if held.stopped is None:  # stopped before it started (the heartbeat ran in between): never start it
            held.running = task
            try:
                finished = await finished_within(task, self._clock, seconds)
            except asyncio.CancelledError:  # shutdown past its grace
                await self.stop(task, held.job, what)
                raise
            finally:
                held.running = None
        if held.stopped is not None:
            await self.stop(task, held.job, what)
            raise AttemptStopped(held.stopped)
        if not finished:
            await self.stop(task, held.job, what)
            return False
        if task.cancelled():
            raise RuntimeError(f"the {what} cancelled itself")
        task.result()
        return True

    async def stop(self, task: asyncio.Future[Any], job: Job, what: str) -> None:
        """Cancel `task` and give it the grace to stop; abandon it if it ignores that."""
        if task.done():
            return
        task.cancel()
        if await finished_within(task, self._clock, self._grace):
            return
        log.error("%s ignored its cancellation: abandoned, its slot is free", what, extra=log_fields(job))
        self._abandoned.add(task)
        task.add_done_callback(self._abandoned.discard)

    def cancel_abandoned(self) -> list[asyncio.Future[Any]]:
        for task in self._abandoned:
            task.cancel()
        return list(self._abandoned)
