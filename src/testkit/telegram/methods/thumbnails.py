"""The thumbnail a sendVideo, sendAudio or sendDocument call (or an album's item) carries, measured
as Telegram would."""

from __future__ import annotations

from typing import Any

from testkit.telegram.call import Call
from testkit.telegram.jpeg import Thumbnail, jpeg_size


def thumbnail_of(call: Call) -> Thumbnail | None:
    """A thumbnail is only ever a new upload: `attach://<name>`, or a file part named thumbnail."""
    value = call.params.raw.get("thumbnail")
    return attached_thumbnail(call, value if isinstance(value, str) else "thumbnail", "thumbnail")


def attached_thumbnail(call: Call, value: Any, field_name: str) -> Thumbnail | None:
    """The upload `value` names (`attach://<name>`), if the call carried it."""
    if not isinstance(value, str):
        return None
    upload = call.uploads.get(value.removeprefix("attach://"))
    if upload is None:
        return None
    call.files[field_name] = upload.sha256
    size = jpeg_size(upload.head)
    return Thumbnail(upload.sha256, upload.size, *(size if size is not None else (None, None)))
