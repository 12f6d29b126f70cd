"""Telegram's outages cost no attempt: a job that could not reach Telegram waits for it.

A failure to reach Telegram (a 5xx, an answer that is not the Bot API's JSON such as nginx's
HTML page, a refused connection, a timeout) says nothing about the link: the video is downloaded
and fine. So the attempt is not charged (the job defers itself, `Deferred`), the downloaded file
stays (the job touches it at each try, and bytes are kept while used: core.blob_retention), and
the delivery is tried again after a capped, jittered backoff (about a minute at most) until
Telegram answers — for as long as `budget_seconds` (VIDRELAY_TELEGRAM_OUTAGE_HOURS) from the
outage's first failure, which travels in the job's payload across tries and restarts. A 429 is
not an outage (Telegram answered, asking to wait): it is deferred by its own retry_after.

A sendVideo whose answer was lost (the connection dropped or timed out after the request went
out) is the one ambiguous case: Telegram may have posted the video. It is sent again: the
promise is that an accepted link is never silently lost, and a rare second copy is the lesser
harm (README, "Reliability at the boundaries").

While any job of this process waits for Telegram, `problem()` says so (/healthz).
"""

from __future__ import annotations

import logging
from dataclasses import replace

from returns.result import Failure, Success

from core.jobs.context import JobContext
from core.jobs.fields import log_fields
from core.jobs.outcome import Deferred, JobOutcome
from core.lifecycle.retry_policy import Random, RetryPolicy, backoff_delay
from core.texts.reasons import unreachable_for
from core.work.delivery.failures import TELEGRAM_UNREACHABLE
from ports.clock import Clock
from ports.json import Payload

log = logging.getLogger("vidrelay.delivery")

OUTAGE_KEY = "telegram_outage"
"""In the job's payload: {"since": first failure (epoch seconds), "tries": failures so far}."""
WAIT_POLICY = RetryPolicy(base_seconds=2.0, cap_seconds=60.0, jitter=0.25)


class TelegramOutages:
    def __init__(self, *, clock: Clock, random: Random, budget_seconds: float) -> None:
        self._clock = clock
        self._random = random
        self._budget = budget_seconds
        self._waiting: dict[int, float] = {}
        """Job id → since when it waits for Telegram, for the jobs of this process."""

    async def settle(self, context: JobContext, outcome: JobOutcome) -> JobOutcome:
        """`outcome` as the engine is to take it: an unreachable Telegram becomes a wait."""
        failure = outcome.failure() if isinstance(outcome, Failure) else None
        if failure is None or failure.code != TELEGRAM_UNREACHABLE:
            if self._waiting.pop(context.job.id, None) is not None:
                log.info("Telegram answered again: the delivery went on", extra=log_fields(context.job))
            return outcome
        now = self._clock.now()
        since, tries = _outage_of(context.payload, now)
        if now - since >= self._budget:
            self._waiting.pop(context.job.id, None)
            reason = unreachable_for(self._budget, failure.reason)
            return Failure(replace(failure, reason=reason, permanent=True))
        context.payload[OUTAGE_KEY] = {"since": since, "tries": tries + 1}
        await context.save()
        self._waiting[context.job.id] = since
        delay = backoff_delay(tries + 1, WAIT_POLICY, self._random)
        log.warning(
            "Telegram could not be reached: the delivery waits %.0fs, its attempt not charged",
            delay,
            extra=log_fields(context.job, error=failure.reason),
        )
        return Success(Deferred(now + delay))

    def problem(self) -> str | None:
        """Why deliveries wait, for /healthz; None when none does."""
        if not self._waiting:
            return None
        since = min(self._waiting.values())
        waited = max(self._clock.now() - since, 0.0)
        return f"Telegram unreachable for {waited:.0f}s: {len(self._waiting)} delivery(ies) waiting"


def _outage_of(payload: Payload, now: float) -> tuple[float, int]:
    state = payload.get(OUTAGE_KEY)
    if isinstance(state, dict):
        since, tries = state.get("since"), state.get("tries")
        if isinstance(since, int | float) and isinstance(tries, int):
            return float(since), tries
    return now, 0
