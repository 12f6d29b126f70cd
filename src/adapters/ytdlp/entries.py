"""From yt-dlp's --dump-json entries to VideoInfo, choosing the best format that fits the limit.

yt-dlp picks its best format under the `-t mp4` sort (H.264 first, then AAC). When the pick is
known to be bigger than the upload limit, the best-ranked combination whose size fits is chosen
instead, from yt-dlp's own ranking (its `formats` list is sorted worst to best). The chosen format
id is handed back to yt-dlp at download time (`-f <id>`).

Sizes: yt-dlp's exact or approximate size when it has one. HLS and DASH formats have neither
(yt-dlp leaves manifest formats unestimated), so their size is estimated from the bitrate the
manifest declares times the duration (the entry's, or the sum of the DASH fragments'), and a
separate audio track without a bitrate counts as ASSUMED_AUDIO_KBPS. Manifest bitrates are
peaks, so the estimate errs high: a variant that might not fit is never fetched.

When nothing fits, the video will be compressed to fit: the format to download for that is the
best-ranked one of at most COMPRESS_SOURCE_MAX_HEIGHT (more pixels cost CPU and bring nothing at
the bitrate a limit leaves) within the download cap, else the smallest within it. When even that
is over the cap, the original pick stays and its size tells the caller the video is too large.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ports.media import VideoInfo

Entry = Mapping[str, Any]

ASSUMED_AUDIO_KBPS = 128.0
COMPRESS_SOURCE_MAX_HEIGHT = 720
_IMAGE_EXTS = frozenset({"jpg", "jpeg", "png", "webp", "gif", "heic", "avif", "bmp"})
SAFE_FORMAT_ID = re.compile(r"[A-Za-z0-9_.\-]+(?:\+[A-Za-z0-9_.\-]+)*")


@dataclass(frozen=True, slots=True)
class _Choice:
    format_id: str
    size: int | None
    parts: tuple[Entry, ...]


def parse_entries(
    url: str, stdout_lines: Iterable[str], max_filesize: int, max_download_bytes: int | None = None
) -> list[VideoInfo]:
    infos = []
    for line in stdout_lines:
        entry = _json_object(line)
        if entry is not None:
            infos.append(to_video_info(url, entry, line, max_filesize, max_download_bytes))
    return infos


def to_video_info(
    url: str,
    entry: Entry,
    raw_json: str,
    max_filesize: int,
    max_download_bytes: int | None = None,
    max_height: int | None = None,
) -> VideoInfo:
    choice = choose_format(entry, max_filesize, max_download_bytes, max_height)
    video = next((p for p in choice.parts if _has_video_stream(p)), choice.parts[0])
    audio = next((p for p in choice.parts if _text(p, "acodec") not in (None, "none")), choice.parts[0])
    has_video = _has_video_stream(video) and _text(entry, "ext") not in _IMAGE_EXTS
    entry_id = _text(entry, "id") or _text(entry, "display_id") or ""
    return VideoInfo(
        url=url,
        webpage_url=_text(entry, "webpage_url") or _text(entry, "original_url") or url,
        extractor=_text(entry, "extractor") or "generic",
        id=entry_id,
        title=_text(entry, "title") or entry_id,
        format_id=choice.format_id,
        # `-t mp4` merges and remuxes whatever has a picture into MP4.
        ext="mp4" if has_video else _text(entry, "ext") or "bin",
        info_json=raw_json,
        duration=_duration(entry),
        filesize=choice.size,
        width=_int(video, "width"),
        height=_int(video, "height"),
        vcodec=_text(video, "vcodec"),
        acodec=_text(audio, "acodec"),
        tbr=sum(t for p in choice.parts if (t := _number(p, "tbr")) is not None) or None,
        playlist_title=_text(entry, "playlist_title") or _text(entry, "playlist"),
        description=_text(entry, "description"),
        performer=_performer(entry),
        has_video=has_video,
        entry=_int(entry, "playlist_index"),
    )


def choose_format(
    entry: Entry, max_filesize: int, max_download_bytes: int | None = None, max_height: int | None = None
) -> _Choice:
    duration = _duration(entry)
    parts = _requested_parts(entry)
    picked = _Choice(_text(entry, "format_id") or "", _picked_size(entry, parts, duration), parts)
    if max_height is not None and (_choice_height(picked) or 0) > max_height:
        return (
            _within_height(_ranked_choices(entry, duration), max_filesize, max_download_bytes, max_height)
            or picked
        )
    if picked.size is None or picked.size <= max_filesize:
        return picked
    ranked = _ranked_choices(entry, duration)
    fitting = [c for c in ranked if c.size is not None and c.size <= max_filesize]
    if fitting:
        return fitting[0]
    return _compress_source(ranked, max_download_bytes) or picked


def _compress_source(ranked: list[_Choice], max_download_bytes: int | None) -> _Choice | None:
    within = [
        c
        for c in ranked
        if c.size is not None and (max_download_bytes is None or c.size <= max_download_bytes)
    ]
    modest = [c for c in within if (_choice_height(c) or 0) <= COMPRESS_SOURCE_MAX_HEIGHT]
    if modest:
        return modest[0]
    return min(within, key=lambda c: c.size or 0, default=None)


def _choice_height(choice: _Choice) -> int | None:
    return next((h for p in choice.parts if (h := _int(p, "height")) is not None), None)


def _within_height(
    ranked: list[_Choice], max_filesize: int, max_download_bytes: int | None, max_height: int
) -> _Choice | None:
    """The best choice at most `max_height` tall that may fit (its size known to fit, or unknown
    like yt-dlp's own pick); when none fits, the one to compress as `_compress_source` picks it.
    A site with nothing that small offers its lowest picture instead."""
    low = [c for c in ranked if (_choice_height(c) or 0) <= max_height]
    if not low and ranked:
        low = [min(ranked, key=lambda c: _choice_height(c) or 0)]
    fitting = [c for c in low if c.size is None or c.size <= max_filesize]
    if fitting:
        return fitting[0]
    return _compress_source(low, max_download_bytes) or (low[0] if low else None)


def _requested_parts(entry: Entry) -> tuple[Entry, ...]:
    requested = entry.get("requested_formats")
    if isinstance(requested, list) and requested and all(isinstance(f, Mapping) for f in requested):
        return tuple(requested)
    return (entry,)


def _picked_size(entry: Entry, parts: tuple[Entry, ...], duration: float | None) -> int | None:
    known = _known_size(entry)
    if known is not None:
        return known
    return _total(_size(p, duration, audio_only=not _has_video_stream(p)) for p in parts)


def _ranked_choices(entry: Entry, duration: float | None) -> list[_Choice]:
    """Every single or video+audio combination, best first by yt-dlp's own format order."""
    formats = [f for f in entry.get("formats") or [] if isinstance(f, Mapping) and _usable(f)]
    ranked = list(enumerate(formats))
    audio_only = [(i, f) for i, f in ranked if not _has_video_stream(f) and _has_audio(f)]
    scored: list[tuple[tuple[int, int], _Choice]] = []
    for i, f in ranked:
        if not _has_video_stream(f):
            continue
        if _has_audio(f) or not audio_only:
            scored.append(((i, -1), _Choice(_text(f, "format_id") or "", _size(f, duration), (f,))))
            continue
        for j, a in audio_only:
            total = _total((_size(f, duration), _size(a, duration, audio_only=True)))
            ids = f"{_text(f, 'format_id')}+{_text(a, 'format_id')}"
            scored.append(((i, j), _Choice(ids, total, (f, a))))
    scored.sort(key=lambda pair: pair[0], reverse=True)
    return [choice for _, choice in scored if SAFE_FORMAT_ID.fullmatch(choice.format_id)]


def _performer(entry: Entry) -> str | None:
    artists = entry.get("artists")
    if isinstance(artists, list) and artists and all(isinstance(a, str) for a in artists):
        return ", ".join(artists)
    return next((t for key in _PERFORMER_KEYS if (t := _text(entry, key))), None)


_PERFORMER_KEYS = ("artist", "creator", "uploader", "channel")


def _usable(f: Entry) -> bool:
    return not f.get("has_drm") and _text(f, "protocol") != "mhtml" and bool(_text(f, "format_id"))


def _has_video_stream(f: Entry) -> bool:
    # vcodec None means "not known", which yt-dlp treats as possibly video (a direct .mp4 link).
    return _text(f, "vcodec") != "none" and _text(f, "ext") not in _IMAGE_EXTS


def _has_audio(f: Entry) -> bool:
    return _text(f, "acodec") not in (None, "none")


def _known_size(f: Entry) -> int | None:
    for key in ("filesize", "filesize_approx"):
        value = _number(f, key)
        if value is not None and value > 0:
            return int(value)
    return None


def _size(f: Entry, duration: float | None, *, audio_only: bool = False) -> int | None:
    """Known bytes, else bitrate x duration (manifest formats), else None."""
    known = _known_size(f)
    if known is not None or duration is None:
        return known
    kbps = _number(f, "tbr") or _total_rate(f) or (ASSUMED_AUDIO_KBPS if audio_only else None)
    return int(kbps * 1000 / 8 * duration) if kbps else None


def _total_rate(f: Entry) -> float | None:
    rates = [r for key in ("vbr", "abr") if (r := _number(f, key))]
    return sum(rates) or None


def _total(sizes: Iterable[int | None]) -> int | None:
    values = list(sizes)
    return None if None in values else sum(v for v in values if v is not None)


def _duration(entry: Entry) -> float | None:
    """The entry's duration, or (DASH, where yt-dlp reports none) the sum of a format's fragments."""
    duration = _number(entry, "duration")
    if duration is not None and duration > 0:
        return duration
    for f in (*_requested_parts(entry), *(entry.get("formats") or [])):
        fragments = f.get("fragments") if isinstance(f, Mapping) else None
        if isinstance(fragments, list):
            total = sum(_number(x, "duration") or 0.0 for x in fragments if isinstance(x, Mapping))
            if total > 0:
                return total
    return None


def _json_object(line: str) -> dict[str, Any] | None:
    if not line.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _text(f: Entry, key: str) -> str | None:
    value = f.get(key)
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


def _number(f: Entry, key: str) -> float | None:
    value = f.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _int(f: Entry, key: str) -> int | None:
    value = _number(f, key)
    return int(value) if value is not None else None
