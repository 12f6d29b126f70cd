"""Compress to fit: the bitrate that brings a video under the upload limit, and whether the
picture at that bitrate is still worth watching.

The target is the limit minus a margin (the MP4 container's own bytes and the encoder's overshoot
on hard material), spread over the duration; the audio takes a fixed share and the video the rest.
The picture height follows the video bitrate (more pixels need more bits), never above the
source's. Below MIN_VIDEO_KBPS even a 360p picture is a smear: then the video is cut into parts
(core.media.parts) if the operator allows enough of them, or else it is too large.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from core.media.parts import NEVER_SPLIT, may_split
from ports.transcoder import StreamAction, TranscodePlan

MIN_VIDEO_KBPS = 250
MIN_HEIGHT = 360
FIT_AUDIO_KBPS = 64
SIZE_MARGIN = 0.92
RETRY_MARGIN = 0.97
"""A second pass aims this much under what the first pass would have needed to hit the target."""
_HEIGHT_FOR_KBPS = ((2500, 1080), (1200, 720), (700, 540), (400, 480), (MIN_VIDEO_KBPS, MIN_HEIGHT))


class SizeVerdict(enum.Enum):
    FITS = "fits"
    """Under the limit, or not known yet: download and look at the bytes."""
    COMPRESS = "compress"
    """Over the limit: download, then compress to fit (or refuse once the bytes say it cannot)."""
    PARTS = "parts"
    """Over the limit at any watchable bitrate: download, then cut into parts (core.media.parts)."""
    TOO_MANY_PARTS = "too_many_parts"
    """Over the limit at any watchable bitrate, and more parts than allowed."""
    TOO_LARGE = "too_large"


@dataclass(frozen=True, slots=True)
class SizeLimits:
    upload_bytes: int
    download_bytes: int
    """Nothing bigger than this is fetched at all (so a hostile link cannot fill the disk)."""
    max_parts: int = NEVER_SPLIT
    """How many parts a video too large for any watchable bitrate may be sent in."""


def fit_plan(
    duration: float | None, limit_bytes: int, source_height: int | None, has_audio: bool
) -> TranscodePlan | None:
    """The compression that fits `limit_bytes`; None when no watchable one does."""
    if duration is None or duration <= 0:
        return None
    total_kbps = limit_bytes * 8 * SIZE_MARGIN / duration / 1000
    audio_kbps = FIT_AUDIO_KBPS if has_audio else 0
    return _plan(total_kbps - audio_kbps, audio_kbps, source_height, has_audio)


def tighter(plan: TranscodePlan, produced_bytes: int, limit_bytes: int) -> TranscodePlan | None:
    """A second try after a pass came out over the limit: the video bitrate scaled down by how
    much it missed; None when that is no longer watchable."""
    if plan.video_kbps is None or produced_bytes <= 0:
        return None
    scale = limit_bytes * SIZE_MARGIN * RETRY_MARGIN / produced_bytes
    video_kbps = plan.video_kbps * min(scale, RETRY_MARGIN)
    return _plan(video_kbps, plan.audio_kbps, plan.max_height, plan.audio is not StreamAction.DROP)


def _plan(
    video_kbps: float, audio_kbps: int, source_height: int | None, has_audio: bool
) -> TranscodePlan | None:
    if video_kbps < MIN_VIDEO_KBPS:
        return None
    height = next(h for kbps, h in _HEIGHT_FOR_KBPS if video_kbps >= kbps)
    return TranscodePlan(
        video=StreamAction.ENCODE,
        audio=StreamAction.ENCODE if has_audio else StreamAction.DROP,
        video_kbps=int(video_kbps),
        audio_kbps=audio_kbps,
        max_height=height if source_height is None or source_height > height else None,
    )


def verdict_before_download(
    size: int | None, duration: float | None, height: int | None, limits: SizeLimits
) -> SizeVerdict:
    """From what the scrape announced (exact or estimated bytes, duration). The download cap
    first: an operator may set it below the upload limit."""
    if size is None:
        return SizeVerdict.FITS
    if size > limits.download_bytes:
        return SizeVerdict.TOO_LARGE
    if size <= limits.upload_bytes:
        return SizeVerdict.FITS
    if duration is None:
        return SizeVerdict.COMPRESS  # the bytes will tell the duration
    if fit_plan(duration, limits.upload_bytes, height, has_audio=True) is not None:
        return SizeVerdict.COMPRESS
    if may_split(size, limits.upload_bytes, limits.max_parts):
        return SizeVerdict.PARTS
    return SizeVerdict.TOO_MANY_PARTS if limits.max_parts > NEVER_SPLIT else SizeVerdict.TOO_LARGE
