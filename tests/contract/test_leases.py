"""JobQueue contract, leases: fencing tokens, renewal, expiry, dead holders, suspects running alone."""

from __future__ import annotations

from ports.store import Store
from tests.contract.conftest import NOW
from tests.contract.support import DEAD, LEASE, ME, OTHER, claimed, enqueued, new_job, stored

AFTER_LEASE = NOW + LEASE


async def dies_holding(store: Store, count: int, worker: str = DEAD) -> list[int]:
    """`worker` claims `count` rows and is never heard of again."""
    ids = [await enqueued(store, new_job(payload={"n": n})) for n in range(count)]
    for _ in ids:
        await claimed(store, worker=worker)
    return ids


# Fencing tokens ---------------------------------------------------------------------------------------


async def test_every_claim_of_a_row_carries_a_token_it_never_had_before(store: Store) -> None:
    await enqueued(store)
    tokens = []
    for _ in range(3):
        job = await claimed(store)
        tokens.append(job.token)
        await store.release(job.lease, NOW)

    assert len(set(tokens)) == 3


async def test_a_stale_claims_finishing_writes_change_nothing(store: Store) -> None:
    job_id = await enqueued(store)
    stale = (await claimed(store)).lease
    await store.release(stale, NOW)
    current = await claimed(store, worker=OTHER)

    assert not await store.complete(stale)
    assert not await store.retry_later(stale, NOW + 99, "stale")
    assert not await store.release(stale, NOW + 99)
    assert not await store.update_payload(stale, {"stale": True})
    assert await store.dead_letter(stale, "stale", NOW) is None

    assert await stored(store, job_id) == current
    assert await store.list_failed() == []


async def test_a_finishing_write_repeated_after_it_landed_changes_nothing(store: Store) -> None:
    await enqueued(store)
    lease = (await claimed(store)).lease

    assert await store.release(lease, NOW)
    assert not await store.release(lease, NOW)  # a retry of a write that had landed

    assert (await claimed(store)).attempts == 1  # refunded once, not twice


# Renewal and expiry --------------------------------------------------------------------------------


async def test_renew_extends_held_leases_and_names_the_lost_ones(store: Store) -> None:
    kept_id, done_id, _ = [await enqueued(store) for _ in range(3)]
    kept, done = (await claimed(store)).lease, (await claimed(store)).lease
    await store.complete(done)
    foreign = await claimed(store, worker=OTHER)

    lost = await store.renew(ME, [kept, done, foreign.lease], NOW + 20, LEASE)

    assert lost == [done, foreign.lease]
    assert (await stored(store, kept_id)).lease_until == NOW + 20 + LEASE
    assert (await stored(store, foreign.id)).lease_until == NOW + LEASE
    assert done_id not in [j.id for j in await store.list_jobs()]


async def test_a_renewed_lease_keeps_the_row_from_other_workers(store: Store) -> None:
    await enqueued(store)
    lease = (await claimed(store)).lease

    await store.renew(ME, [lease], NOW + 20, LEASE)

    assert await store.claim(OTHER, AFTER_LEASE + 1, LEASE) is None
    assert await store.next_wakeup(OTHER, AFTER_LEASE + 1) == NOW + 20 + LEASE


async def test_an_expired_lease_makes_the_row_claimable_by_another_worker(store: Store) -> None:
    job_id = await enqueued(store)
    stale = (await claimed(store, worker=DEAD)).lease

    assert await store.claim(OTHER, AFTER_LEASE - 1, LEASE) is None
    again = await claimed(store, AFTER_LEASE, worker=OTHER)

    assert (again.id, again.claimed_by, again.suspect) == (job_id, OTHER, True)
    assert again.token != stale.token
    assert await store.renew(DEAD, [stale], AFTER_LEASE, LEASE) == [stale]
    assert not await store.complete(stale)


async def test_a_worker_never_reclaims_a_row_it_holds_even_past_its_lease(store: Store) -> None:
    await enqueued(store)
    lease = (await claimed(store)).lease

    assert await store.claim(ME, AFTER_LEASE + 60, LEASE) is None
    assert await store.renew(ME, [lease], AFTER_LEASE + 60, LEASE) == []  # late, not lost


async def test_no_row_of_a_holder_comes_back_while_one_of_its_leases_runs(store: Store) -> None:
    first, second = await enqueued(store), await enqueued(store)
    await claimed(store, worker=DEAD)
    await claimed(store, NOW + 20, worker=DEAD)

    assert await store.claim(OTHER, AFTER_LEASE + 1, LEASE) is None  # the first lease ended alone
    assert await store.next_wakeup(OTHER, AFTER_LEASE + 1) == NOW + 20 + LEASE
    back = [await claimed(store, NOW + 20 + LEASE, worker=f"w{n}") for n in range(2)]
    assert [j.id for j in back] == [first, second]


async def test_the_heartbeat_lets_go_of_a_row_whose_claim_answer_never_arrived(store: Store) -> None:
    orphan_id = await enqueued(store)
    await claimed(store)  # committed, but the answer was lost on the way back to the worker
    kept_id = await enqueued(store)
    kept = (await claimed(store, NOW + 10)).lease

    assert await store.renew(ME, [kept], NOW + 20, LEASE) == []
    assert (await stored(store, orphan_id)).claimed_by == ME  # its lease runs: a claim may be on its way

    assert await store.renew(ME, [kept], AFTER_LEASE, LEASE) == []
    orphan = await stored(store, orphan_id)
    assert (orphan.claimed_by, orphan.attempts) == (None, 0)  # nothing ran it: the attempt is refunded
    assert (await stored(store, kept_id)).claimed_by == ME


