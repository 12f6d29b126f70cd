"""InstallSecrets contract: generated once, kept, the same for every caller sharing the store."""

from __future__ import annotations

import asyncio

from ports.store import Store


async def test_the_first_candidate_is_kept_and_later_ones_are_ignored(store: Store) -> None:
    first = await store.install_secret("callback", b"\x00first\xff" * 4)

    again = await store.install_secret("callback", b"second" * 6)

    assert first == again == b"\x00first\xff" * 4


async def test_each_name_keeps_its_own_secret(store: Store) -> None:
    assert await store.install_secret("a", b"A" * 32) == b"A" * 32
    assert await store.install_secret("b", b"B" * 32) == b"B" * 32
    assert await store.install_secret("a", b"C" * 32) == b"A" * 32


async def test_racing_first_calls_agree_on_one_secret(store: Store) -> None:
    candidates = [bytes([n]) * 32 for n in range(8)]

    got = await asyncio.gather(*(store.install_secret("race", c) for c in candidates))

    assert len(set(got)) == 1
    assert got[0] in candidates
