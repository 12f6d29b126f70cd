"""The bot's events and state as Prometheus metrics, in a registry of this process's own.

Events arrive through the telemetry ports (counters, histograms); the state of the moment — queue,
workers, breakers, yt-dlp — is handed in as a `ProcessState` just before each scrape renders it.
Names are prefixed `vidrelay_`, one name per idea; the README's Operations section says what
each one means. Beside them, prometheus-client's own collectors (`process_*`, `python_*`) and
`vidrelay_build_info`, in the same registry.
"""

from __future__ import annotations

import importlib.metadata
import platform
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from prometheus_client import (
    CollectorRegistry,
    Counter,
    GCCollector,
    Histogram,
    Info,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, InfoMetricFamily, Metric
from prometheus_client.registry import Collector

from ports.telemetry import ApiEvents, DeliveryEvents, JobEvents, RefusalEvents, RollbackEvents

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
JOB_BUCKETS = (0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600)
DELIVERY_BUCKETS = (1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600, 6 * 3600, 24 * 3600)
WAIT_BUCKETS = (1, 2, 5, 10, 30, 60, 300, 3600)


@dataclass(frozen=True, slots=True)
class ProcessState:
    """What is true right now, read at scrape time."""

    waiting: int = 0
    running: int = 0
    failed: int = 0
    in_flight: int = 0
    live_workers: int = 0
    workers: int = 0
    ytdlp_version: str | None = None
    ytdlp_updates: Mapping[str, int] = field(default_factory=dict)
    open_breakers: frozenset[str] = frozenset()


class _StateCollector(Collector):
    def __init__(self) -> None:
        self.state = ProcessState()
        self._open_before: frozenset[str] = frozenset()
        """Open at the previous scrape: a breaker that closed since reads 0 once, then is gone."""

    def collect(self) -> Iterator[Metric]:
        state = self.state
        yield _gauge(
            "vidrelay_queue_depth", "Jobs waiting in the queue, retries backing off included.", state.waiting
        )
        yield _gauge("vidrelay_jobs_running", "Jobs claimed by a worker (of any process).", state.running)
        yield _gauge("vidrelay_dead_letters", "Rows in the dead-letter table now.", state.failed)
        yield _gauge("vidrelay_jobs_in_flight", "Attempts running in this process.", state.in_flight)
        yield _gauge("vidrelay_workers_live", "Worker tasks alive in this process.", state.live_workers)
        yield _gauge("vidrelay_workers_configured", "Worker tasks this process should have.", state.workers)
        yield InfoMetricFamily(
            "vidrelay_ytdlp", "The yt-dlp version in use.", {"version": state.ytdlp_version or "unknown"}
        )
        updates = CounterMetricFamily(
            "vidrelay_ytdlp_updates", "yt-dlp update checks by outcome.", labels=["outcome"]
        )
        for outcome in ("updated", "unchanged", "failed"):
            updates.add_metric([outcome], state.ytdlp_updates.get(outcome, 0))
        yield updates
        breakers = GaugeMetricFamily(
            "vidrelay_breaker_open", "1 while a site's circuit breaker pauses its jobs.", labels=["key"]
        )
        for key in sorted(self._open_before | state.open_breakers):
            breakers.add_metric([key], 1 if key in state.open_breakers else 0)
        self._open_before = state.open_breakers
        yield breakers


def build_labels() -> dict[str, str]:
    try:
        version = importlib.metadata.version("vidrelay")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return {"version": version, "python": platform.python_version()}


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


class PrometheusMetrics(JobEvents, DeliveryEvents, ApiEvents, RefusalEvents, RollbackEvents):
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        r = self.registry
        ProcessCollector(registry=r)
        PlatformCollector(registry=r)
        GCCollector(registry=r)
        Info("vidrelay_build", "The vidrelay that runs, and its Python.", registry=r).info(build_labels())
        by_name = ["job_name"]
        self._enqueued = Counter("vidrelay_jobs_enqueued", "Jobs enqueued.", by_name, registry=r)
        self._completed = Counter("vidrelay_jobs_completed", "Jobs done and deleted.", by_name, registry=r)
        self._retried = Counter(
            "vidrelay_jobs_retried", "Failed attempts scheduled again.", by_name, registry=r
        )
        self._dead = Counter(
            "vidrelay_jobs_dead", "Jobs moved to the dead-letter table.", by_name, registry=r
        )
        self._cancelled = Counter(
            "vidrelay_jobs_cancelled",
            "Running jobs their users cancelled (not failures).",
            by_name,
            registry=r,
        )
        self._claim_to_done = Histogram(
            "vidrelay_job_claim_to_done_seconds",
            "From the claim of a job's last attempt to its row's deletion.",
            by_name,
            buckets=JOB_BUCKETS,
            registry=r,
        )
        self._post_to_video = Histogram(
            "vidrelay_post_to_video_seconds",
            "From the date of the message with the link to the video sent back.",
            buckets=DELIVERY_BUCKETS,
            registry=r,
        )
        self._api_errors = Counter(
            "vidrelay_telegram_api_errors",
            "Bot API calls refused (by error code) or unanswered (code=network).",
            ["method", "code"],
            registry=r,
        )
        self._flood_waits = Histogram(
            "vidrelay_telegram_retry_after_seconds",
            "Waits Telegram asked for with a 429 (retry_after).",
            buckets=WAIT_BUCKETS,
            registry=r,
        )
        self._refusals = Counter(
            "vidrelay_site_refusals",
            "Videos a site refused the server, by its verdict (bot_check, age_gate, …) and extractor.",
            ["verdict", "site"],
            registry=r,
        )
        self._rollbacks = Counter(
            "vidrelay_ytdlp_rollbacks",
            "Switches back from a yt-dlp release that broke an extractor, by that extractor.",
            ["extractor"],
            registry=r,
        )
        self._state = _StateCollector()
        r.register(self._state)

    def job_enqueued(self, name: str) -> None:
        self._enqueued.labels(name).inc()

    def job_completed(self, name: str, claim_to_done_seconds: float) -> None:
        self._completed.labels(name).inc()
        self._claim_to_done.labels(name).observe(max(claim_to_done_seconds, 0.0))

    def job_retried(self, name: str) -> None:
        self._retried.labels(name).inc()

    def job_dead(self, name: str) -> None:
        self._dead.labels(name).inc()

    def job_cancelled(self, name: str) -> None:
        self._cancelled.labels(name).inc()

    def video_delivered(self, post_to_video_seconds: float) -> None:
        self._post_to_video.observe(max(post_to_video_seconds, 0.0))

    def api_error(self, method: str, code: int | None) -> None:
        self._api_errors.labels(method, str(code) if code is not None else "network").inc()

    def flood_wait(self, seconds: float) -> None:
        self._flood_waits.observe(seconds)

    def site_refused(self, verdict: str, site: str) -> None:
        self._refusals.labels(verdict, site).inc()

    def ytdlp_rolled_back(self, extractor: str) -> None:
        self._rollbacks.labels(extractor).inc()

    def render(self, state: ProcessState) -> bytes:
        """The exposition text, with `state` as the values of the moment."""
        self._state.state = state
        return generate_latest(self.registry)
