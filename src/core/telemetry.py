"""The default listener for the telemetry ports: nobody counts (tests, the CLI, metrics off)."""

from __future__ import annotations

from ports.telemetry import DeliveryEvents, JobEvents, RefusalEvents, RollbackEvents


class Unobserved(JobEvents, DeliveryEvents, RefusalEvents, RollbackEvents):
    def job_enqueued(self, name: str) -> None:
        pass

    def job_completed(self, name: str, claim_to_done_seconds: float) -> None:
        pass

    def job_retried(self, name: str) -> None:
        pass

    def job_dead(self, name: str) -> None:
        pass

    def job_cancelled(self, name: str) -> None:
        pass

    def video_delivered(self, post_to_video_seconds: float) -> None:
        pass

    def site_refused(self, verdict: str, site: str) -> None:
        pass

    def ytdlp_rolled_back(self, extractor: str) -> None:
        pass
