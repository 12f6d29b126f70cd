"""Single flight: one task per key for every concurrent caller, cancelled only when all left."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from core.media.single_flight import Listeners, SingleFlight

Heard = Callable[[str], None]


class Work:
    """A task that waits for `release` and tells its listeners one word on the way."""

    def __init__(self) -> None:
        self.started = 0
        self.cancelled = 0
        self.release = asyncio.Event()

    async def __call__(self, listeners: Listeners[Heard]) -> str:
        self.started += 1
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        listeners.tell(lambda hear: hear("done soon"))
        return f"result {self.started}"


async def test_concurrent_callers_share_one_task_and_each_hears_it() -> None:
    flights: SingleFlight[str, Heard] = SingleFlight("test")
    work = Work()
    heard: list[tuple[str, str]] = []
    callers = [
        asyncio.create_task(flights.join("k", work, lambda word, who=who: heard.append((who, word))))
        for who in ("a", "b")
    ]
    await asyncio.sleep(0)
    work.release.set()

    assert await asyncio.gather(*callers) == ["result 1", "result 1"]
    assert work.started == 1
    assert sorted(heard) == [("a", "done soon"), ("b", "done soon")]


async def test_a_failing_listener_does_not_fail_the_task_or_silence_the_others() -> None:
    flights: SingleFlight[str, Heard] = SingleFlight("test")
    work = Work()
    heard: list[str] = []

    def broken(_: str) -> None:
        raise RuntimeError("a closed chat")

    first = asyncio.create_task(flights.join("k", work, broken))
    second = asyncio.create_task(flights.join("k", work, heard.append))
    await asyncio.sleep(0)
    work.release.set()

    assert await asyncio.gather(first, second) == ["result 1", "result 1"]
    assert heard == ["done soon"]


async def test_a_cancelled_caller_leaves_the_task_to_the_others() -> None:
    flights: SingleFlight[str, Heard] = SingleFlight("test")
    work = Work()
    leaving = asyncio.create_task(flights.join("k", work))
    staying = asyncio.create_task(flights.join("k", work))
    await asyncio.sleep(0)

    leaving.cancel()
    with pytest.raises(asyncio.CancelledError):
        await leaving
    work.release.set()

    assert await staying == "result 1"
    assert work.cancelled == 0


async def test_the_last_caller_leaving_cancels_the_task_and_the_next_call_starts_afresh() -> None:
    flights: SingleFlight[str, Heard] = SingleFlight("test")
    work = Work()
    only = asyncio.create_task(flights.join("k", work))
    await asyncio.sleep(0)

    only.cancel()
    with pytest.raises(asyncio.CancelledError):
        await only
    assert work.cancelled == 1

    work.release.set()
    assert await flights.join("k", work) == "result 2"


async def test_different_keys_fly_apart() -> None:
    flights: SingleFlight[str, Heard] = SingleFlight("test")
    work = Work()
    work.release.set()
    assert await asyncio.gather(flights.join("a", work), flights.join("b", work)) == ["result 1", "result 2"]
