"""TelegramMessenger's albums and documents: parts uploaded in one sendMediaGroup with their
captions and thumbnails, sent again by file_id; a file kept a file; kinds never mixed up; an
album paced as the messages it is."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from aiogram.methods import SendMediaGroup
from aiogram.types import InputMediaVideo

from adapters.telegram.flood import messages_in, turn_of
from adapters.telegram.messenger import TelegramMessenger
from adapters.telegram.pacing import ChatPacer, PacingPolicy
from ports.messenger import (
    DocumentFile,
    DocumentMeta,
    StoredDocument,
    StoredVideo,
    VideoFile,
    VideoMeta,
)
from ports.pacing import Turn
from testkit.telegram import FakeBotApi
from tests.support.clock import VirtualClock
from tests.support.people import ALICE, GROUP, PRIVATE
from tests.support.telegram_bots import refused, sha256, tiny_jpeg


def parts(folder: Path, count: int) -> list[Path]:
    made = []
    for index in range(count):
        path = folder / f"part{index}.mp4"
        path.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes([index]) * 500)
        made.append(path)
    return made


async def test_an_album_uploads_every_part_with_its_caption_and_thumbnail_in_one_call(
    api: FakeBotApi, messenger: TelegramMessenger, tmp_path: Path
) -> None:
    asked = api.send_text(PRIVATE, ALICE, "https://example.com/long")
    thumb = tmp_path / "thumb.jpg"
    thumb.write_bytes(tiny_jpeg(160, 120))
    files = parts(tmp_path, 3)
    items = [
        (VideoFile(p), VideoMeta(duration=60, width=160, height=120, caption=f"Part {i}/3", thumbnail=thumb))
        for i, p in enumerate(files, 1)
    ]

    sent = await messenger.send_album(PRIVATE.id, items, reply_to=asked)

    [album] = api.albums(PRIVATE.id)
    assert [v.sha256 for v in album] == [sha256(p) for p in files]
    assert [v.caption for v in album] == ["Part 1/3", "Part 2/3", "Part 3/3"]
    assert all(v.reply_to == asked and v.silent and v.supports_streaming for v in album)
    assert all(v.thumbnail is not None and v.thumbnail.valid for v in album)
    assert [(s.message_id, s.file_id) for s in sent] == [(v.message_id, v.file_id) for v in album]
    assert len(api.calls_of("sendMediaGroup")) == 1


async def test_an_album_goes_again_by_file_ids_without_an_upload(
    api: FakeBotApi, messenger: TelegramMessenger, tmp_path: Path
) -> None:
    first = await messenger.send_album(PRIVATE.id, [(VideoFile(p), VideoMeta()) for p in parts(tmp_path, 2)])

    again = await messenger.send_album(GROUP.id, [(StoredVideo(s.file_id), VideoMeta()) for s in first])

    assert [s.file_id for s in again] == [s.file_id for s in first]
    assert [v.source for v in api.albums(GROUP.id)[0]] == ["file_id", "file_id"]
    assert api.calls_of("sendMediaGroup")[-1].files == {}


async def test_a_wrong_file_id_in_an_album_is_telegrams_wrong_file_identifier(
    api: FakeBotApi, messenger: TelegramMessenger, tmp_path: Path
) -> None:
    [first, _] = await messenger.send_album(
        PRIVATE.id, [(VideoFile(p), VideoMeta()) for p in parts(tmp_path, 2)]
    )
    api.forget_file(first.file_id)

    error = await refused(messenger.send_album(PRIVATE.id, [(StoredVideo(first.file_id), VideoMeta())] * 2))

    assert (error.code, error.description) == (400, "Bad Request: wrong file identifier/HTTP URL specified")


async def test_a_document_is_the_files_own_bytes_kept_a_file(
    api: FakeBotApi, messenger: TelegramMessenger, clip: Path
) -> None:
    asked = api.send_text(PRIVATE, ALICE, "https://example.com/v")

    sent = await messenger.send_document(
        PRIVATE.id, DocumentFile(clip), DocumentMeta(caption="A <b>title</b>"), reply_to=asked
    )
    again = await messenger.send_document(GROUP.id, StoredDocument(sent.file_id), DocumentMeta())

    first, reused = api.documents()
    assert first.file.sha256 == sha256(clip)
    assert (first.file.file_name, first.caption, first.reply_to) == ("clip.mp4", "A title", asked)
    assert not first.content_type_detection
    assert (reused.source, again.file_id) == ("file_id", sent.file_id)
    assert api.videos() == []


async def test_a_video_and_a_document_of_the_same_bytes_are_never_each_other(
    messenger: TelegramMessenger, clip: Path
) -> None:
    video = await messenger.send_video(PRIVATE.id, VideoFile(clip), VideoMeta())
    document = await messenger.send_document(PRIVATE.id, DocumentFile(clip), DocumentMeta())

    as_document = await refused(
        messenger.send_document(PRIVATE.id, StoredDocument(video.file_id), DocumentMeta())
    )
    as_video = await refused(messenger.send_video(PRIVATE.id, StoredVideo(document.file_id), VideoMeta()))

    assert video.file_id != document.file_id
    assert as_document.description == "Bad Request: can't use file of type Video as Document"
    assert as_video.description == "Bad Request: can't use file of type Document as Video"


def test_an_album_is_a_videos_turn_and_counts_a_message_per_item() -> None:
    album = SendMediaGroup(chat_id=5, media=[InputMediaVideo(media="a"), InputMediaVideo(media="b")])

    assert turn_of(album) is Turn.VIDEO
    assert messages_in(album) == 2


async def test_an_album_takes_its_items_share_of_a_groups_minute(clock: VirtualClock) -> None:
    pacer = ChatPacer(clock, PacingPolicy())
    await pacer.acquire(GROUP.id, Turn.VIDEO, count=3)
    for _ in range(17):
        await clock.advance(1)
        await pacer.acquire(GROUP.id, Turn.VIDEO)
    await clock.advance(3)  # the chat's own bucket is full again: only the minute holds it back

    assert pacer.wait_seconds(GROUP.id, Turn.VIDEO) == pytest.approx(61 - 20)  # 3 + 17 = 20 sent


async def test_an_album_longer_than_a_burst_goes_and_the_chat_owes_the_rest(clock: VirtualClock) -> None:
    pacer = ChatPacer(clock, PacingPolicy())
    await asyncio.wait_for(pacer.acquire(PRIVATE.id, Turn.VIDEO, count=8), 1)  # a full bucket of 3

    assert pacer.wait_seconds(PRIVATE.id, Turn.VIDEO) == pytest.approx(6.0)
