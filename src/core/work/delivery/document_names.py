"""What a video sent as a file is called in the chat: its title, made a file name."""

from __future__ import annotations

import re

from core.texts.captions import caption_for
from ports.media import VideoInfo

MAX_NAME_CHARACTERS = 64
_NOT_IN_NAMES = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]+')


def document_name(info: VideoInfo, suffix: str) -> str:
    """The file's name in the chat: the title (what a file system may not take left out), with the
    downloaded file's own extension."""
    title = " ".join(_NOT_IN_NAMES.sub(" ", caption_for(info)).split())[:MAX_NAME_CHARACTERS].strip()
    return f"{title or info.id or 'video'}{suffix}"
