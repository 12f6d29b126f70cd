"""The release watch: a release whose failures for an extractor the previous release ran pass the
threshold is rolled back (recorded, left, told, counted, its failed links' jobs requeued once);
the site's own verdicts, one link's retries, a success between, or no success before do not."""

from __future__ import annotations

import logging

import pytest
from returns.result import Failure, Success

from core.jobs.hooks import DeadJob
from core.jobs.outcome import JobFailure
from ports.jobs import NewJob
from ports.ytdlp_record import Rollback
from tests.support.clock import VirtualClock
from tests.unit.core.work.rollback.conftest import (
    BAD,
    GOOD,
    PACKAGED,
    ShelfUpdater,
    Watched,
    broken,
    entry,
    watched,
)

VERDICT = "ERROR: [generic] abc: This video is private and requires a password"


def link(n: int) -> str:
    return f"https://site.example/broken/{n}"


async def ran_on_good(w: Watched) -> None:
    """What the store knows of the previous release: it scraped with the generic extractor."""
    await w.store.record_success("generic", GOOD)


async def fail(w: Watched, *numbers: int, line: str | None = None) -> list[bool]:
    """Scrapes of these links failing on the version in use; whether each is worth a rerun."""
    failure = Failure(broken(line) if line else broken())
    return [await w.watch.judge(link(n), await w.watch.version(), failure) for n in numbers]


def rolled_back_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage().startswith("yt-dlp rolled back")]


async def test_three_links_in_a_row_roll_the_release_back(
    on_bad: Watched, clock: VirtualClock, caplog: pytest.LogCaptureFixture
) -> None:
    await ran_on_good(on_bad)

    assert await fail(on_bad, 1, 2, 3) == [False, False, True]  # the third runs again, on GOOD

    assert on_bad.updater.rolled_back == [(BAD, GOOD)]
    assert await on_bad.store.rollbacks() == [Rollback(BAD, "generic", GOOD, clock.now())]
    [line] = rolled_back_lines(caplog)
    assert line.levelno == logging.WARNING
    fields = (line.extractor, line.from_version, line.to_version)  # type: ignore[attr-defined]
    assert fields == ("generic", BAD, GOOD)
    assert on_bad.told.rollbacks == ["generic"]
    assert (on_bad.told.switched, on_bad.status.version) == (1, GOOD)


async def test_the_sites_verdicts_and_one_links_retries_are_not_a_broken_release(on_bad: Watched) -> None:
    await ran_on_good(on_bad)

    await fail(on_bad, 1, 1, 1, 2)  # one link's retries are one link
    await fail(on_bad, 3, 4, 5, line=VERDICT)

    assert on_bad.updater.current == BAD
    assert await on_bad.store.rollbacks() == []


async def test_a_success_between_ends_the_row(on_bad: Watched) -> None:
    await ran_on_good(on_bad)
    await fail(on_bad, 1, 2)

    await on_bad.watch.judge(link(9), BAD, Success([entry(link(9))]))
    await fail(on_bad, 3, 4)

    assert on_bad.updater.current == BAD


async def test_without_a_success_on_the_previous_release_nothing_says_it_did_better(on_bad: Watched) -> None:
    await on_bad.store.record_success("youtube", GOOD)  # another extractor's

    await fail(on_bad, 1, 2, 3, 4, 5)

    assert on_bad.updater.current == BAD
    assert await on_bad.store.rollbacks() == []


async def test_a_release_another_process_rolled_back_is_left_even_with_the_threshold_off(
    clock: VirtualClock, on_bad: Watched
) -> None:
    here = watched(on_bad.store, clock, ShelfUpdater(PACKAGED, BAD, current=BAD), threshold=0)
    await on_bad.store.add_rollback(Rollback(BAD, "generic", GOOD, clock.now()))

    assert await here.watch.follow() == [BAD]

    assert here.updater.rolled_back == [(BAD, PACKAGED)]  # its own previous version
    assert here.told.rollbacks == ["generic"]


async def test_a_process_on_a_rolled_back_release_leaves_it_at_its_first_failure(
    clock: VirtualClock, on_bad: Watched
) -> None:
    await on_bad.store.add_rollback(Rollback(BAD, "generic", GOOD, clock.now()))

    assert await fail(on_bad, 1) == [True]

    assert on_bad.updater.current == GOOD


async def test_the_failed_links_jobs_are_requeued_once_even_those_that_die_after(
    on_bad: Watched, clock: VirtualClock
) -> None:
    store, now = on_bad.store, clock.now()
    await ran_on_good(on_bad)
    for n in (1, 2):
        await store.enqueue(NewJob("download_video", {"url": link(n)}, 1), now)
    first = await store.claim("me", now, 30.0)
    assert first is not None
    await fail(on_bad, 1)
    await store.dead_letter(first.lease, "Unable to extract", now)
    still_running = await store.claim("me", now, 30.0)  # link 2's job, its failure not settled
    assert still_running is not None
    await fail(on_bad, 2, 3)

    [requeued] = [j for j in await store.list_jobs() if j.claimed_by is None]
    assert (requeued.payload["url"], requeued.attempts, on_bad.told.woken) == (link(1), 0, 1)

    failure = JobFailure("Unable to extract", permanent=True, code="unavailable")
    await store.dead_letter(still_running.lease, failure.reason, now)
    await on_bad.watch.on_dead(DeadJob(still_running, failure.reason, failure))

    assert sorted(str(j.payload["url"]) for j in await store.list_jobs()) == [link(1), link(2)]
    assert (await store.list_failed(), on_bad.told.woken) == ([], 2)


async def test_with_nothing_older_kept_the_operator_is_told_once(
    clock: VirtualClock, on_bad: Watched, caplog: pytest.LogCaptureFixture
) -> None:
    alone = watched(on_bad.store, clock, ShelfUpdater(BAD, current=BAD))
    await on_bad.store.add_rollback(Rollback(BAD, "generic", GOOD, clock.now()))

    await fail(alone, 1, 2)

    [stuck] = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert "cannot be rolled back" in stuck.getMessage()
    assert alone.told.rollbacks == []


async def test_a_run_under_which_the_version_changed_is_not_counted_and_runs_again(on_bad: Watched) -> None:
    await ran_on_good(on_bad)

    again = await on_bad.watch.judge(link(1), GOOD, Failure(broken()))  # started on GOOD, BAD in use

    assert again
    assert (await on_bad.store.tally("generic", GOOD)).failures == 0
    assert not await on_bad.watch.judge(link(1), GOOD, Success([entry(link(1))]))
