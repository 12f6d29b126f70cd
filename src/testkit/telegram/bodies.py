"""Reading a request's parameters and uploads: query string, then a JSON, form or multipart body."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from aiohttp import BodyPartReader, web

from testkit.telegram.errors import bad_request, too_large

_CHUNK_BYTES = 256 * 1024


@dataclass(slots=True)
class Upload:
    """A multipart file part: only its digest is kept, so big uploads cost no memory."""

    sha256: str
    size: int
    filename: str | None


async def read_params(request: web.Request, upload_limit: int) -> tuple[dict[str, Any], dict[str, Upload]]:
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
        if await _read_multipart(request, upload_limit, raw, uploads):
            raise too_large()
    elif content_type == "application/x-www-form-urlencoded":
        form = await request.post()
        raw.update({k: v for k, v in form.items() if isinstance(v, str)})
    return raw, uploads


async def _read_multipart(
    request: web.Request, upload_limit: int, raw: dict[str, Any], uploads: dict[str, Upload]
) -> bool:
    """Fills `raw` and `uploads`; True when the files together went over `upload_limit`."""
    reader = await request.multipart()
    total = 0
    while (part := await reader.next()) is not None:
        if not isinstance(part, BodyPartReader) or part.name is None:
            continue
        if part.filename is None:
            raw[part.name] = (await part.read(decode=True)).decode("utf-8", errors="replace")
            continue
        digest, size = hashlib.sha256(), 0
        while chunk := await part.read_chunk(_CHUNK_BYTES):
            size += len(chunk)
            total += len(chunk)
            if total <= upload_limit:
                digest.update(chunk)
        uploads[part.name] = Upload(digest.hexdigest(), size, part.filename)
    return total > upload_limit
