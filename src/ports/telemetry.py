"""What the bot reports as it works, for whoever counts it (the metrics endpoint).

Notices, not requests: an implementation never fails, never blocks and never awaits, so
reporting cannot slow down or break the work it reports on.
"""

from __future__ import annotations

from typing import Protocol


class JobEvents(Protocol):
    def job_enqueued(self, name: str) -> None: ...

    def job_completed(self, name: str, claim_to_done_seconds: float) -> None:
        """The job's row is deleted: its work is done. Timed from the claim of its last attempt."""
        ...

    def job_retried(self, name: str) -> None: ...

    def job_dead(self, name: str) -> None:
        """Moved to the failed table."""
        ...

    def job_cancelled(self, name: str) -> None:
        """Its user cancelled it while it ran: deleted, neither done nor failed."""
        ...


class DeliveryEvents(Protocol):
    def video_delivered(self, post_to_video_seconds: float) -> None:
        """A video reached the chat; timed from the date of the message that asked for it."""
        ...


class ApiEvents(Protocol):
    def api_error(self, method: str, code: int | None) -> None:
        """The chat service refused a call with `code`, or did not answer (None)."""
        ...

    def flood_wait(self, seconds: float) -> None:
        """The chat service asked to wait `seconds` before the next call (Telegram's 429)."""
        ...


class RefusalEvents(Protocol):
    def site_refused(self, verdict: str, site: str) -> None:
        """`site` refused the server a video and said why (`verdict`: a bot check, an age gate…)."""
        ...


class RollbackEvents(Protocol):
    def ytdlp_rolled_back(self, extractor: str) -> None:
        """This process went back from a yt-dlp release that broke `extractor`."""
        ...


class UpdateEvents(Protocol):
    def updates_received(self) -> None:
        """The chat service handed over updates (a getUpdates answered, even empty; a webhook
        request taken), or said none are waiting for a webhook."""
        ...

    def updates_failed(self, reason: str) -> None:
        """Asking for updates failed (a refused or unanswered getUpdates), or updates are stuck."""
        ...
