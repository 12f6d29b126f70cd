"""Prometheus `/metrics` and `/healthz` on VIDRELAY_METRICS_PORT (0 = off)."""

from __future__ import annotations

from aiohttp import web

from core.status import BotStatus, StatusQuery

HEALTHY = "ok\n"


def _metrics_text(status: BotStatus) -> str:
    lines = [
        "# HELP vidrelay_jobs_waiting Jobs waiting in the queue (retries included).",
        "# TYPE vidrelay_jobs_waiting gauge",
        f"vidrelay_jobs_waiting {status.waiting}",
        "# HELP vidrelay_jobs_running Jobs claimed by a worker.",
        "# TYPE vidrelay_jobs_running gauge",
        f"vidrelay_jobs_running {status.running}",
        "# HELP vidrelay_jobs_failed Jobs in the dead-letter table.",
        "# TYPE vidrelay_jobs_failed gauge",
        f"vidrelay_jobs_failed {status.failed}",
        "# HELP vidrelay_jobs_in_flight Attempts running in this process.",
        "# TYPE vidrelay_jobs_in_flight gauge",
        f"vidrelay_jobs_in_flight {status.in_flight}",
    ]
    for outcome in ("completed", "retried", "dead_lettered"):
        lines += [
            f"# HELP vidrelay_jobs_{outcome}_total Jobs {outcome.replace('_', ' ')} since start.",
            f"# TYPE vidrelay_jobs_{outcome}_total counter",
            f"vidrelay_jobs_{outcome}_total {getattr(status, outcome)}",
        ]
    lines += [
        "# HELP vidrelay_ytdlp_info The yt-dlp version in use.",
        "# TYPE vidrelay_ytdlp_info gauge",
        f'vidrelay_ytdlp_info{{version="{status.ytdlp_version or "unknown"}"}} 1',
    ]
    return "\n".join(lines) + "\n"


def metrics_app(status: StatusQuery) -> web.Application:
    async def metrics(request: web.Request) -> web.Response:
        body = _metrics_text(await status.read())
        return web.Response(text=body, content_type="text/plain", charset="utf-8")

    async def healthz(request: web.Request) -> web.Response:
        await status.counts()  # healthy = the store answers; yt-dlp's state is not asked
        return web.Response(text=HEALTHY)

    web_app = web.Application()
    web_app.router.add_get("/metrics", metrics)
    web_app.router.add_get("/healthz", healthz)
    return web_app


async def start_metrics(status: StatusQuery, port: int) -> web.AppRunner | None:
    if port == 0:
        return None
    runner = web.AppRunner(metrics_app(status), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "0.0.0.0", port).start()  # noqa: S104 - scraped from outside the container
    return runner
