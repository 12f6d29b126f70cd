"""FormatChoice over yt-dlp's own entry JSON: the same ranking and size rules as the scrape's
choice (adapters.ytdlp.entries), with a height the picture must not pass."""

from __future__ import annotations

import json

from adapters.ytdlp.entries import to_video_info
from ports.formats import FormatChoice
from ports.media import VideoInfo


class YtDlpFormatChoice(FormatChoice):
    def __init__(self, *, max_filesize_bytes: int, max_download_bytes: int | None = None) -> None:
        """The limits the scrape chose under, as the downloader has them: the upload limit, and
        the download cap (None: no cap)."""
        self._max_filesize = max_filesize_bytes
        self._cap = max_download_bytes

    def within_height(self, info: VideoInfo, max_height: int) -> VideoInfo:
        if info.height is not None and info.height <= max_height:
            return info
        try:
            entry = json.loads(info.info_json)
        except ValueError:
            return info
        if not isinstance(entry, dict):
            return info
        return to_video_info(info.url, entry, info.info_json, self._max_filesize, self._cap, max_height)
