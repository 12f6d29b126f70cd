"""How many parts a video past the limit is cut into, and how long each runs."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from core.media.parts import PART_MARGIN, cuts_to_try, may_split, part_seconds, parts_needed

MB = 1024 * 1024
LIMIT = 50 * MB


def test_a_file_that_fits_is_one_part_and_never_split() -> None:
    assert parts_needed(LIMIT, LIMIT) == 1
    assert not may_split(LIMIT, LIMIT, 8)


def test_each_part_keeps_a_margin_under_the_limit() -> None:
    assert parts_needed(LIMIT + 1, LIMIT) == 2
    assert parts_needed(90 * MB, LIMIT) == 2  # 45 MB each: at the margin
    assert parts_needed(91 * MB, LIMIT) == 3


def test_the_cap_on_parts_refuses_what_would_need_more() -> None:
    assert may_split(360 * MB, LIMIT, 8)
    assert not may_split(361 * MB, LIMIT, 8)
    assert not may_split(LIMIT + 1, LIMIT, 1)


def test_a_cut_that_leaves_a_part_too_large_is_tried_again_with_one_part_more_up_to_the_cap() -> None:
    assert list(cuts_to_try(100 * MB, LIMIT, 4)) == [3, 4]
    assert list(cuts_to_try(100 * MB, LIMIT, 2)) == []


@given(duration=st.floats(min_value=1.0, max_value=20_000.0), count=st.integers(min_value=2, max_value=50))
def test_the_cuts_cover_the_video_in_count_parts_and_no_more(duration: float, count: int) -> None:
    seconds = part_seconds(duration, count)
    assert seconds * (count - 1) < duration <= seconds * count


@given(size=st.integers(min_value=LIMIT + 1, max_value=100 * LIMIT))
def test_parts_of_the_needed_count_average_under_the_limit_with_the_margin(size: int) -> None:
    count = parts_needed(size, LIMIT)
    assert size / count <= LIMIT * PART_MARGIN
    assert size / (count - 1) > LIMIT * PART_MARGIN or count == 2
