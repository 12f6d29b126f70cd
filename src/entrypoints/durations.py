"""Spans of time as an operator types and reads them: `7d`, `12h`, `1d12h`, `90s`."""

from __future__ import annotations

import argparse
import re

UNIT_SECONDS = {"w": 604_800, "d": 86_400, "h": 3_600, "m": 60, "s": 1}
_PART = re.compile(r"(\d+(?:\.\d+)?)([wdhms])")
_SHOWN = ("d", "h", "m", "s")


def parse_duration(text: str) -> float:
    """Seconds in `text`, one or more number+unit parts (w d h m s), largest first or not.

    ValueError for anything else: a bare number is refused, as its unit would be a guess."""
    compact = text.strip().lower()
    parts = _PART.findall(compact)
    if not compact or "".join(number + unit for number, unit in parts) != compact:
        raise ValueError(f"{text!r} is not a duration like 7d, 12h, 30m or 1d12h")
    return sum(float(number) * UNIT_SECONDS[unit] for number, unit in parts)


def duration_argument(text: str) -> float:
    """`parse_duration` as an argparse type: a bad value is a usage error naming the option."""
    try:
        return parse_duration(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def show_duration(seconds: float) -> str:
    """The two largest units, rounded down: `3d4h`, `4m12s`, `2h`, `0s`."""
    left, counts = max(0, int(seconds)), []
    for unit in _SHOWN:
        count, left = divmod(left, UNIT_SECONDS[unit])
        counts.append((count, unit))
    first = next((i for i, (count, _) in enumerate(counts) if count), None)
    if first is None:
        return "0s"
    return "".join(f"{count}{unit}" for count, unit in counts[first : first + 2] if count)
