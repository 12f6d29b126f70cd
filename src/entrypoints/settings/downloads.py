"""Settings of what is fetched and how it is made to fit: the download cap, ffmpeg's deadline, and
when a long video asks first in a group."""

from __future__ import annotations

from pydantic import BaseModel, Field


class DownloadSettings(BaseModel):
    max_download_bytes: int | None = Field(
        None,
        ge=1,
        description="nothing bigger is fetched (announced, estimated or counted while it downloads); "
        "unset = the upload limit times the larger of 4 and `VIDRELAY_MAX_PARTS`, room to compress to "
        "fit or to cut into parts",
    )
    max_parts: int = Field(
        8,
        ge=1,
        le=50,
        description="a video no watchable bitrate brings under the upload limit is cut at keyframes into "
        "at most this many parts, sent as albums; beyond, it is refused as too large; 1 = never cut",
    )
    ffmpeg_timeout_seconds: float = Field(
        600.0, gt=0, description="deadline of one ffmpeg run (a conversion or a compression to fit)"
    )
    confirm_longer_than_seconds: float = Field(
        1200.0, ge=0, description="videos longer than this ask for a confirmation in groups"
    )
