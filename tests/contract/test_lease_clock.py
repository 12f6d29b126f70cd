"""JobQueue contract, clocks: a lease is the store's, computed and judged by the store's clock, so a
worker whose clock runs 60 s ahead (its Clock port offset, as a skewed machine's would be) neither
takes live leases nor keeps expired ones; when a row is due stays on the callers' clock.

The memory store lives inside one process and has no clock but its callers': skew is not its
concern, and these tests skip it."""

from __future__ import annotations

import pytest

from ports.store import Store
from tests.contract.conftest import NOW, StoreKit
from tests.contract.support import DEAD, LEASE, ME, OTHER, claimed, enqueued, new_job, stored
from tests.support.store_clock import PostgresClock, SqliteClock

AHEAD = 60.0
"""How far the skewed worker's clock runs ahead of the store's."""


@pytest.fixture
def kit_with_clock(kit: StoreKit) -> tuple[Store, SqliteClock | PostgresClock]:
    if kit.clock is None:
        pytest.skip("the memory store serves one process: it has no clock but its callers'")
    return kit.store, kit.clock


async def test_a_worker_whose_clock_runs_ahead_takes_no_live_lease(
    kit_with_clock: tuple[Store, SqliteClock | PostgresClock],
) -> None:
    store, clock = kit_with_clock
    await clock.set(NOW)
    job_id = await enqueued(store)
    live = await claimed(store, NOW, worker=OTHER)  # held until NOW + 30 by the store's clock

    assert await store.claim(ME, NOW + AHEAD, LEASE) is None  # its clock says that lease ended
    assert await store.claim_exhausted(ME, NOW + AHEAD, LEASE) == []
    assert await store.next_wakeup(ME, NOW + AHEAD) == NOW + AHEAD + LEASE  # 30 s away, on its clock

    assert (await stored(store, job_id)).claimed_by == OTHER
    assert await store.renew(OTHER, [live.lease], NOW, LEASE) == []  # still the live worker's
    assert await store.complete(live.lease)


async def test_a_worker_whose_clock_runs_ahead_keeps_no_expired_lease(
    kit_with_clock: tuple[Store, SqliteClock | PostgresClock],
) -> None:
    store, clock = kit_with_clock
    await clock.set(NOW)
    await enqueued(store)
    ahead = await claimed(store, NOW + AHEAD, worker=ME)
    assert ahead.lease_until == NOW + LEASE  # the store's now + 30, not the worker's
    assert await store.renew(ME, [ahead.lease], NOW + AHEAD + 20, LEASE) == []
    assert (await stored(store, ahead.id)).lease_until == NOW + LEASE  # renewed by the store's clock

    await clock.set(NOW + LEASE)  # the lease ended, whatever the worker's clock says
    taken = await claimed(store, NOW + LEASE, worker=OTHER)

    assert (taken.id, taken.suspect) == (ahead.id, True)
    assert await store.renew(ME, [ahead.lease], NOW + AHEAD + LEASE, LEASE) == [ahead.lease]
    assert not await store.complete(ahead.lease)


async def test_a_lease_the_store_judges_ended_is_taken_by_a_worker_whose_clock_runs_behind(
    kit_with_clock: tuple[Store, SqliteClock | PostgresClock],
) -> None:
    store, clock = kit_with_clock
    await clock.set(NOW)
    job_id = await enqueued(store, now=NOW - AHEAD)  # due by the late clock too
    await claimed(store, NOW, worker=DEAD)
    await clock.set(NOW + LEASE)

    behind = await claimed(store, NOW + LEASE - AHEAD, worker=OTHER)  # its clock: 30 s before the end

    assert (behind.id, behind.claimed_by) == (job_id, OTHER)


async def test_when_a_row_is_due_is_the_callers_clock(
    kit_with_clock: tuple[Store, SqliteClock | PostgresClock],
) -> None:
    store, clock = kit_with_clock
    await clock.set(NOW + 3600)  # the store's clock says nothing about due rows
    job_id = await enqueued(store, new_job(available_at=NOW + 100))

    assert await store.claim(ME, NOW + 99, LEASE) is None
    assert await store.next_wakeup(ME, NOW) == NOW + 100
    assert (await claimed(store, NOW + 100)).id == job_id
