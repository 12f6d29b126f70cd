"""A video's caption: its own words (a title, a post's text), in no language of the bot's."""

from __future__ import annotations

from ports.media import VideoInfo


def caption_for(info: VideoInfo) -> str:
    """The title, or the playlist title / description where the title is only the id."""
    title = info.title.strip()
    if title and title != info.id and title.rsplit(".", 1)[0] != info.id:
        return title
    for alternative in (info.playlist_title, info.description):
        if alternative and alternative.strip():
            return alternative.strip()
    return title


def variant_caption(info: VideoInfo, variant: str) -> str | None:
    """An inline result's caption: the variant "no_caption" has none."""
    return None if variant == "no_caption" else caption_for(info)
