"""The per-user link limits' rule: which limit refuses, and when the user may send again."""

from __future__ import annotations

from core.incoming.intake.windows import DAY, HOUR, LimitReached, limit_reached
from tests.support.languages import words

T = 1_700_000_000.0
HOURLY_3 = ((3, HOUR),)


def test_under_the_limit_nothing_is_refused() -> None:
    assert limit_reached([T, T + 1], T + 2, HOURLY_3) is None
    assert limit_reached([], T, HOURLY_3) is None


def test_at_the_limit_the_wait_ends_when_the_oldest_counted_link_leaves_the_window() -> None:
    hit = limit_reached([T, T + 600, T + 1200], T + 1800, HOURLY_3)

    assert hit == LimitReached(3, HOUR, wait_seconds=HOUR - 1800, until=T + HOUR)


def test_links_older_than_the_window_do_not_count() -> None:
    assert limit_reached([T - HOUR - 1, T, T + 1], T + 2, HOURLY_3) is None


def test_of_two_limits_reached_the_one_that_frees_last_is_told() -> None:
    times = [T + n * 60 for n in range(5)]

    hit = limit_reached(times, T + 300, ((5, HOUR), (5, DAY)))

    assert hit is not None
    assert (hit.limit, hit.window_seconds, hit.until) == (5, DAY, T + DAY)


def test_the_reply_names_the_wait_and_the_moment_rounded_up_to_the_minute() -> None:
    until = 1_700_003_630.0  # 23:13:50 UTC

    assert words("en").link_limit(3, HOUR, 2530.0, until) == (
        "✋ You can send 3 links an hour. You can send more in 43m (at 23:14 UTC)."
    )
    assert words("en").link_limit(20, DAY, 7200.0, until).startswith("✋ You can send 20 links a day.")
    assert words("ru").link_limit(3, HOUR, 2530.0, until) == (
        "✋ Лимит ссылок в час: 3. Снова можно будет отправлять через 43 мин (в 23:14 UTC)."
    )
