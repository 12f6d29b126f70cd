"""The thumbnail a sendVideo or sendAudio call carries, measured as Telegram would."""

from __future__ import annotations

from testkit.telegram.call import Call
from testkit.telegram.jpeg import Thumbnail, jpeg_size


def thumbnail_of(call: Call) -> Thumbnail | None:
    """A thumbnail is only ever a new upload: `attach://<name>`, or a file part named thumbnail."""
    value = call.params.raw.get("thumbnail")
    name = value.removeprefix("attach://") if isinstance(value, str) else "thumbnail"
    upload = call.uploads.get(name)
    if upload is None:
        return None
    call.files["thumbnail"] = upload.sha256
    size = jpeg_size(upload.head)
    return Thumbnail(upload.sha256, upload.size, *(size if size is not None else (None, None)))
