"""Past the upload limit, in parts: how many playable pieces a video that no watchable bitrate
brings under the limit is cut into, and how long each runs.

The cut is a stream copy at keyframes (no re-encoding): a cut asked for at t lands on the first
keyframe at or after t, so a part may run up to one keyframe interval longer than asked, and each
part's MP4 has its own index. PART_MARGIN leaves room for both; a cut that still leaves a part
over the limit is made again with one part more, up to the operator's cap (VIDRELAY_MAX_PARTS).
"""

from __future__ import annotations

import math

PART_MARGIN = 0.9
NEVER_SPLIT = 1
"""A cap of one part: a video that does not fit is refused, as before parts existed."""


def parts_needed(size: int, limit_bytes: int) -> int:
    """How many parts of at most the limit (less the margin) `size` bytes make; 1 when they fit."""
    if size <= limit_bytes:
        return 1
    return max(2, math.ceil(size / (limit_bytes * PART_MARGIN)))


def may_split(size: int, limit_bytes: int, max_parts: int) -> bool:
    """Over the limit, and few enough parts to send."""
    return 1 < parts_needed(size, limit_bytes) <= max_parts


def part_seconds(duration: float, count: int) -> float:
    """How long each of `count` parts runs, so that the cuts split the video evenly; the last cut
    lands a little past the end, so that no sliver of a part is left over."""
    return duration / count + min(duration / count * 0.01, 1.0)


def cuts_to_try(size: int, limit_bytes: int, max_parts: int) -> range:
    """The numbers of parts to cut into, fewest first, until every part fits or the cap is hit."""
    return range(parts_needed(size, limit_bytes), max_parts + 1)
