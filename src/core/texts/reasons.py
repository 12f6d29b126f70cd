"""The phrases said after the fact: why a job failed, how long something took (see phrase.py)."""

from __future__ import annotations

import math
import re
import string
import time

from core import texts
from core.texts.phrase import Phrase

MB = 1_000_000


def whole_megabytes(size: float) -> Phrase:
    return Phrase(texts.MEGABYTES, number=round(size / MB))


def short_duration(seconds: float) -> Phrase:
    """ "25m", "1h 5m": a duration in a sentence."""
    total = max(int(seconds), 0)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        if minutes:
            return Phrase(texts.DURATION_HOURS_MINUTES, hours=hours, minutes=minutes)
        return Phrase(texts.DURATION_HOURS, hours=hours)
    if minutes:
        return Phrase(texts.DURATION_MINUTES, minutes=minutes)
    return Phrase(texts.DURATION_SECONDS, seconds=secs)


def too_large(size: int) -> Phrase:
    return Phrase(texts.TOO_LARGE, size=whole_megabytes(size))


def too_many_parts(size: int, max_parts: int) -> Phrase:
    """Refused because it would take more parts than the operator allows."""
    return Phrase(texts.TOO_MANY_PARTS, size=whole_megabytes(size), max_parts=max_parts)


def timed_out(seconds: float) -> Phrase:
    return Phrase(texts.TIMED_OUT, seconds=float(seconds))


def unreachable_for(seconds: float, description: str) -> Phrase:
    return Phrase(texts.TELEGRAM_UNREACHABLE_FOR, duration=short_duration(seconds), description=description)


def refused(why: str) -> Phrase:
    return Phrase(texts.REFUSED, why=why)


def site_verdict(verdict: str) -> Phrase:
    """Why a site would not give the bot a video, for the user (the 💥 line's reason)."""
    return Phrase(texts.SITE_VERDICTS.get(verdict, texts.SITE_VERDICT_OTHER))


GUARD_REFUSALS = (
    texts.URL_UNPRINTABLE,
    texts.URL_MALFORMED,
    texts.URL_SCHEME,
    texts.URL_NO_HOST,
    texts.URL_UNRESOLVED,
    texts.URL_PRIVATE,
)
"""The egress guard's words (core.url_policy), which reach a job as text in yt-dlp's stderr."""


def guard_refusal(why: str) -> Phrase:
    """The guard's refusal as yt-dlp relayed it: read back into the phrase it was (so the user
    reads it in their language), else kept as it came."""
    for entry in GUARD_REFUSALS:
        if (match := _template(entry).fullmatch(why)) is not None:
            return refused(Phrase(entry, **match.groupdict()))
    return refused(why)


def _template(entry: str) -> re.Pattern[str]:
    parts = string.Formatter().parse(entry)
    return re.compile(
        "".join(re.escape(text) + (f"(?P<{name}>.+)" if name else "") for text, name, _, _ in parts)
    )


def gave_up(attempts: int) -> Phrase:
    return Phrase(texts.GAVE_UP, attempts=attempts)


def last_update_check(checked_at: float | None, error: str | None) -> Phrase:
    if checked_at is None:
        return Phrase(texts.UPDATE_NEVER)
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(checked_at))
    if error:
        return Phrase(texts.UPDATE_CHECK_FAILED, when=when, error=error)
    return Phrase(texts.UPDATE_CHECKED, when=when)


def minute_after(moment: float) -> str:
    """ "14:05": the minute a wait ends, rounded up (never a moment that is still too early)."""
    return time.strftime("%H:%M", time.gmtime(math.ceil(moment / 60) * 60))
