"""Settings of running the process: `/metrics` and `/healthz`, the log lines, and the env file the
settings are read from."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from entrypoints.settings.environment import DEFAULT_ENV_FILE


class OperationSettings(BaseModel):
    metrics_port: int = Field(0, ge=0, le=65535, description="Prometheus `/metrics` and `/healthz`; 0 = off")
    metrics_host: str = Field(
        "0.0.0.0",  # noqa: S104 - scraped from outside the container by default
        min_length=1,
        description="the address `/metrics` and `/healthz` listen on: `127.0.0.1` keeps them on this machine",
    )
    health_stale_seconds: float = Field(
        60.0, ge=2, le=3600, description="`/healthz` is 503 once no update came from Telegram this long"
    )
    log_format: Literal["text", "json"] = Field(
        "text", description="`text` (key=value) or `json`, one line per event"
    )
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        "info", description="`debug` adds tracebacks to the text format's error lines"
    )
    env_file: str = Field(
        DEFAULT_ENV_FILE,
        description="a file of `VIDRELAY_*=value` lines (Compose's `.env`) read at start, from the working "
        "directory; the environment wins over it; empty = none",
    )
