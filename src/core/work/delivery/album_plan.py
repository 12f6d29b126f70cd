"""How a video's parts are shared over albums: Telegram takes at most MAX_ALBUM_ITEMS to one."""

from __future__ import annotations

import itertools
import math

from ports.messenger import MAX_ALBUM_ITEMS


def albums_of(count: int) -> list[range]:
    """The parts' indexes album by album: as few albums as MAX_ALBUM_ITEMS allows, evenly filled
    (11 parts are 6 + 5, never 10 + a lone one)."""
    albums = math.ceil(count / MAX_ALBUM_ITEMS)
    bounds = [round(count * i / albums) for i in range(albums + 1)]
    return [range(start, end) for start, end in itertools.pairwise(bounds)]
