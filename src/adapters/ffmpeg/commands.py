"""The ffmpeg command lines of a transcode (built from a TranscodePlan) and of a cut into parts:
pure, so every flag is checked by a unit test.

Every file goes in and out with the "file:" protocol prefix, so a name can never be read as an
option or as another protocol (a title starting with "-" or containing "http:").
"""

from __future__ import annotations

from pathlib import Path

from ports.transcoder import StreamAction, TranscodePlan

_EVEN = "trunc(iw/2)*2:trunc(ih/2)*2"
_BUFFER_SECONDS = 2.0
_BUFFER_SHARE = 0.05
"""The rate buffer: 2 s (smooth quality), but never more than 5 % of the video, because the encoder
may spend a full buffer on top of rate x duration: on a short clip that would miss the target."""


def transcode_args(
    source: Path, target: Path, plan: TranscodePlan, *, preset: str, crf: int, duration: float | None
) -> list[str]:
    return [
        *("-nostdin", "-hide_banner", "-v", "error", "-y"),
        *("-i", f"file:{source}"),
        *("-map", "0:v:0"),
        *(("-map", "0:a:0") if plan.audio is not StreamAction.DROP else ()),
        *("-sn", "-dn", "-map_chapters", "-1"),
        *_video_args(plan, preset, crf, duration),
        *_audio_args(plan),
        *("-movflags", "+faststart", "-f", "mp4"),
        *("-progress", "pipe:1", "-nostats"),
        f"file:{target}",
    ]


def _video_args(plan: TranscodePlan, preset: str, crf: int, duration: float | None) -> list[str]:
    if plan.video is StreamAction.COPY:
        return ["-c:v", "copy"]
    # 4:2:0 needs even sides; a height cap scales down only, never up.
    scale = _EVEN if plan.max_height is None else f"-2:trunc(min(ih\\,{plan.max_height})/2)*2"
    args = ["-c:v", "libx264", "-preset", preset, "-pix_fmt", "yuv420p", "-vf", f"scale={scale}"]
    if plan.video_kbps is None:
        return [*args, "-crf", str(crf)]
    rate = f"{plan.video_kbps}k"
    seconds = _BUFFER_SECONDS if duration is None else min(_BUFFER_SECONDS, duration * _BUFFER_SHARE)
    buffer = max(int(plan.video_kbps * seconds), 1)
    # A capped one pass: the average aims at the rate and the buffer bounds what it may overshoot.
    return [*args, "-b:v", rate, "-maxrate", rate, "-bufsize", f"{buffer}k"]


def _audio_args(plan: TranscodePlan) -> list[str]:
    match plan.audio:
        case StreamAction.COPY:
            return ["-c:a", "copy"]
        case StreamAction.ENCODE:
            return ["-c:a", "aac", "-b:a", f"{plan.audio_kbps}k"]
        case StreamAction.DROP:
            return ["-an"]


PART_PATTERN = "part%03d.mp4"
"""The names of a cut's parts, in order: part000.mp4, part001.mp4…"""


def split_args(source: Path, folder: Path, part_seconds: float) -> list[str]:
    """The segment muxer cuts at the first keyframe at or after each multiple of `part_seconds`, so
    every part starts on a keyframe and plays on its own; the streams are copied, each part's
    timestamps start at zero and its index is up front."""
    return [
        *("-nostdin", "-hide_banner", "-v", "error", "-y"),
        *("-i", f"file:{source}"),
        *("-map", "0:v:0", "-map", "0:a:0?"),
        *("-sn", "-dn", "-map_chapters", "-1", "-c", "copy"),
        *("-f", "segment", "-segment_time", f"{part_seconds:.3f}", "-reset_timestamps", "1"),
        *("-segment_format", "mp4", "-segment_format_options", "movflags=+faststart"),
        f"file:{folder / PART_PATTERN}",
    ]
