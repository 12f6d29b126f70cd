"""BlobIndex contract: rows, file ids, and the compare-and-set that decides who unlinks bytes."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from ports.blobs import BlobRecord
from ports.jobs import NewJob
from ports.pending import PendingRequest
from ports.store import Store
from tests.contract.conftest import NOW

KEY = "youtube:dQw4w9WgXcQ:18"


def record(**changes: object) -> BlobRecord:
    base = BlobRecord(
        key=KEY,
        file_name="3f2a.mp4",
        size=1_234_567,
        duration=212.5,
        width=640,
        height=360,
        file_id=None,
        file_unique_id=None,
        created_at=NOW,
        last_used=NOW,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


async def pin(store: Store, key: str) -> None:
    job = NewJob("send_confirmed", {}, 3)
    await store.park(PendingRequest("pin", 1, 2, 3, job, key, NOW))


async def test_put_read_replace_and_forget(store: Store) -> None:
    await store.put_blob(record())
    assert await store.blob(KEY) == record()

    await store.put_blob(record(size=99, file_name="other.mp4"))
    assert await store.blob(KEY) == record(size=99, file_name="other.mp4")

    await store.forget_blob(KEY)
    assert await store.blob(KEY) is None
    assert await store.all_blobs() == []


async def test_file_ids_are_set_cleared_and_touch_updates_last_use(store: Store) -> None:
    await store.put_blob(record())

    await store.set_file_id(KEY, "BAACAgIA", "AgADx", NOW + 10)
    assert await store.blob(KEY) == record(file_id="BAACAgIA", file_unique_id="AgADx", last_used=NOW + 10)

    await store.touch_blob(KEY, NOW + 20)
    await store.clear_file_id(KEY)
    assert await store.blob(KEY) == record(last_used=NOW + 20)

    await store.set_file_id("missing", "x", "y", NOW)
    assert await store.all_blobs() == [record(last_used=NOW + 20)]


async def test_detach_bytes_deletes_a_row_without_file_id(store: Store) -> None:
    await store.put_blob(record())

    assert await store.detach_bytes(KEY, "3f2a.mp4") is True
    assert await store.blob(KEY) is None


async def test_detach_bytes_keeps_a_sent_row_without_its_bytes(store: Store) -> None:
    await store.put_blob(record(file_id="BAACAgIA", file_unique_id="AgADx"))

    assert await store.detach_bytes(KEY, "3f2a.mp4") is True
    assert await store.blob(KEY) == record(
        file_id="BAACAgIA", file_unique_id="AgADx", file_name=None, size=None
    )


async def test_detach_bytes_refuses_another_file_name(store: Store) -> None:
    await store.put_blob(record(file_name="new.mp4"))

    assert await store.detach_bytes(KEY, "3f2a.mp4") is False
    assert await store.detach_bytes("missing", "3f2a.mp4") is False
    assert await store.blob(KEY) == record(file_name="new.mp4")


async def test_exactly_one_of_two_concurrent_detaches_wins(store: Store) -> None:
    await store.put_blob(record(file_id="BAACAgIA"))

    results = await asyncio.gather(store.detach_bytes(KEY, "3f2a.mp4"), store.detach_bytes(KEY, "3f2a.mp4"))

    assert sorted(results) == [False, True]


async def test_a_pending_request_pins_the_bytes(store: Store) -> None:
    await store.put_blob(record())
    await pin(store, KEY)

    assert await store.detach_bytes(KEY, "3f2a.mp4") is False
    assert await store.blob(KEY) == record()

    await store.cancel("pin", 2)
    assert await store.detach_bytes(KEY, "3f2a.mp4") is True


async def test_all_blobs_lists_every_row(store: Store) -> None:
    records = [record(key=f"generic:https://example.com/{n}:best") for n in range(3)]
    for each in records:
        await store.put_blob(each)

    assert sorted(await store.all_blobs(), key=lambda r: r.key) == records
