"""A link handled as its chat chose (quality, the sound only, long videos), and /audio, over
in-process fakes on virtual time."""

from __future__ import annotations

import json

import pytest

from ports.chat_settings import ChatSettings
from ports.messenger import MessengerError
from tests.support.downloader import video
from tests.support.messenger import WRONG_FILE_ID
from tests.support.world import GROUP_CHAT, PRIVATE_CHAT, USER, World

URL = "https://videos.example/watch/1"
NOW = 1_700_000_000.0
OTHER_PRIVATE = 1077


def ladder_entry(picked: str = "720p") -> str:
    """yt-dlp's JSON for a video in four heights, worst first as yt-dlp lists its formats."""
    formats = [
        {"format_id": f"{h}p", "height": h, "width": h * 16 // 9, "ext": "mp4", "filesize": h * 1000}
        for h in (240, 360, 480, 720)
    ]
    entry = {"id": "v1", "extractor": "testsite", "webpage_url": URL, "title": "Clip v1"}
    return json.dumps(entry | {"format_id": picked, "height": 720, "formats": formats})


def audios(world: World, chat: int) -> list[str]:
    return [m.audio for m in world.messenger.chat(chat) if m.audio]


def videos(world: World, chat: int) -> list[str]:
    return [m.video for m in world.messenger.chat(chat) if m.video]


async def test_audio_sends_the_sound_with_title_and_duration_and_a_second_ask_reuses_its_file_id(
    world: World,
) -> None:
    world.downloader.serve(URL, video(URL, performer="A band"))

    message_id = await world.post(URL, audio=True)
    await world.idle()
    await world.post(URL, chat_id=OTHER_PRIVATE, user_id=OTHER_PRIVATE, audio=True)
    await world.idle()

    [first] = [m for m in world.messenger.chat(PRIVATE_CHAT) if m.audio]
    assert first.reply_to == message_id
    assert first.audio_meta is not None
    meta = first.audio_meta
    assert (meta.title, meta.performer, meta.duration) == ("Clip v1", "A band", 12)
    assert audios(world, OTHER_PRIVATE) == [first.audio]
    assert world.downloader.audio_downloads == ["v1"]
    assert world.downloader.downloads == []
    record = await world.store.blob("testsite:v1:~audio")
    assert record is not None
    assert record.file_id == first.audio
    assert record.file_name is None  # the bytes went once Telegram had the sound


async def test_the_sound_and_the_video_are_two_blobs(world: World) -> None:
    world.downloader.serve(URL)

    await world.post(URL, audio=True)
    await world.post(URL, chat_id=OTHER_PRIVATE, user_id=OTHER_PRIVATE)
    await world.idle()

    assert len(audios(world, PRIVATE_CHAT)) == 1
    assert len(videos(world, OTHER_PRIVATE)) == 1
    assert world.downloader.audio_downloads == ["v1"]
    assert world.downloader.downloads == ["v1"]


async def test_a_chat_on_audio_only_gets_the_sound_unless_it_asks_for_the_video(world: World) -> None:
    world.downloader.serve(URL)
    await world.store.save_chat_settings(PRIVATE_CHAT, ChatSettings(audio_only=True), NOW)

    await world.post(URL)
    await world.idle()
    await world.post(URL, audio=False)
    await world.idle()

    assert len(audios(world, PRIVATE_CHAT)) == 1
    assert len(videos(world, PRIVATE_CHAT)) == 1


async def test_a_sound_telegram_forgot_is_fetched_again(world: World) -> None:
    world.downloader.serve(URL)
    await world.post(URL, audio=True)
    await world.idle()
    world.messenger.fail_next("send_audio", MessengerError(WRONG_FILE_ID, 400))

    await world.post(URL, audio=True)
    await world.idle()

    assert world.downloader.audio_downloads == ["v1", "v1"]
    assert len(audios(world, PRIVATE_CHAT)) == 2


async def test_a_chat_on_480p_gets_its_own_file_and_a_chat_on_best_its_own(world: World) -> None:
    world.downloader.serve(URL, video(URL, format_id="720p", height=720, info_json=ladder_entry()))
    await world.store.save_chat_settings(PRIVATE_CHAT, ChatSettings(max_height=480), NOW)

    await world.post(URL)
    await world.post(URL, chat_id=OTHER_PRIVATE, user_id=OTHER_PRIVATE)
    await world.idle()

    small = await world.store.blob("testsite:v1:480p")
    best = await world.store.blob("testsite:v1:720p")
    assert small is not None
    assert best is not None
    assert videos(world, PRIVATE_CHAT) == [small.file_id]
    assert videos(world, OTHER_PRIVATE) == [best.file_id]
    assert small.height == 480


async def test_the_quality_a_chat_had_when_the_link_came_is_the_one_it_gets(world: World) -> None:
    world.downloader.serve(URL, video(URL, format_id="720p", height=720, info_json=ladder_entry()))
    await world.store.save_chat_settings(PRIVATE_CHAT, ChatSettings(max_height=480), NOW)
    await world.post(URL)

    await world.store.save_chat_settings(PRIVATE_CHAT, ChatSettings(), NOW)
    await world.idle()

    assert (await world.store.blob("testsite:v1:480p")) is not None
    assert (await world.store.blob("testsite:v1:720p")) is None


async def test_a_group_that_chose_no_asking_gets_a_long_video_at_once(world: World) -> None:
    world.downloader.serve(URL, video(URL, duration=25 * 60))
    await world.store.save_chat_settings(GROUP_CHAT, ChatSettings(ask_long_videos=False), NOW)

    await world.post(URL, chat_id=GROUP_CHAT)
    await world.idle()

    assert len(videos(world, GROUP_CHAT)) == 1
    assert await world.store.pinned_keys() == set()


@pytest.mark.parametrize(("chosen", "asks"), [(None, False), (600, True)])
async def test_a_group_asks_first_from_the_length_it_chose(
    world: World, chosen: int | None, asks: bool
) -> None:
    world.downloader.serve(URL, video(URL, duration=700))  # under the default 20 m, over 10 m
    await world.store.save_chat_settings(GROUP_CHAT, ChatSettings(ask_longer_than_seconds=chosen), NOW)

    await world.post(URL, chat_id=GROUP_CHAT)
    await world.idle()

    prompts = [m.text for m in world.messenger.chat(GROUP_CHAT) if m.text]
    assert prompts == (["This video is pretty long (11m), download it anyway?"] if asks else [])
    assert len(videos(world, GROUP_CHAT)) == (0 if asks else 1)


async def test_a_long_sound_in_a_group_is_sent_without_asking(world: World) -> None:
    world.downloader.serve(URL, video(URL, duration=3 * 3600))

    await world.post(URL, chat_id=GROUP_CHAT, user_id=USER, audio=True)
    await world.idle()

    assert len(audios(world, GROUP_CHAT)) == 1
