"""Reading a request's parameters and uploads: query string, then a JSON, form or multipart body."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import BodyPartReader, web

from testkit.telegram.errors import bad_request, too_large

_CHUNK_BYTES = 256 * 1024
HEAD_BYTES = 64 * 1024
_partials = itertools.count()


@dataclass(slots=True)
class Upload:
    """A multipart file part: its digest and first bytes are kept, so big uploads cost no memory
    (and, when the fake keeps uploads, its bytes in that folder under the digest)."""

    sha256: str
    size: int
    filename: str | None
    head: bytes = b""


async def read_params(
    request: web.Request, upload_limit: int, keep: Path | None = None
) -> tuple[dict[str, Any], dict[str, Upload]]:
    raw: dict[str, Any] = dict(request.query)
    uploads: dict[str, Upload] = {}
    if request.method not in {"POST", "PUT"} or not request.can_read_body:
        return raw, uploads
    content_type = request.content_type
    if content_type == "application/json":
        try:
            body = await request.json()
        except ValueError:
            raise bad_request("can't parse JSON object") from None
        if isinstance(body, dict):
            raw.update(body)
    elif content_type == "multipart/form-data":
        if await _read_multipart(request, upload_limit, raw, uploads, keep):
            raise too_large()
    elif content_type == "application/x-www-form-urlencoded":
        form = await request.post()
        raw.update({k: v for k, v in form.items() if isinstance(v, str)})
    return raw, uploads


async def _read_multipart(
    request: web.Request,
    upload_limit: int,
    raw: dict[str, Any],
    uploads: dict[str, Upload],
    keep: Path | None,
) -> bool:
    """Fills `raw` and `uploads`; True when a file went over `upload_limit`.

    The limit is per file, as Telegram states it ("50 MB for other files"): an album of several
    parts, each under it, is one request well over it.
    """
    reader = await request.multipart()
    over = False
    while (part := await reader.next()) is not None:
        if not isinstance(part, BodyPartReader) or part.name is None:
            continue
        if part.filename is None:
            raw[part.name] = (await part.read(decode=True)).decode("utf-8", errors="replace")
            continue
        digest, size, head = hashlib.sha256(), 0, bytearray()
        partial = keep / f".upload-{os.getpid()}-{next(_partials)}" if keep is not None else None
        while chunk := await part.read_chunk(_CHUNK_BYTES):
            size += len(chunk)
            if size <= upload_limit:
                digest.update(chunk)
                if partial is not None:
                    await asyncio.to_thread(_append, partial, chunk)
            if len(head) < HEAD_BYTES:
                head += chunk[: HEAD_BYTES - len(head)]
        upload = Upload(digest.hexdigest(), size, part.filename, bytes(head))
        if partial is not None and keep is not None and size:
            await asyncio.to_thread(partial.replace, keep / upload.sha256)
        uploads[part.name] = upload
        over = over or size > upload_limit
    return over


def _append(path: Path, chunk: bytes) -> None:
    with path.open("ab") as file:
        file.write(chunk)
