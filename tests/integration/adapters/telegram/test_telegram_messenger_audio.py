"""TelegramMessenger's audio and inline text calls: a real aiogram Bot against the fake Bot API."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from adapters.telegram.messenger import TelegramMessenger
from ports.messenger import AudioFile, AudioMeta, Button, MessengerError, StoredAudio, VideoFile, VideoMeta
from testkit.telegram import FakeBotApi
from tests.support.people import ALICE, GROUP, PRIVATE
from tests.support.telegram_bots import bot_on, close, refused


@pytest.fixture
def sound(tmp_path: Path) -> Path:
    path = tmp_path / "A song [abc].m4a"
    path.write_bytes(b"\x00\x00\x00\x20ftypM4A " + bytes(range(256)) * 20)
    return path


@pytest.fixture
def thumbnail(tmp_path: Path) -> Path:
    path = tmp_path / "cover.jpg"
    path.write_bytes(b"\xff\xd8\xff\xe0 a small cover")
    return path


async def test_send_audio_uploads_the_sound_with_its_title_performer_duration_and_thumbnail(
    api: FakeBotApi, messenger: TelegramMessenger, sound: Path, thumbnail: Path
) -> None:
    asked = api.send_text(PRIVATE, ALICE, "/audio https://example.com/v")
    meta = AudioMeta(duration=62, title="A song", performer="A band", thumbnail=thumbnail)

    sent = await messenger.send_audio(PRIVATE.id, AudioFile(sound), meta, reply_to=asked)

    [audio] = api.audios(PRIVATE.id)
    assert audio.file.kind == "audio"
    assert audio.file.sha256 == hashlib.sha256(sound.read_bytes()).hexdigest()  # noqa: ASYNC240 - tiny
    assert (audio.title, audio.performer, audio.duration) == ("A song", "A band", 62)
    assert audio.thumbnail is not None
    assert audio.thumbnail.sha256 == hashlib.sha256(thumbnail.read_bytes()).hexdigest()  # noqa: ASYNC240
    assert (audio.reply_to, audio.silent, audio.source) == (asked, True, "upload")
    assert (sent.message_id, sent.file_id) == (audio.message_id, audio.file.file_id)


async def test_a_stored_audio_is_sent_by_file_id_without_an_upload(
    api: FakeBotApi, messenger: TelegramMessenger, sound: Path
) -> None:
    first = await messenger.send_audio(GROUP.id, AudioFile(sound), AudioMeta(title="A song"))

    again = await messenger.send_audio(PRIVATE.id, StoredAudio(first.file_id), AudioMeta(title="A song"))

    assert again.file_id == first.file_id
    assert [a.source for a in api.audios()] == ["upload", "file_id"]


async def test_a_videos_file_id_sent_as_audio_is_refused_with_telegrams_words(
    messenger: TelegramMessenger, clip: Path
) -> None:
    video = await messenger.send_video(GROUP.id, VideoFile(clip), VideoMeta())

    error = await refused(messenger.send_audio(PRIVATE.id, StoredAudio(video.file_id), AudioMeta()))

    assert isinstance(error, MessengerError)
    assert (error.code, error.description) == (400, "Bad Request: can't use file of type Video as Audio")


async def test_a_sound_telegram_files_as_a_document_still_gives_its_file_id(
    api: FakeBotApi, messenger: TelegramMessenger, tmp_path: Path
) -> None:
    webm = tmp_path / "sound.webm"
    webm.write_bytes(b"\x1aE\xdf\xa3 opus in webm")

    sent = await messenger.send_audio(PRIVATE.id, AudioFile(webm), AudioMeta())

    [audio] = api.audios()
    assert audio.file.kind == "document"
    assert sent.file_id == audio.file.file_id


async def test_local_mode_passes_the_sounds_path(sound: Path) -> None:
    async with FakeBotApi(local_mode=True) as api:
        api.add_chat(PRIVATE)
        bot = await bot_on(api, local_mode=True)
        try:
            await TelegramMessenger(bot, local_mode=True).send_audio(
                PRIVATE.id, AudioFile(sound), AudioMeta()
            )
        finally:
            await close(bot)

    [audio] = api.audios()
    assert audio.source == "path"
    assert api.calls_of("sendAudio")[0].params["audio"] == sound.resolve().as_uri()  # noqa: ASYNC240


async def test_edit_inline_audio_swaps_the_placeholder_for_the_sound(
    api: FakeBotApi, messenger: TelegramMessenger, sound: Path
) -> None:
    cached = await messenger.send_audio(GROUP.id, AudioFile(sound), AudioMeta())
    inline_id = api.choose_inline_result(ALICE, "0", query="https://example.com/v")
    keyboard = [[Button("🔗 Source", url="https://example.com/v")]]

    await messenger.edit_inline_audio(
        inline_id, cached.file_id, AudioMeta(duration=62, title="A song", caption="A song"), keyboard=keyboard
    )

    [edit] = api.media_edits
    assert (edit.inline_message_id, edit.file.file_id, edit.file.kind) == (inline_id, cached.file_id, "audio")
    assert (edit.media["type"], edit.media["title"], edit.media["duration"]) == ("audio", "A song", 62)


async def test_edit_inline_text_rewrites_the_placeholder(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    inline_id = api.choose_inline_result(ALICE, "0", query="https://example.com/v")

    await messenger.edit_inline_text(inline_id, "💥 Download failed: <b>gone</b>")

    shown = api.inline_message(inline_id)
    assert shown is not None
    assert shown.text == "💥 Download failed: gone"
    [call] = api.calls_of("editMessageText")
    assert call.params["parse_mode"] == "HTML"
