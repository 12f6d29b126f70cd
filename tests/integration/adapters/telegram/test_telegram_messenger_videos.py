"""TelegramMessenger's videos: uploaded with their attributes and thumbnail, sent again by
file_id, passed by path to a local Bot API server, refused when too large or not a file."""

from __future__ import annotations

from pathlib import Path

from adapters.telegram.messenger import TelegramMessenger
from core.telegram_errors import (
    is_wrong_file_id,
)
from ports.messenger import StoredVideo, VideoFile, VideoMeta
from testkit.telegram import FakeBotApi
from tests.support.people import ALICE, GROUP, PRIVATE
from tests.support.telegram_bots import bot_on, close, refused, sha256, tiny_jpeg


async def test_send_video_uploads_the_bytes_with_the_video_attributes(
    api: FakeBotApi, messenger: TelegramMessenger, clip: Path
) -> None:
    asked = api.send_text(PRIVATE, ALICE, "https://example.com/v")

    sent = await messenger.send_video(
        PRIVATE.id, VideoFile(clip), VideoMeta(duration=7, width=640, height=360), reply_to=asked
    )

    [video] = api.videos(PRIVATE.id)
    assert video.sha256 == sha256(clip)
    assert video.size == len(clip.read_bytes())  # noqa: ASYNC240 - a small test file
    assert video.source == "upload"
    assert (video.duration, video.width, video.height) == (7, 640, 360)
    assert video.supports_streaming
    assert video.silent
    assert video.reply_to == asked
    assert video.caption is None
    assert (sent.message_id, sent.file_id, sent.file_unique_id) == (
        video.message_id,
        video.file_id,
        video.file_unique_id,
    )
    assert api.calls_of("sendVideo")[0].files == {"video": video.sha256}


async def test_a_stored_file_id_sends_the_same_video_without_uploading(
    api: FakeBotApi, messenger: TelegramMessenger, clip: Path
) -> None:
    first = await messenger.send_video(
        PRIVATE.id, VideoFile(clip), VideoMeta(duration=7, width=640, height=360)
    )

    again = await messenger.send_video(
        GROUP.id, StoredVideo(first.file_id), VideoMeta(caption="<b>A title</b> &amp; more")
    )

    uploaded, reused = api.videos()
    assert reused.source == "file_id"
    assert not reused.uploaded
    assert reused.sha256 == uploaded.sha256 == sha256(clip)
    assert reused.caption == "A title & more"
    assert again.file_unique_id == first.file_unique_id
    assert api.calls_of("sendVideo")[1].files == {}


async def test_a_wrong_file_id_is_recognised(
    api: FakeBotApi, messenger: TelegramMessenger, clip: Path
) -> None:
    sent = await messenger.send_video(PRIVATE.id, VideoFile(clip), VideoMeta())
    api.forget_file(sent.file_id)

    unknown = await refused(
        messenger.send_video(PRIVATE.id, StoredVideo("BAACAgIAAxkBAAIbogus"), VideoMeta())
    )
    forgotten = await refused(messenger.send_video(PRIVATE.id, StoredVideo(sent.file_id), VideoMeta()))

    for error in (unknown, forgotten):
        assert (error.code, error.description) == (
            400,
            "Bad Request: wrong file identifier/HTTP URL specified",
        )
        assert is_wrong_file_id(error)
    assert len(api.videos()) == 1


async def test_local_mode_passes_a_file_uri_and_the_server_reads_the_bytes_from_disk(clip: Path) -> None:
    async with FakeBotApi(local_mode=True) as api:
        api.add_chat(PRIVATE)
        bot = await bot_on(api, local_mode=True)
        try:
            sent = await TelegramMessenger(bot, local_mode=True).send_video(
                PRIVATE.id, VideoFile(clip), VideoMeta(duration=3, width=320, height=240)
            )
        finally:
            await close(bot)

    [video] = api.videos()
    assert video.source == "path"
    assert video.sha256 == sha256(clip)
    assert video.file_id == sent.file_id
    [call] = api.calls_of("sendVideo")
    assert call.params["video"] == clip.resolve().as_uri()  # noqa: ASYNC240 - no I/O in practice


async def test_a_thumbnail_goes_with_the_video_as_an_upload(
    api: FakeBotApi, messenger: TelegramMessenger, clip: Path, tmp_path: Path
) -> None:
    thumb = tmp_path / "thumb.jpg"
    thumb.write_bytes(tiny_jpeg(320, 180))

    await messenger.send_video(PRIVATE.id, VideoFile(clip), VideoMeta(duration=2, thumbnail=thumb))

    [video] = api.videos(PRIVATE.id)
    assert video.thumbnail is not None
    assert (video.thumbnail.width, video.thumbnail.height) == (320, 180)
    assert video.thumbnail.sha256 == sha256(thumb)
    assert video.thumbnail.valid
    assert api.calls_of("sendVideo")[0].files == {"video": video.sha256, "thumbnail": sha256(thumb)}


async def test_local_mode_uploads_the_thumbnail_beside_the_video_path(clip: Path, tmp_path: Path) -> None:
    thumb = tmp_path / "thumb.jpg"
    thumb.write_bytes(tiny_jpeg(160, 120))
    async with FakeBotApi(local_mode=True) as api:
        api.add_chat(PRIVATE)
        bot = await bot_on(api, local_mode=True)
        try:
            await TelegramMessenger(bot, local_mode=True).send_video(
                PRIVATE.id, VideoFile(clip), VideoMeta(thumbnail=thumb)
            )
        finally:
            await close(bot)

    [video] = api.videos()
    assert video.source == "path"
    assert video.thumbnail is not None
    assert video.thumbnail.valid


async def test_a_video_by_file_id_carries_no_thumbnail(
    api: FakeBotApi, messenger: TelegramMessenger, clip: Path
) -> None:
    sent = await messenger.send_video(PRIVATE.id, VideoFile(clip), VideoMeta())
    await messenger.send_video(PRIVATE.id, StoredVideo(sent.file_id), VideoMeta())
    assert [v.thumbnail for v in api.videos(PRIVATE.id)] == [None, None]


async def test_a_cloud_server_refuses_a_file_path(clip: Path, messenger: TelegramMessenger) -> None:
    cloud_with_local_config = TelegramMessenger(messenger._bot, local_mode=True)

    error = await refused(cloud_with_local_config.send_video(PRIVATE.id, VideoFile(clip), VideoMeta()))

    assert is_wrong_file_id(error)


async def test_a_file_over_the_upload_limit_is_refused_as_too_large(clip: Path) -> None:
    async with FakeBotApi(upload_limit=1000) as api:
        api.add_chat(PRIVATE)
        bot = await bot_on(api)
        try:
            error = await refused(
                TelegramMessenger(bot, False).send_video(PRIVATE.id, VideoFile(clip), VideoMeta())
            )
        finally:
            await close(bot)

    assert error.code == 413
    assert "Request Entity Too Large" in error.description
    assert api.videos() == []
