"""Durations as an operator types them (`--older-than 7d`) and reads them (`oldest queued 4m12s`)."""

from __future__ import annotations

import pytest

from entrypoints.durations import parse_duration, show_duration


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("7d", 604_800), ("12h", 43_200), ("30m", 1_800), ("90s", 90), ("2w", 1_209_600),
     ("1d12h", 129_600), ("1.5h", 5_400), (" 7D ", 604_800), ("0s", 0)],
)  # fmt: skip
def test_durations_parse(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "7", "7x", "d", "7d ago", "-7d", "1d-2h", "7 d"])
def test_what_is_not_a_duration_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="is not a duration like 7d, 12h, 30m or 1d12h"):
        parse_duration(text)


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0, "0s"), (0.9, "0s"), (59, "59s"), (252, "4m12s"), (3600, "1h"), (3661, "1h1m"),
     (273_600, "3d4h"), (86_399, "23h59m"), (86_459, "1d"), (-5, "0s")],
)  # fmt: skip
def test_durations_show_their_two_largest_units(seconds: float, shown: str) -> None:
    assert show_duration(seconds) == shown
