"""UserQuota contract, the links a user sent lately: counted, read back by window, forgotten."""

from __future__ import annotations

from ports.store import Store
from tests.contract.conftest import NOW

USER, OTHER = 11, 12


async def test_counted_links_are_read_back_from_a_moment_on_oldest_first(store: Store) -> None:
    for at in (NOW + 2, NOW, NOW + 1):
        await store.count_link(USER, at, forget_before=0)
    await store.count_link(OTHER, NOW, forget_before=0)

    assert await store.links_since(USER, NOW) == [NOW, NOW + 1, NOW + 2]
    assert await store.links_since(USER, NOW + 0.5) == [NOW + 1, NOW + 2]
    assert await store.links_since(OTHER, 0) == [NOW]
    assert await store.links_since(99, 0) == []


async def test_counting_forgets_only_that_users_old_links(store: Store) -> None:
    await store.count_link(USER, NOW, forget_before=0)
    await store.count_link(OTHER, NOW, forget_before=0)

    await store.count_link(USER, NOW + 100, forget_before=NOW + 50)

    assert await store.links_since(USER, 0) == [NOW + 100]
    assert await store.links_since(OTHER, 0) == [NOW]