# Dead holders and crash attribution ----------------------------------------------------------------


async def test_rows_of_a_holder_that_died_with_several_come_back_refunded_and_suspect(store: Store) -> None:
    ids = await dies_holding(store, 3)

    rows = [await claimed(store, AFTER_LEASE, worker=f"w{n}") for n in range(3)]

    assert [j.id for j in rows] == ids
    assert [(j.attempts, j.suspect) for j in rows] == [(1, True)] * 3  # 1 = this claim alone


async def test_a_row_its_holder_died_with_alone_keeps_the_spent_attempt(store: Store) -> None:
    [job_id] = await dies_holding(store, 1)

    again = await claimed(store, AFTER_LEASE, worker=OTHER)

    assert (again.id, again.attempts, again.suspect) == (job_id, 2, True)


async def test_a_row_that_kills_every_holder_alone_runs_out_of_attempts(store: Store) -> None:
    job_id = await enqueued(store, new_job(max_attempts=3))
    now = NOW
    for boot in range(3):
        assert (await claimed(store, now, worker=f"boot-{boot}")).id == job_id
        now += LEASE

    [exhausted] = await store.claim_exhausted("boot-3", now, LEASE)
    failed = await store.dead_letter(exhausted.lease, "gave up", now)

    assert (exhausted.id, exhausted.attempts, exhausted.max_attempts) == (job_id, 4, 3)
    assert failed is not None
    assert failed.attempts == 3  # the attempts that ran; the claim that buries it ran nothing


async def test_recover_takes_back_every_other_holders_rows_whatever_their_leases(store: Store) -> None:
    died_with_two = await dies_holding(store, 2)
    died_alone = await dies_holding(store, 1, worker="worker-dead-2")
    mine = await dies_holding(store, 1, worker=ME)

    assert await store.recover(ME) == 3

    rows = {j.id: j for j in await store.list_jobs()}
    assert [(rows[i].attempts, rows[i].suspect, rows[i].claimed_by) for i in died_with_two] == [
        (0, True, None),
        (0, True, None),
    ]
    assert (rows[died_alone[0]].attempts, rows[died_alone[0]].suspect) == (1, True)
    assert rows[mine[0]].claimed_by == ME


async def test_claim_exhausted_takes_only_free_rows_whose_attempts_are_spent(store: Store) -> None:
    spent = await enqueued(store, new_job(max_attempts=1))
    running = await enqueued(store, new_job(max_attempts=1))
    await enqueued(store, new_job(max_attempts=1))
    spent_lease = (await claimed(store)).lease
    await claimed(store)
    await store.retry_later(spent_lease, NOW, "killed")

    exhausted = await store.claim_exhausted(ME, NOW, LEASE)

    assert [(j.id, j.attempts, j.claimed_by) for j in exhausted] == [(spent, 2, ME)]
    assert running not in [j.id for j in exhausted]
    assert await store.claim_exhausted(ME, NOW, LEASE) == []


# Suspects run alone ----------------------------------------------------------------------------------


async def test_a_suspect_is_never_claimed_beside_another_job_of_its_worker(store: Store) -> None:
    await dies_holding(store, 2)
    ordinary = await enqueued(store, new_job(payload={"n": "ordinary"}))
    held = await claimed(store, AFTER_LEASE, worker=ME, paused_keys={"nothing"})
    assert held.suspect  # the oldest row comes back first, as a suspect

    assert await store.claim(ME, AFTER_LEASE, LEASE) is None  # not beside the suspect it holds
    other = await claimed(store, AFTER_LEASE, worker=OTHER)  # another worker is not held back
    assert (other.suspect, other.claimed_by) == (True, OTHER)
    assert await store.claim(OTHER, AFTER_LEASE, LEASE) is None

    await store.complete(held.lease)
    assert (await claimed(store, AFTER_LEASE, worker=ME)).id == ordinary


async def test_a_worker_holding_a_job_drains_before_it_takes_the_suspect_next_in_line(store: Store) -> None:
    await enqueued(store)
    busy = await claimed(store, worker=ME)
    [suspect] = await dies_holding(store, 1)
    later = await enqueued(store, new_job(payload={"n": "later"}))

    assert await store.claim(ME, AFTER_LEASE, LEASE) is None  # the suspect is next: not passed over

    await store.complete(busy.lease)
    taken = await claimed(store, AFTER_LEASE, worker=ME)
    assert (taken.id, taken.suspect) == (suspect, True)
    assert await store.claim(ME, AFTER_LEASE, LEASE) is None  # and nothing beside it
    assert (await claimed(store, AFTER_LEASE, worker=OTHER)).id == later


async def test_an_attempt_that_ends_normally_clears_the_suspect_mark_a_release_keeps_it(store: Store) -> None:
    first, second = await dies_holding(store, 2)
    one = await claimed(store, AFTER_LEASE, worker="w1")
    two = await claimed(store, AFTER_LEASE, worker="w2")

    await store.retry_later(one.lease, AFTER_LEASE, "HTTP Error 503")
    await store.release(two.lease, AFTER_LEASE)

    assert (await stored(store, first)).suspect is False
    assert (await stored(store, second)).suspect is True
