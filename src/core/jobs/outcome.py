"""What an attempt of a job comes to: done, deferred (run again later, nobody's fault), or failed
(the engine decides whether it retries)."""

from __future__ import annotations

from dataclasses import dataclass

from returns.result import Result


@dataclass(frozen=True, slots=True)
class JobFailure:
    reason: str
    """Short and user-facing (the 💥 line)."""
    permanent: bool = False
    retry_after: float | None = None
    """Do not retry sooner than this many seconds (Telegram's flood control)."""
    detail: str | None = None
    """For the dead-letter row: a traceback, a stderr tail."""
    code: str = ""
    """What kind of failure, for the hooks (e.g. "not_a_video" stays silent in groups)."""


INTERNAL = "internal"
"""The code of a failure that is a bug of ours, not the job's: an operator should look."""


@dataclass(frozen=True, slots=True)
class Deferred:
    """Not done, and not failed either: run the job again at `until`, its attempt refunded.

    For a wait that is nobody's fault and must not hold a worker (a chat that Telegram's flood
    limits close for the next 40 s): the row waits in the queue, the worker takes other jobs.
    """

    until: float


JobOutcome = Result[Deferred | None, JobFailure]
