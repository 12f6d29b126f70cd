"""The MediaProber port on ffprobe: duration, size and codecs of a downloaded file.

ffprobe runs as a child process with a deadline; a file it cannot read, a crash or a timeout all
answer None — the caller then goes on without the numbers.
"""

from __future__ import annotations

import json
import logging
import math
import re
from pathlib import Path
from typing import Any

from adapters.process import ChildProcesses
from ports.media import MediaProbe, MediaProber

log = logging.getLogger(__name__)


class FfprobeProber(MediaProber):
    def __init__(
        self, ffprobe: str = "ffprobe", *, timeout_seconds: float = 30.0, kill_grace_seconds: float = 2.0
    ) -> None:
        self._ffprobe = ffprobe
        self._timeout = timeout_seconds
        self._children = ChildProcesses(kill_grace_seconds)

    async def probe(self, path: Path) -> MediaProbe | None:
        # The "file:" protocol prefix: a name can never be read as an option or another protocol.
        target = f"file:{path}"
        ran = await self._children.capture(
            (self._ffprobe, "-v", "error", "-print_format", "json", "-show_format", "-show_streams", target),
            timeout=self._timeout,
        )
        if not ran.exit.ok:
            reason = ran.exit.stderr_tail.strip()[-500:]
            log.warning("ffprobe failed on %s", path, extra={"error": f"{ran.exit.describe()}: {reason}"})
            return None
        return parse_probe(ran.stdout)


def parse_probe(stdout: str) -> MediaProbe | None:
    try:
        data = json.loads(stdout)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    streams = [s for s in data.get("streams") or [] if isinstance(s, dict)]
    video = next((s for s in streams if s.get("codec_type") == "video" and not _is_cover(s)), {})
    audio = next((s for s in streams if s.get("codec_type") == "audio"), {})
    fmt = data.get("format")
    fmt = fmt if isinstance(fmt, dict) else {}
    return MediaProbe(
        duration=_float(fmt.get("duration")) or _float(video.get("duration")),
        width=_int(video.get("width")),
        height=_int(video.get("height")),
        video_codec=_text(video.get("codec_name")),
        pix_fmt=_text(video.get("pix_fmt")),
        bit_depth=_bit_depth(video),
        audio_codec=_text(audio.get("codec_name")),
        container=_text(fmt.get("format_name")),
        size=_int(fmt.get("size")),
    )


def _is_cover(stream: dict[str, Any]) -> bool:
    """An MP3's or M4A's embedded cover picture is a "video" stream of one frame: not the video."""
    disposition = stream.get("disposition")
    return isinstance(disposition, dict) and disposition.get("attached_pic") == 1


def _bit_depth(video: dict[str, Any]) -> int | None:
    declared = _int(video.get("bits_per_raw_sample"))
    if declared:
        return declared
    pix_fmt = _text(video.get("pix_fmt")) or ""
    # yuv420p10le, p010le, yuv444p12be…: the number in the name is the depth.
    match = re.search(r"p(\d{2})(?:le|be)$", pix_fmt) or re.fullmatch(r"p0(\d{2})(?:le|be)", pix_fmt)
    return int(match.group(1)) if match else None


def _text(value: Any) -> str | None:
    return (value.strip() or None) if isinstance(value, str) else None


def _float(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) and number >= 0 else None


def _int(value: Any) -> int | None:
    number = _float(value)
    return int(number) if number is not None else None
