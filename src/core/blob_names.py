"""How a video is named: its blob key (what was sent, per site and format) and its file on disk.

Two sites' videos never share a key, and the file name is a hash of the key, so any key — odd
Unicode included — names a safe file.
"""

from __future__ import annotations

import hashlib
import re

from ports.media import VideoInfo

_EXT = re.compile(r"[^a-z0-9]")


PAGE_SCOPED_EXTRACTORS = frozenset({"generic", "html5"})
"""Extractors whose ids are only named after the page's file ("index-1" for any site's index
page): their key names the page itself, or two sites' videos would share one blob."""


def blob_key(info: VideoInfo) -> str:
    """`extractor:id:format_id` (`generic:<webpage_url>:<format_id>` for a page-scoped one), and
    for one entry of a multi-video post `#entry=<n>` after it: the entries of a page with several
    <video> tags share the page's URL and the format id, and one key would make them one video
    (one download shared, the first clip sent for each, one file released under the others)."""
    extractor = info.extractor.strip().lower()
    if not extractor or extractor in PAGE_SCOPED_EXTRACTORS or not info.id:
        key = f"generic:{info.webpage_url}:{info.format_id}"
    else:
        key = f"{extractor}:{info.id}:{info.format_id}"
    return key if info.entry is None else f"{key}#entry={info.entry}"


def file_key(key: str) -> str:
    """The video `key` sent as a file ("send as file": its bytes as downloaded, as a document): a
    blob of its own, so a video's file_id is never sent as a document, nor a document's as a video."""
    return f"{key}#file"


def part_key(key: str, index: int, count: int) -> str:
    """Part `index` of `count` of the video `key` (cut to fit the upload limit): a blob of its own,
    with its own file_id. The count is in the key, so that parts of another cut never mix."""
    return f"{key}#part={index}/{count}"


def blob_file_name(key: str, ext: str) -> str:
    clean = _EXT.sub("", ext.lower())[:8] or "mp4"
    return f"{hashlib.sha256(key.encode('utf-8', 'surrogatepass')).hexdigest()}.{clean}"
