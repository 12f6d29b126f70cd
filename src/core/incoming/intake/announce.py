"""A private chat hears at once that its link was taken: the job's log message goes out when the
job exists — at the handler, or when a link the store refused for a while lands in the background
— not when a worker is free (`⏳ Queued — N ahead of you` while none is). The worker then carries
on in that same message."""

from __future__ import annotations

from core import texts
from core.log_message.views import LogViews
from core.requests.download import DownloadRequest
from ports.clock import Clock
from ports.errors import StoreError
from ports.queue_view import QueueView


class Announcements:
    def __init__(self, logs: LogViews, depth: QueueView, *, clock: Clock, worker_slots: int) -> None:
        """`depth`: the queue's counts, for a waiting link's place in it."""
        self._logs = logs
        self._depth = depth
        self._clock = clock
        self._slots = worker_slots

    async def accepted(self, request: DownloadRequest, job_id: int) -> None:
        # Only the worker that claims the job may write its row (fenced leases): the message id
        # reaches the row with the worker's first save. A restart before that costs a second
        # log message, never the link.
        if request.private:
            ahead = await self._ahead(job_id)
            first = texts.queued(ahead) if ahead > 0 else texts.scraping()
            self._logs.announce(job_id, request.log_address, first)

    async def _ahead(self, job_id: int) -> int:
        """How many jobs must start before this one can, in the order the claims take them (the
        fair order: another user's backlog is not ahead of a newcomer); 0 when a worker is free
        for it."""
        try:
            before = await self._depth.ahead_of(job_id, self._clock.now())
            counts = await self._depth.counts()
        except StoreError:
            return 0  # the link is queued already: only the count is missing
        free = max(self._slots - counts.running, 0)
        return before - free + 1 if before >= free else 0
