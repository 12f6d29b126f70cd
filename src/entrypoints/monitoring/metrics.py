"""Prometheus `/metrics` and `/healthz` on VIDRELAY_METRICS_PORT (0 = off).

Counters and histograms are fed by events as they happen (the telemetry ports); the queue, the
workers, the breakers and yt-dlp's version are read when a scrape comes in.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from aiohttp import web

from adapters.prometheus.metrics import CONTENT_TYPE, ProcessState, PrometheusMetrics
from core.jobs.breaker import CircuitBreakers
from core.status import StatusQuery
from entrypoints.listening import listen
from entrypoints.monitoring.health import Waits, Workers, health_problem
from entrypoints.monitoring.liveness import Liveness
from ports.clock import Clock
from ports.errors import StoreError

HEALTHY = "ok\n"


@dataclass(frozen=True, slots=True)
class Observed:
    """Everything the endpoints read, as the container builds it."""

    status: StatusQuery
    metrics: PrometheusMetrics
    workers: Workers
    breakers: CircuitBreakers
    update_outcomes: Counter[str]
    clock: Clock
    liveness: Liveness
    waits: Waits
    """Deliveries waiting out a Telegram outage."""


async def _state(observed: Observed) -> ProcessState:
    status = await observed.status.read()
    return ProcessState(
        waiting=status.waiting,
        running=status.running,
        failed=status.failed,
        in_flight=status.in_flight,
        live_workers=observed.workers.live_workers,
        workers=observed.workers.worker_count,
        ytdlp_version=status.ytdlp_version,
        ytdlp_updates=dict(observed.update_outcomes),
        open_breakers=observed.breakers.paused_keys(observed.clock.now()),
    )


def metrics_app(observed: Observed) -> web.Application:
    async def metrics(request: web.Request) -> web.Response:
        body = observed.metrics.render(await _state(observed))
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE})

    async def healthz(request: web.Request) -> web.Response:
        problem = health_problem(observed.liveness, observed.workers, observed.waits)
        if problem is None:
            try:
                await observed.status.counts()
                if observed.liveness.runs_jobs:
                    problem = await observed.workers.stalled()
            except StoreError as error:
                problem = f"the store does not answer: {error}"
        if problem is None:
            return web.Response(text=HEALTHY)
        return web.Response(status=503, text=f"unhealthy: {problem}\n")

    web_app = web.Application()
    web_app.router.add_get("/metrics", metrics)
    web_app.router.add_get("/healthz", healthz)
    return web_app


async def start_metrics(observed: Observed, port: int, host: str) -> web.AppRunner | None:
    """ListenRefused when the port is taken (another process, a second bot) or not allowed."""
    if port == 0:
        return None
    runner = web.AppRunner(metrics_app(observed), access_log=None)
    await runner.setup()
    await listen(runner, host, port, serving="/metrics and /healthz", setting="VIDRELAY_METRICS_PORT")
    return runner
