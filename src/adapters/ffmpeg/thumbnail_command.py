"""The ffmpeg command line that grabs a video's thumbnail: one JPEG frame, scaled to Telegram's limit.

Files go in and out with the "file:" protocol prefix, as in every ffmpeg command of this adapter.
"""

from __future__ import annotations

from pathlib import Path

THUMBNAIL_MAX_SIDE = 320
"""Telegram's limit for a video's thumbnail: a JPEG at most 320 px wide and high, under 200 kB."""


def thumbnail_args(source: Path, target: Path, at_seconds: float) -> list[str]:
    side = THUMBNAIL_MAX_SIDE
    return [
        *("-nostdin", "-hide_banner", "-v", "error", "-y"),
        *("-ss", f"{max(at_seconds, 0.0):.3f}", "-i", f"file:{source}"),
        *("-map", "0:v:0", "-frames:v", "1"),
        *("-vf", f"scale=min({side}\\,iw):min({side}\\,ih):force_original_aspect_ratio=decrease"),
        *("-q:v", "5", "-f", "image2", "-update", "1"),
        f"file:{target}",
    ]
