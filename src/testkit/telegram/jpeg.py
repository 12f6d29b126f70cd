"""What Telegram checks of a video's thumbnail: a JPEG, under 200 kB, at most 320 px a side.

The size comes from the JPEG's frame header (an SOFn marker), read from the first bytes of the
upload; a file that is not a JPEG, or whose header is not within those bytes, has no size.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_THUMBNAIL_BYTES = 200 * 1000
MAX_THUMBNAIL_SIDE = 320
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
"""Frame-header markers: SOF0-SOF15 but DHT (C4), JPG (C8) and DAC (CC)."""


@dataclass(frozen=True, slots=True)
class Thumbnail:
    sha256: str
    size: int
    width: int | None
    height: int | None

    @property
    def valid(self) -> bool:
        """What Telegram would show as the preview (it ignores any other thumbnail)."""
        return (
            self.width is not None
            and self.height is not None
            and 0 < max(self.width, self.height) <= MAX_THUMBNAIL_SIDE
            and self.size <= MAX_THUMBNAIL_BYTES
        )


def jpeg_size(head: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's first bytes; None when it is not a JPEG or they do not tell."""
    if not head.startswith(b"\xff\xd8"):
        return None
    at = 2
    while at + 4 <= len(head):
        if head[at] != 0xFF:
            return None
        marker = head[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        length = int.from_bytes(head[at + 2 : at + 4], "big")
        if marker in _SOF and at + 9 <= len(head):
            height = int.from_bytes(head[at + 5 : at + 7], "big")
            width = int.from_bytes(head[at + 7 : at + 9], "big")
            return width, height
        at += 2 + length
    return None
