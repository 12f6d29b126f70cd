"""Settings of yt-dlp: how many run at once and for how long, its self-updates, the warm server
it forks from, and the cookies it sends to sites that need a login."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from entrypoints.settings.values import Switch, is_readable_file


class YtDlpSettings(BaseModel):
    ytdlp_concurrency: int = Field(3, ge=1, le=64, description="yt-dlp processes at once")
    ytdlp_timeout_seconds: float = Field(300.0, gt=0, description="per-attempt yt-dlp deadline")
    ytdlp_update_interval_seconds: float = Field(
        300.0, ge=0, description="yt-dlp self-update period; 0 disables the updater"
    )
    ytdlp_rollback_failures: int = Field(
        3,
        ge=0,
        le=1000,
        description="a yt-dlp release is rolled back once this many links of one extractor failed in a "
        "row on it, not by the site's own verdict, where the previous release ran that extractor; 0: never",
    )
    ytdlp_channel: Literal["stable", "nightly"] = Field(
        "stable", description="`stable` or `nightly` (pre-releases)"
    )
    ytdlp_warm: bool = Field(
        True,
        description="fork yt-dlp runs from a pre-warmed server (a scrape: ~0.2 s of CPU instead of ~1 s)",
    )
    ytdlp_warm_idle_seconds: float = Field(
        120.0, gt=0, description="the warm server (~50 MB) exits after this long without a run"
    )
    ytdlp_pip_args: str = Field(
        "", description="extra pip arguments for the updater (a private index, `--find-links`); empty = PyPI"
    )
    ytdlp_cookies_file: Path | None = Field(
        None,
        description="a Netscape cookies.txt passed to yt-dlp for sites that need a login; never shown "
        "or logged, a missing or unreadable file refuses the start",
    )

    @field_validator("ytdlp_cookies_file")
    @classmethod
    def _readable(cls, value: Path | None) -> Path | None:
        # The message names no path: the variable is enough to find it, and the path stays private.
        if value is not None and not is_readable_file(value):
            raise ValueError("the cookies file is missing, not a file, or not readable")
        return value

    @property
    def cookies_configured(self) -> bool:
        return self.ytdlp_cookies_file is not None

    @property
    def ytdlp_updates(self) -> Switch:
        return "on" if self.ytdlp_update_interval_seconds > 0 else "off"
