"""Choosing a video's format again for a chat that wants a smaller picture."""

from __future__ import annotations

from typing import Protocol

from ports.media import VideoInfo


class FormatChoice(Protocol):
    def within_height(self, info: VideoInfo, max_height: int) -> VideoInfo:
        """`info` with the best format at most `max_height` lines tall that fits the limits the
        scrape chose under; the lowest one the site has when none is that small; `info` itself
        when its format already is. Decided from the scrape's own data: nothing is fetched."""
        ...
