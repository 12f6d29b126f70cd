"""download_inline and the inline lookup over in-process fakes, on virtual time."""

from __future__ import annotations

from core.requests.inline import InlineRequest
from core.requests.job_names import DOWNLOAD_INLINE
from core.texts.captions import variant_caption
from core.texts.reasons import too_large
from core.work.inline import variant_keyboard
from ports.messenger import Button, MessengerError
from tests.support.downloader import video
from tests.support.languages import words
from tests.support.world import INLINE_CACHE_CHAT, PRIVATE_CHAT, USER, World

URL = "https://videos.example/watch/1"
KEY = "testsite:v1:18"


async def picked(world: World, variant: str = "full", inline_message_id: str = "inline-1") -> None:
    """The user picked the placeholder of `URL`: its job runs to the end."""
    request = InlineRequest(URL, inline_message_id, USER, variant)
    await world.engine.submit(DOWNLOAD_INLINE, request.to_payload(), owner_id=USER)
    await world.idle()


async def test_a_new_video_goes_to_the_cache_chat_and_its_file_id_into_the_placeholder(world: World) -> None:
    world.downloader.serve(URL)
    await picked(world)
    [upload] = world.messenger.chat(INLINE_CACHE_CHAT)
    assert upload.video is not None
    [(message_id, file_id, meta)] = world.messenger.inline_edits
    assert (message_id, file_id) == ("inline-1", upload.video)
    assert meta.caption == "Clip v1"
    assert (meta.duration, meta.width, meta.height) == (12, 640, 360)
    record = await world.store.blob(KEY)
    assert record is not None
    assert record.file_id == upload.video
    assert record.file_name is None  # the bytes went once Telegram had the video


async def test_a_video_telegram_has_is_swapped_in_without_a_download_or_an_upload(world: World) -> None:
    world.downloader.serve(URL)
    await world.post(URL)
    await world.idle()
    [sent] = [m.video for m in world.messenger.chat(PRIVATE_CHAT) if m.video]

    await picked(world)

    assert world.downloader.downloads == ["v1"]
    assert world.messenger.chat(INLINE_CACHE_CHAT) == []
    assert [file_id for _, file_id, _ in world.messenger.inline_edits] == [sent]


async def test_the_no_caption_variant_swaps_in_the_video_without_its_title(world: World) -> None:
    world.downloader.serve(URL)
    await picked(world, variant="no_caption")
    [(_, _, meta)] = world.messenger.inline_edits
    assert meta.caption is None


async def test_a_video_too_large_before_download_fails_at_once_and_downloads_nothing(world: World) -> None:
    # Unwatchable in 50 MB: a chat would get it in parts, but an inline message holds one video
    world.downloader.serve(URL, video(URL, filesize=80_000_000, duration=3000.0))
    await picked(world)
    assert world.downloader.downloads == []
    assert world.messenger.inline_edits == []
    [failed] = await world.store.list_failed()
    assert failed.error == "😞 Video too large (80 MB)"
    assert failed.attempts == 1


async def test_a_video_announced_over_the_download_cap_fails_at_once_and_downloads_nothing(
    world: World,
) -> None:
    over_cap = world.settings.download_cap_bytes + 1_000_000
    world.downloader.serve(
        URL, video(URL, filesize=over_cap, duration=600.0)
    )  # compressible, but over the cap
    await picked(world)
    assert world.downloader.downloads == []
    assert world.messenger.inline_edits == []
    [failed] = await world.store.list_failed()
    assert failed.error == too_large(over_cap)


async def test_a_failed_swap_retries_with_the_recorded_file_id_and_uploads_once(world: World) -> None:
    world.downloader.serve(URL)
    world.messenger.fail_next("edit_inline_video", MessengerError("Internal Server Error", 500))
    await picked(world)
    assert world.downloader.downloads == ["v1"]
    assert len(world.messenger.chat(INLINE_CACHE_CHAT)) == 1
    assert len(world.messenger.inline_edits) == 1
    assert await world.store.list_failed() == []


async def test_a_refused_link_fails_permanently_before_any_scrape(world: World) -> None:
    request = InlineRequest("http://localhost:8080/clip.mp4", "inline-1", USER)
    await world.engine.submit(DOWNLOAD_INLINE, request.to_payload(), owner_id=USER)
    await world.idle()
    assert world.downloader.scrapes == []
    [failed] = await world.store.list_failed()
    assert failed.error.startswith("refused: ")


async def test_a_payload_that_is_not_an_inline_request_fails_permanently(world: World) -> None:
    await world.engine.submit(DOWNLOAD_INLINE, {"url": URL}, owner_id=USER)
    await world.idle()
    [failed] = await world.store.list_failed()
    assert failed.error.startswith("bad job payload: inline payload lacks 'inline_message_id'")
    assert world.downloader.scrapes == []


async def test_the_lookup_knows_only_videos_telegram_has(world: World) -> None:
    lookup = world.container.inline_requests()
    assert await lookup.cached(URL) is None
    world.downloader.serve(URL)
    await world.post(URL)
    await world.idle()

    cached = await lookup.cached(URL)

    assert cached is not None
    assert cached.info.id == "v1"
    assert cached.file_id == cached.record.file_id
    assert world.downloader.scrapes == [URL]  # the lookup never scrapes


async def test_the_lookup_ignores_a_scrape_whose_video_telegram_does_not_have(world: World) -> None:
    # Unwatchable in 50 MB, and more than the 8 parts of 50 MB a video may be cut into
    world.downloader.serve(URL, video(URL, filesize=400_000_000, duration=9000.0))
    await world.post(URL)  # scraped and cached, refused as too large: no file_id
    await world.idle()
    assert await world.container.inline_requests().cached(URL) is None


def test_the_variants_drop_the_caption_or_the_source_button() -> None:
    info = video(URL, title="A title")
    assert variant_caption(info, "full") == "A title"
    assert variant_caption(info, "no_caption") is None
    assert variant_keyboard(URL, "full", words("en")) == [[Button("🔗 Source", url=URL)]]
    assert variant_keyboard(URL, "full", words("es")) == [[Button("🔗 Fuente", url=URL)]]
    assert variant_keyboard(URL, "no_source", words("en")) is None
