"""download_inline's sound variant, and a placeholder whose job failed for good, on virtual time."""

from __future__ import annotations

from core.requests.inline import AUDIO_VARIANT
from ports.messenger import MessengerError
from tests.support.downloader import http_error, video
from tests.support.world import INLINE_CACHE_CHAT, World
from tests.unit.core.work.test_inline import URL, picked


async def test_the_audio_variant_uploads_the_sound_to_the_cache_chat_and_swaps_it_in(world: World) -> None:
    world.downloader.serve(URL)

    await picked(world, AUDIO_VARIANT)

    [upload] = world.messenger.chat(INLINE_CACHE_CHAT)
    assert upload.audio is not None
    [(message_id, file_id, meta)] = world.messenger.inline_audio_edits
    assert (message_id, file_id, meta.title, meta.duration) == ("inline-1", upload.audio, "Clip v1", 12)
    assert world.messenger.inline_edits == []
    assert world.downloader.downloads == []


async def test_a_sound_telegram_has_is_swapped_in_without_a_download(world: World) -> None:
    world.downloader.serve(URL)
    await picked(world, AUDIO_VARIANT, "inline-1")

    await picked(world, AUDIO_VARIANT, "inline-2")

    assert world.downloader.audio_downloads == ["v1"]
    assert len(world.messenger.chat(INLINE_CACHE_CHAT)) == 1
    assert [edit[0] for edit in world.messenger.inline_audio_edits] == ["inline-1", "inline-2"]


async def test_a_permanent_failure_turns_the_placeholder_into_the_reason(world: World) -> None:
    world.downloader.scrape_failures[URL].append(http_error(404))

    await picked(world)

    [(message_id, text)] = world.messenger.inline_texts
    assert message_id == "inline-1"
    assert text.startswith("💥 <b>Download failed</b>: ")
    assert "404" in text
    assert "⏳" not in text


async def test_a_placeholder_says_why_once_every_retry_failed(world: World) -> None:
    for _ in range(world.settings.max_attempts):
        world.downloader.scrape_failures[URL].append(http_error(503))

    await picked(world)

    [(_, text)] = world.messenger.inline_texts
    assert "503" in text
    [failed] = await world.store.list_failed()
    assert failed.attempts == world.settings.max_attempts


async def test_too_large_is_said_in_the_placeholder(world: World) -> None:
    # Four hours in 50 MB is no watchable bitrate: refused before a byte, not compressed.
    world.downloader.serve(URL, video(URL, filesize=80_000_000, duration=4 * 3600))

    await picked(world)

    [(_, text)] = world.messenger.inline_texts
    assert "Video too large (80 MB)" in text


async def test_a_placeholder_that_cannot_be_edited_leaves_the_failure_recorded(world: World) -> None:
    world.downloader.scrape_failures[URL].append(http_error(404))
    world.messenger.fail_next(
        "edit_inline_text", MessengerError("Bad Request: message to edit not found", 400)
    )

    await picked(world)

    assert world.messenger.inline_texts == []
    assert len(await world.store.list_failed()) == 1
