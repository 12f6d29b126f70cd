"""ChatSettingsStore contract: a chat's choices kept, replaced whole, and moved with a migration."""

from __future__ import annotations

import asyncio

from ports.chat_settings import ChatSettings
from ports.store import Store
from tests.contract.conftest import NOW

GROUP = -4001
SUPERGROUP = -1_000_000_004_001
PRIVATE = 4001


async def test_a_chat_that_never_chose_has_no_settings(store: Store) -> None:
    assert await store.chat_settings(GROUP) is None


async def test_saved_choices_read_back_as_saved(store: Store) -> None:
    chosen = ChatSettings(
        max_height=480,
        audio_only=True,
        ask_long_videos=False,
        ask_longer_than_seconds=600,
        language="ru",
        as_file=True,
    )

    await store.save_chat_settings(GROUP, chosen, NOW)

    assert await store.chat_settings(GROUP) == chosen


async def test_the_defaults_read_back_as_defaults(store: Store) -> None:
    await store.save_chat_settings(PRIVATE, ChatSettings(), NOW)

    assert await store.chat_settings(PRIVATE) == ChatSettings()


async def test_saving_again_replaces_every_field(store: Store) -> None:
    await store.save_chat_settings(GROUP, ChatSettings(1080, True, False, 3600, "es", as_file=True), NOW)

    await store.save_chat_settings(GROUP, ChatSettings(max_height=720), NOW + 1)

    assert await store.chat_settings(GROUP) == ChatSettings(max_height=720)


async def test_each_chat_keeps_its_own_choices(store: Store) -> None:
    await store.save_chat_settings(GROUP, ChatSettings(max_height=480), NOW)
    await store.save_chat_settings(PRIVATE, ChatSettings(audio_only=True), NOW)

    assert await store.chat_settings(GROUP) == ChatSettings(max_height=480)
    assert await store.chat_settings(PRIVATE) == ChatSettings(audio_only=True)


async def test_a_migration_moves_the_choices_to_the_supergroup(store: Store) -> None:
    await store.save_chat_settings(GROUP, ChatSettings(max_height=480, as_file=True), NOW)

    assert await store.move_chat_settings(GROUP, SUPERGROUP) is True

    assert await store.chat_settings(SUPERGROUP) == ChatSettings(max_height=480, as_file=True)
    assert await store.chat_settings(GROUP) is None


async def test_a_migration_keeps_the_supergroups_own_choices(store: Store) -> None:
    await store.save_chat_settings(GROUP, ChatSettings(max_height=480), NOW)
    await store.save_chat_settings(SUPERGROUP, ChatSettings(audio_only=True), NOW)

    assert await store.move_chat_settings(GROUP, SUPERGROUP) is False

    assert await store.chat_settings(SUPERGROUP) == ChatSettings(audio_only=True)
    assert await store.chat_settings(GROUP) is None


async def test_a_migration_of_a_chat_without_choices_moves_nothing(store: Store) -> None:
    assert await store.move_chat_settings(GROUP, SUPERGROUP) is False

    assert await store.chat_settings(SUPERGROUP) is None


async def test_concurrent_saves_leave_one_whole_row(store: Store) -> None:
    candidates = [ChatSettings(max_height=h, audio_only=h % 2 == 0) for h in (480, 720, 1080, 481)]

    await asyncio.gather(*(store.save_chat_settings(GROUP, c, NOW) for c in candidates))

    assert await store.chat_settings(GROUP) in candidates
