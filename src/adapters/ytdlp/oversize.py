"""The download cap as yt-dlp's run reveals it: its own --max-filesize refusal (from the announced
Content-Length, before any byte of the body) or bytes counted while it runs."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from pathlib import Path

_REFUSED = re.compile(r"File is larger than max-filesize \((\d+) bytes > (\d+) bytes\)")


class Oversize:
    """Whether a capped run passed its cap, and by how much at least."""

    def __init__(self, cap: int | None) -> None:
        self._cap = cap
        self._seen = 0
        self._announced = False
        self._exceeded = asyncio.Event()

    @property
    def exceeded(self) -> bool:
        return self._exceeded.is_set()

    @property
    def bytes_seen(self) -> int:
        return self._seen

    async def wait(self) -> None:
        await self._exceeded.wait()

    def saw_bytes(self, count: int | None) -> bool:
        """Record a byte count (a progress line, the staging folder); True when it is over the cap."""
        if self._cap is None or count is None:
            return False
        self._seen = max(self._seen, count)
        if count > self._cap:
            self._exceeded.set()
        return self.exceeded

    def saw_line(self, line: str) -> None:
        match = _REFUSED.search(line)
        if match is not None:
            self._announced = True
            self._seen = max(self._seen, int(match.group(1)))
            self._exceeded.set()

    def reason(self) -> str:
        if self._announced:
            return f"the video is larger than the download cap ({self._seen} bytes announced)"
        return f"the download passed the download cap ({self._cap} bytes) and was stopped"


def folder_bytes(folder: Path) -> int:
    """Every byte under `folder` (yt-dlp's .part files and fragments included); 0 once it is gone."""
    total = 0
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return 0
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                total += folder_bytes(Path(entry.path))
            elif entry.is_file(follow_symlinks=False):
                total += entry.stat(follow_symlinks=False).st_size
        except FileNotFoundError:
            continue  # a fragment merged and deleted while we looked
    return total


STAGING_POLL_SECONDS = 0.2
"""How often the staging folder is measured while a capped download runs (progress lines from
yt-dlp check the cap in between)."""


async def watch_folder(staging: Path, oversize: Oversize) -> None:
    """Returns once the cap is passed: by the folder's bytes, or by a progress line meanwhile."""
    while not oversize.saw_bytes(await asyncio.to_thread(folder_bytes, staging)):
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(oversize.wait(), STAGING_POLL_SECONDS)
