"""Long-video confirmations: confirm and cancel race on one atomic claim; prompts lapse."""

from __future__ import annotations

import asyncio
from secrets import token_bytes

import pytest

from adapters.memory.store import MemoryStore
from core.incoming.confirmations import Confirmations, Decision
from core.requests.prompt import PENDING_TTL_SECONDS
from core.trust.buttons import SignedButtons
from core.trust.keys import InstallKeys
from ports.jobs import NewJob
from ports.pending import PendingRequest
from tests.support.clock import VirtualClock

REQUESTER = 7
SOMEONE_ELSE = 8


class Wakes:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> None:
        self.count += 1


@pytest.fixture
def wakes() -> Wakes:
    return Wakes()


@pytest.fixture
def confirmations(store: MemoryStore, clock: VirtualClock, wakes: Wakes) -> Confirmations:
    return Confirmations(
        pending=store, clock=clock, wake=wakes, buttons=SignedButtons(InstallKeys(store, token_bytes))
    )


async def park(
    store: MemoryStore, clock: VirtualClock, pending_id: str = "p1", blob_key: str | None = None
) -> None:
    job = NewJob("download_video", {"url": "https://videos.example/long"}, 3)
    await store.park(PendingRequest(pending_id, -100, REQUESTER, 5, job, blob_key, clock.now()))


async def test_anyone_may_confirm_and_the_parked_job_is_queued_at_once(
    confirmations: Confirmations, store: MemoryStore, clock: VirtualClock, wakes: Wakes
) -> None:
    await park(store, clock)

    assert await confirmations.confirm("p1") is Decision.CONFIRMED

    [job] = await store.list_jobs()
    assert job.payload == {"url": "https://videos.example/long"}
    assert wakes.count == 1
    assert await confirmations.confirm("p1") is Decision.GONE
    assert len(await store.list_jobs()) == 1


async def test_only_the_requester_may_cancel(
    confirmations: Confirmations, store: MemoryStore, clock: VirtualClock
) -> None:
    await park(store, clock)

    assert await confirmations.cancel("p1", SOMEONE_ELSE) is Decision.NOT_REQUESTER
    assert await store.pending("p1") is not None
    assert await confirmations.cancel("p1", REQUESTER) is Decision.CANCELLED
    assert await confirmations.confirm("p1") is Decision.GONE
    assert await store.list_jobs() == []


async def test_confirm_and_cancel_at_once_exactly_one_wins(
    confirmations: Confirmations, store: MemoryStore, clock: VirtualClock
) -> None:
    await park(store, clock)

    confirmed, cancelled = await asyncio.gather(
        confirmations.confirm("p1"), confirmations.cancel("p1", REQUESTER)
    )

    assert sorted([confirmed.value, cancelled.value]) in (["confirmed", "gone"], ["cancelled", "gone"])
    assert len(await store.list_jobs()) == (1 if confirmed is Decision.CONFIRMED else 0)


async def test_an_unknown_prompt_is_gone_for_both_buttons(confirmations: Confirmations) -> None:
    assert await confirmations.confirm("nope") is Decision.GONE
    assert await confirmations.cancel("nope", REQUESTER) is Decision.GONE


async def test_prompts_nobody_answered_for_six_hours_lapse_and_unpin_their_bytes(
    confirmations: Confirmations, store: MemoryStore, clock: VirtualClock
) -> None:
    await park(store, clock, "old", blob_key="k-old")
    await clock.advance(PENDING_TTL_SECONDS - 60)
    await park(store, clock, "young", blob_key="k-young")
    await clock.advance(61)

    assert await confirmations.expire() == 1

    assert await store.pending("old") is None
    assert await store.pending("young") is not None
    assert await store.pinned_keys() == {"k-young"}
    assert await confirmations.confirm("old") is Decision.GONE
