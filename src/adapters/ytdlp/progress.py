"""yt-dlp's download progress, printed one JSON object per line behind a marker.

`--newline --progress-template` makes yt-dlp print every progress update on its own line in a
format we choose; JSON ("%(...)j") keeps numbers exact and missing fields absent, so nothing
depends on yt-dlp's human-readable progress wording.
"""

from __future__ import annotations

import json

from ports.media import Progress

MARKER = "vidrelay-progress "
_FIELDS = "status,downloaded_bytes,total_bytes,total_bytes_estimate,speed,eta,_percent"
TEMPLATE = f"download:{MARKER}%(progress.{{{_FIELDS}}})j"


def parse_progress(line: str) -> Progress | None:
    """The Progress on a marked line; None for any other line (it is ordinary output)."""
    if not line.startswith(MARKER):
        return None
    try:
        fields = json.loads(line[len(MARKER) :])
    except ValueError:
        return None
    if not isinstance(fields, dict):
        return None
    total = _number(fields.get("total_bytes")) or _number(fields.get("total_bytes_estimate"))
    return Progress(
        percent=_number(fields.get("_percent")),
        speed_bytes=_number(fields.get("speed")),
        eta_seconds=_number(fields.get("eta")),
        downloaded_bytes=_whole(fields.get("downloaded_bytes")),
        total_bytes=int(total) if total is not None else None,
    )


def is_progress_line(line: str) -> bool:
    return line.startswith(MARKER)


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _whole(value: object) -> int | None:
    number = _number(value)
    return int(number) if number is not None else None
