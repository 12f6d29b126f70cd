"""A cookies.txt for yt-dlp, without letting yt-dlp change it or its values travel further.

yt-dlp writes its whole cookie jar back into the file given to `--cookies` when it exits, so
every run gets a private copy (mode 0600, in a folder of its own, removed after the run): the
operator's file stays as it was, and concurrent runs never write over each other. yt-dlp also
writes the cookies that apply to a format into its entry JSON ("cookies"); those are stripped
before the entry is stored, so a login never lands in the database.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

_COOKIE_NAME = "cookies.txt"


class CookieJarCopies:
    """`async with jar as args:` gives the `--cookies <copy>` arguments for one run."""

    def __init__(self, source: Path) -> None:
        self._source = source
        self._folders: list[Path] = []

    async def __aenter__(self) -> tuple[str, ...]:
        folder = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="vidrelay-cookies-"))
        self._folders.append(folder)
        copy = folder / _COOKIE_NAME
        await asyncio.to_thread(_private_copy, self._source, copy)
        return ("--cookies", str(copy))

    async def __aexit__(self, *_: object) -> None:
        folder = self._folders.pop()
        await asyncio.to_thread(shutil.rmtree, folder, True)


def _private_copy(source: Path, target: Path) -> None:
    target.touch(mode=0o600)
    with source.open("rb") as src, target.open("wb") as dst:
        shutil.copyfileobj(src, dst)


def without_cookies(line: str) -> str:
    """The entry line with yt-dlp's per-format "cookies" and any Cookie header removed."""
    if '"cookies"' not in line and '"Cookie"' not in line:
        return line
    try:
        entry = json.loads(line)
    except ValueError:
        return line
    if not isinstance(entry, dict):
        return line
    _strip(entry)
    for key in ("formats", "requested_formats", "requested_downloads"):
        for item in entry.get(key) or []:
            if isinstance(item, dict):
                _strip(item)
    return json.dumps(entry, ensure_ascii=False)


def _strip(item: dict[str, Any]) -> None:
    item.pop("cookies", None)
    headers = item.get("http_headers")
    if isinstance(headers, dict):
        for name in [k for k in headers if k.lower() == "cookie"]:
            del headers[name]


class NoCookies:
    """No cookies configured: a run gets no `--cookies` option."""

    async def __aenter__(self) -> tuple[str, ...]:
        return ()

    async def __aexit__(self, *_: object) -> None:
        return None
