"""A chat that chose "send as file", over in-process fakes on virtual time: the bytes as downloaded
go as a document, kept by a file_id of their own; one too large to go as it is comes as a video."""

from __future__ import annotations

from core.blob_names import blob_key, file_key
from core.work.delivery.document_names import document_name
from ports.chat_settings import ChatSettings
from tests.support.downloader import video
from tests.support.world import PRIVATE_CHAT, World

URL = "https://videos.example/watch/1"
NOW = 1_700_000_000.0
OTHER_PRIVATE = 1077
FILE_KEY = file_key(blob_key(video(URL)))


def documents(world: World, chat: int) -> list[str]:
    return [m.document for m in world.messenger.chat(chat) if m.document]


def videos(world: World, chat: int) -> list[str]:
    return [m.video for m in world.messenger.chat(chat) if m.video]


async def as_file(world: World, chat: int = PRIVATE_CHAT) -> None:
    await world.store.save_chat_settings(chat, ChatSettings(as_file=True), NOW)


async def test_a_chat_that_chose_files_gets_the_downloaded_bytes_as_a_document(world: World) -> None:
    world.downloader.serve(URL, video(URL, title="A clip: the cut / uncut"))
    await as_file(world)

    message_id = await world.post(URL)
    await world.idle()

    [sent] = [m for m in world.messenger.chat(PRIVATE_CHAT) if m.document]
    assert sent.reply_to == message_id
    assert sent.document_meta is not None
    assert (sent.document_meta.file_name, sent.document_meta.caption) == ("A clip the cut uncut.mp4", None)
    assert sent.document_meta.thumbnail is not None  # a frame of the video, uploaded with it
    assert videos(world, PRIVATE_CHAT) == []
    record = await world.store.blob(FILE_KEY)
    assert record is not None
    assert (record.file_id, record.file_name) == (sent.document, None)  # kept by id, the bytes gone


async def test_a_second_ask_goes_by_the_documents_file_id_and_a_video_is_never_it(world: World) -> None:
    world.downloader.serve(URL)
    await as_file(world)
    await world.post(URL)
    await world.idle()

    await world.post(URL)
    await world.post(URL, chat_id=OTHER_PRIVATE, user_id=OTHER_PRIVATE)  # a chat on videos
    await world.idle()

    first, again = documents(world, PRIVATE_CHAT)
    assert again == first
    [other] = videos(world, OTHER_PRIVATE)
    assert other != first
    assert world.downloader.downloads == ["v1", "v1"]  # the file once, the video once


async def test_a_document_file_id_telegram_refuses_is_forgotten_and_the_file_sent_again(world: World) -> None:
    world.downloader.serve(URL)
    await as_file(world)
    await world.post(URL)
    await world.idle()
    [first] = documents(world, PRIVATE_CHAT)
    del world.messenger.file_ids[next(k for k, v in world.messenger.file_ids.items() if v == first)]

    await world.post(URL)
    await world.idle()

    assert documents(world, PRIVATE_CHAT) == [first, first]  # the same bytes uploaded again
    assert world.downloader.downloads == ["v1", "v1"]


async def test_a_file_announced_over_the_limit_comes_as_a_video_made_to_fit(world: World) -> None:
    world.downloader.serve(URL, video(URL, filesize=world.settings.upload_limit_bytes + 1))
    await as_file(world)

    await world.post(URL)
    await world.idle()

    assert documents(world, PRIVATE_CHAT) == []
    assert len(videos(world, PRIVATE_CHAT)) == 1
    assert world.downloader.downloads == ["v1"]  # never fetched as a file


def test_a_documents_name_is_its_title_without_what_a_file_system_refuses() -> None:
    assert document_name(video(URL, title='a/b\\c:d*e?"f"<g>|h\x00i'), ".webm") == "a b c d e f g h i.webm"
    assert document_name(video(URL, title="x" * 100), ".mp4") == "x" * 64 + ".mp4"
    assert document_name(video(URL, title="  "), ".mkv") == "v1.mkv"
