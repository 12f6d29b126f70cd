"""Where a sent file comes from: an upload (attach://), a local path (local mode) or a file_id.

A file_id names one kind of file (a video, an audio, a document): sending it as another kind is
refused with Telegram's own words. New bytes become the kind the method makes of them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from testkit.telegram.bodies import Upload
from testkit.telegram.call import Call
from testkit.telegram.errors import bad_request, wrong_file, wrong_file_type
from testkit.telegram.files import FileRecord, hash_file
from testkit.telegram.params import Params
from testkit.telegram.state import TelegramState


@dataclass(frozen=True, slots=True)
class Wanted:
    """What a method takes: files of kind `expects` by file_id, and new bytes as `kind_of(name)`."""

    expects: str
    kind_of: Callable[[str | None], str] = lambda _name: "video"
    what: str = "video"
    """How Telegram names the parameter when it is missing ("there is no video in the request")."""


VIDEO = Wanted("video")


async def resolve_file(
    state: TelegramState, call: Call, value: Any, params: Params, field_name: str, wanted: Wanted = VIDEO
) -> tuple[FileRecord, str]:
    """The file and its source: "upload", "path" or "file_id" (see VideoRecord.source)."""
    if not isinstance(value, str) or not value:
        raise bad_request(f"there is no {wanted.what} in the request")
    if value.startswith("attach://"):
        upload = call.uploads.get(value.removeprefix("attach://"))
        if upload is None:
            raise wrong_file()
        return _uploaded(state, call, upload, params, field_name, wanted), "upload"
    if state.local_mode and value.startswith(("file://", "/")):
        return await _from_path(state, call, value, params, field_name, wanted), "path"
    if value.lower().startswith(("http://", "https://")):
        raise bad_request("failed to get HTTP URL content")
    record = state.files.get(value)
    if record is None:
        raise wrong_file()
    if record.kind != wanted.expects:
        raise wrong_file_type(record.kind, wanted.expects)
    return record, "file_id"


def _uploaded(
    state: TelegramState, call: Call, upload: Upload, params: Params, field_name: str, wanted: Wanted
) -> FileRecord:
    if upload.size == 0:
        raise bad_request("file must be non-empty")
    call.files[field_name] = upload.sha256
    return _file_record(state, upload.sha256, upload.size, params, wanted, upload.filename)


async def _from_path(
    state: TelegramState, call: Call, value: str, params: Params, field_name: str, wanted: Wanted
) -> FileRecord:
    path = Path(unquote(urlsplit(value).path)) if value.startswith("file://") else Path(value)
    try:
        sha256, size = await asyncio.to_thread(hash_file, path)
    except OSError:
        raise bad_request("file not found") from None
    if size == 0:
        raise bad_request("file must be non-empty")
    if size > state.upload_limit:
        raise bad_request("file is too big")
    call.files[field_name] = sha256
    return _file_record(state, sha256, size, params, wanted, path.name)


def _file_record(
    state: TelegramState, sha256: str, size: int, params: Params, wanted: Wanted, file_name: str | None
) -> FileRecord:
    """Bytes seen before as this kind keep their first record; new ones take their metadata from the call."""
    kind = wanted.kind_of(file_name)
    known = state.files.known(sha256, kind)
    if known is not None:
        return known
    return state.files.add(
        sha256,
        size,
        duration=params.integer("duration") or 0,
        width=params.integer("width") or 0,
        height=params.integer("height") or 0,
        kind=kind,
        title=params.text("title") if kind == "audio" else None,
        performer=params.text("performer") if kind == "audio" else None,
        file_name=file_name if kind != "video" else None,
    )
