"""YtDlpRecord contract: each release's outcomes by extractor, the links that failed in a row, the
releases rolled back, and the jobs of those links requeued once."""

from __future__ import annotations

from ports.store import Store
from ports.ytdlp_record import Rollback, Tally
from tests.contract.conftest import NOW
from tests.contract.support import claimed, enqueued, new_job, stored

GOOD, BAD = "2099.1.1", "2099.2.1"
LINK = "https://example.com/v"


def job_of(url: str, max_attempts: int = 3) -> dict[str, object]:
    return {"payload": {"chat_id": 7, "url": url}, "max_attempts": max_attempts}


async def dead(store: Store, url: str, at: float = NOW) -> int:
    """A job of `url` that failed for good at `at`; its id."""
    job_id = await enqueued(store, new_job(**job_of(url, max_attempts=1)), at)
    assert await store.dead_letter((await claimed(store, at)).lease, "Unable to extract", at) is not None
    return job_id


async def test_outcomes_are_counted_by_extractor_and_version(store: Store) -> None:
    await store.record_success("generic", GOOD)
    await store.record_success("generic", GOOD)
    await store.record_failure("generic", GOOD, LINK, NOW)
    await store.record_failure("youtube", GOOD, LINK, NOW)

    assert await store.tally("generic", GOOD) == Tally(successes=2, failures=1)
    assert await store.tally("youtube", GOOD) == Tally(failures=1)
    assert await store.tally("generic", BAD) == Tally()


async def test_links_in_a_row_count_each_link_once_and_a_success_ends_the_row(store: Store) -> None:
    assert await store.record_failure("generic", BAD, "https://a.example/1", NOW) == 1
    assert await store.record_failure("generic", BAD, "https://a.example/1", NOW + 1) == 1  # its retry
    assert await store.record_failure("youtube", BAD, "https://a.example/2", NOW) == 1  # another extractor
    assert await store.record_failure("generic", GOOD, "https://a.example/2", NOW) == 1  # another version
    assert await store.record_failure("generic", BAD, "https://a.example/2", NOW + 2) == 2

    await store.record_success("generic", BAD)

    assert await store.record_failure("generic", BAD, "https://a.example/3", NOW + 3) == 1
    assert await store.tally("generic", BAD) == Tally(successes=1, failures=4)


async def test_a_rollback_is_recorded_once_and_the_first_word_stands(store: Store) -> None:
    first = Rollback(BAD, "generic", GOOD, NOW)
    assert await store.add_rollback(first)
    assert not await store.add_rollback(Rollback(BAD, "youtube", "2098.1.1", NOW + 5))
    older = Rollback("2098.1.1", "vimeo", "2097.1.1", NOW - 100)
    assert await store.add_rollback(older)

    assert await store.rollbacks() == [older, first]


async def test_the_dead_letters_of_a_rolled_back_versions_failed_links_are_requeued_once(
    store: Store,
) -> None:
    older = await dead(store, "https://a.example/1", NOW - 10)  # failed before, on another version
    await store.record_failure("generic", BAD, "https://a.example/1", NOW)
    first = await dead(store, "https://a.example/1", NOW)
    await store.record_failure("generic", BAD, "https://a.example/2", NOW)
    second = await dead(store, "https://a.example/2", NOW + 1)
    other = await dead(store, "https://a.example/3", NOW + 1)  # not a failed link
    assert await store.requeue_failed_links(NOW - 60, NOW + 2) == []  # nothing rolled back yet
    await store.add_rollback(Rollback(BAD, "generic", GOOD, NOW + 2))

    requeued = await store.requeue_failed_links(NOW - 60, NOW + 3)

    assert len(requeued) == 2
    jobs = {j.id: j for j in await store.list_jobs()}
    assert sorted(str(jobs[i].payload["url"]) for i in requeued) == [
        "https://a.example/1",
        "https://a.example/2",
    ]
    assert all((jobs[i].attempts, jobs[i].available_at) == (0, NOW + 3) for i in requeued)
    assert sorted(f.job_id for f in await store.list_failed()) == [older, other]
    assert {first, second}.isdisjoint(jobs)
    # Once: the requeued jobs failing again stay dead letters.
    for _ in requeued:
        await store.dead_letter((await claimed(store, NOW + 3)).lease, "again", NOW + 4)
    assert await store.requeue_failed_links(NOW - 60, NOW + 5) == []


async def test_a_failed_links_job_waiting_for_a_retry_becomes_due_now(store: Store) -> None:
    waiting = await enqueued(store, new_job(**job_of(LINK)))
    await store.retry_later((await claimed(store)).lease, NOW + 300, "Unable to extract")
    await store.record_failure("generic", BAD, LINK, NOW)
    await store.add_rollback(Rollback(BAD, "generic", GOOD, NOW + 1))

    assert await store.requeue_failed_links(NOW - 60, NOW + 2) == [waiting]

    assert (await stored(store, waiting)).available_at == NOW + 2
    assert (await claimed(store, NOW + 2)).id == waiting


async def test_a_link_whose_job_still_runs_stays_open_until_its_job_is_found(store: Store) -> None:
    running = await enqueued(store, new_job(**job_of(LINK, max_attempts=1)))
    job = await claimed(store)
    await store.record_failure("generic", BAD, LINK, NOW)
    await store.add_rollback(Rollback(BAD, "generic", GOOD, NOW + 1))
    assert await store.requeue_failed_links(NOW - 60, NOW + 1) == []  # held: nothing to requeue

    await store.dead_letter(job.lease, "Unable to extract", NOW + 2)
    [requeued] = await store.requeue_failed_links(NOW - 60, NOW + 3)

    assert requeued != running
    assert (await stored(store, requeued)).payload["url"] == LINK


async def test_a_success_on_a_rolled_back_version_keeps_its_failed_links(store: Store) -> None:
    await store.record_failure("generic", BAD, LINK, NOW)
    await store.add_rollback(Rollback(BAD, "generic", GOOD, NOW + 1))
    await store.record_success("generic", BAD)  # a run that started before the switch
    failed = await dead(store, LINK, NOW + 2)

    [requeued] = await store.requeue_failed_links(NOW - 60, NOW + 3)

    assert requeued != failed


async def test_only_the_links_of_recent_rollbacks_are_requeued(store: Store) -> None:
    await store.record_failure("generic", BAD, LINK, NOW)
    await store.add_rollback(Rollback(BAD, "generic", GOOD, NOW))
    await dead(store, LINK, NOW + 1)

    assert await store.requeue_failed_links(NOW + 10, NOW + 20) == []
    assert len(await store.list_failed()) == 1
