"""Inline result ids that say what the bot offered, to whom, for which link, and when.

A `chosen_inline_result` names a result id, a user and the query; the bot acts on it only when
the id is one it issued to that user for that link within the last OFFER_TTL_SECONDS. The record
travels in the id (`label:issued:tag`, signed with the install key), so it needs no table, holds
across restarts and across every process sharing the store's secret, and lapses by itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.trust.mac import TAG_CHARS, tag, tag_matches

OFFER_TTL_SECONDS = 30 * 60.0
"""Long enough for a user to pick from results left open for a while, short enough that an old
id is not a standing licence to queue downloads."""
CLOCK_SKEW_SECONDS = 60.0
"""Processes on several machines issue and check ids; their clocks may disagree this much."""
_LABEL = r"[a-z_]{1,24}"
_SHAPE = re.compile(rf"({_LABEL}):([0-9a-z]{{1,10}}):([A-Za-z0-9_-]{{{TAG_CHARS}}})")


@dataclass(frozen=True, slots=True)
class Offer:
    label: str
    """What the result was (the variant, cached or to be fetched); chosen by the caller."""
    user_id: int
    url: str


def offer_id(key: bytes, offer: Offer, now: float) -> str:
    if not re.fullmatch(_LABEL, offer.label):
        raise ValueError(f"not an offer label: {offer.label!r}")
    issued = _base36(int(max(now, 0.0)))
    return f"{offer.label}:{issued}:{tag(key, offer.label, issued, offer.user_id, offer.url)}"


def chosen_offer(key: bytes, result_id: str, user_id: int, url: str, now: float) -> Offer | None:
    """The offer `result_id` stands for, if the bot made it to `user_id` for `url` recently."""
    found = _SHAPE.fullmatch(result_id)
    if found is None:
        return None
    label, issued, given = found.groups()
    age = now - int(issued, 36)
    if not -CLOCK_SKEW_SECONDS <= age <= OFFER_TTL_SECONDS:
        return None
    if not tag_matches(key, given, label, issued, user_id, url):
        return None
    return Offer(label, user_id, url)


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while True:
        n, rest = divmod(n, 36)
        text = digits[rest] + text
        if n == 0:
            return text
