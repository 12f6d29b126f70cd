"""A video past the upload limit at any watchable bitrate, through the shared delivery path: cut into
parts, sent as albums, each part's file_id kept for the next time; refused beyond the cap."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from returns.result import Success

from core.blob_names import blob_file_name, part_key
from core.jobs.outcome import Deferred
from core.media.blob_service import BlobService
from core.media.part_blobs import BlobParts
from core.media.playable import PlayableDownloads
from core.work.delivery.album_plan import albums_of
from core.work.delivery.albums import Albums
from core.work.delivery.destination import Album, Outgoing
from core.work.delivery.video import Delivery
from ports.media import ToolFailure, VideoInfo
from ports.messenger import AlbumItem, MessengerError, SentVideo, StoredVideo, VideoFile
from tests.support.clock import VirtualClock
from tests.support.delivery import Recording
from tests.support.downloader import ScriptedDownloader, video
from tests.support.media import H264_AAC, RecordingTranscoder, ScriptedProber
from tests.support.messenger import WRONG_FILE_ID
from tests.support.world import WORLD_ENV, faked_container

URL = "https://videos.example/watch/1"
KEY = "testsite:v1:18"
LIMIT = 1000
MAX_PARTS = 3
LONG = video(URL, duration=600.0)
"""Ten minutes in 1000 bytes: no bitrate anybody would watch."""


class AlbumChat(Recording):
    """A chat that takes albums, and writes down each one it was sent."""

    def __init__(self, *, hold_longer_than: float | None = None) -> None:
        super().__init__(hold_longer_than=hold_longer_than)
        self.albums: list[list[tuple[str, str | None]]] = []
        self.refuse_stored = False
        self.asked_turns: list[Outgoing] = []

    @property
    def takes_albums(self) -> bool:
        return True

    def not_before(self, outgoing: Outgoing) -> float | None:  # type: ignore[override]
        self.asked_turns.append(outgoing)
        return self.busy_until

    async def send_album(self, videos: Sequence[AlbumItem]) -> list[SentVideo]:
        if self.refuse_stored and any(isinstance(v, StoredVideo) for v, _ in videos):
            raise MessengerError(WRONG_FILE_ID, 400)
        shown = [
            (v.file_id if isinstance(v, StoredVideo) else f"upload {v.path.read_bytes()!r}", m.caption)
            for v, m in videos
        ]
        self.albums.append(shown)
        self.calls.append(f"album of {len(videos)}")
        return [
            SentVideo(
                n, v.file_id if isinstance(v, StoredVideo) else f"F-{v.path.read_bytes()[:1]!r}-{n}", f"U{n}"
            )
            for n, (v, _) in enumerate(videos, 1)
        ]


class Rig:
    def __init__(self, clock: VirtualClock, tmp_path: Path) -> None:
        container = faked_container(clock, tmp_path, **WORLD_ENV)
        self.store = container.store()
        self.files = container.blob_files()
        self.downloader: ScriptedDownloader = container.downloader()
        self.prober = ScriptedProber()
        self.transcoder = RecordingTranscoder(self.prober)
        self.blobs = BlobService(self.store, self.files, self.store, clock, self.prober)
        self.parts = BlobParts(
            self.blobs, self.transcoder, upload_limit_bytes=LIMIT, max_parts=MAX_PARTS, cut_timeout=60
        )
        playable = PlayableDownloads(
            self.downloader,
            self.prober,
            self.transcoder,
            upload_limit_bytes=LIMIT,
            max_parts=MAX_PARTS,
            transcode_timeout=60,
        )
        self.delivery = Delivery(
            guard=container.guard(),
            info=container.info(),
            blobs=self.blobs,
            parts=self.parts,
            albums=Albums(blobs=self.blobs, thumbnails=None, clock=clock),
            downloader=playable,
            thumbnails=None,
            clock=clock,
            upload_limit_bytes=LIMIT,
            max_download_bytes=0,
            max_parts=MAX_PARTS,
            ytdlp_timeout_seconds=60,
        )

    def serve(self, content: bytes, info: VideoInfo = LONG) -> None:
        """yt-dlp downloads `content`, which ffprobe reads as a ten-minute H.264/AAC MP4."""
        self.downloader.content[info.id] = content
        probe = replace(H264_AAC, duration=info.duration)
        self.prober.script(f"{info.id}.mp4", probe)
        self.prober.script(blob_file_name(KEY, "mp4"), probe)

    async def deliver(self, to: AlbumChat, info: VideoInfo = LONG) -> object:
        return await self.delivery.deliver(info, to, to)


@pytest.fixture
def rig(clock: VirtualClock, tmp_path: Path) -> Rig:
    return Rig(clock, tmp_path)


async def test_a_video_no_bitrate_fits_arrives_as_one_album_of_captioned_parts(rig: Rig) -> None:
    rig.serve(b"a" * 900 + b"b" * 900 + b"c" * 600)  # 2400 bytes: three parts of 800
    chat = AlbumChat()

    assert await rig.deliver(chat) == Success(None)

    [album] = chat.albums
    assert [caption for _, caption in album] == ["Part 1/3", "Part 2/3", "Part 3/3"]
    assert all(shown.startswith("upload") for shown, _ in album)
    assert chat.calls[-3:] == ["album of 3", "sent 2400", "delivered F-b'a'-1"]
    assert rig.transcoder.plans == []  # cut, not re-encoded
    assert chat.asked_turns == [Album(3)]  # the chat's pacing counts the three messages


async def test_each_part_keeps_its_file_id_and_no_bytes_are_left(rig: Rig) -> None:
    rig.serve(b"x" * 2400)
    await rig.deliver(AlbumChat())

    records = [await rig.store.blob(part_key(KEY, i, 3)) for i in (1, 2, 3)]
    assert [(r.file_id, r.file_name) for r in records if r is not None] == [
        ("F-b'x'-1", None),
        ("F-b'x'-2", None),
        ("F-b'x'-3", None),
    ]
    assert await rig.store.blob(KEY) is None  # the whole file went once its parts held the video
    assert list(rig.files.blob_dir.iterdir()) == []


async def test_a_repeat_sends_the_parts_by_file_id_without_a_download(rig: Rig) -> None:
    rig.serve(b"x" * 2400)
    await rig.deliver(AlbumChat())
    again = AlbumChat()

    assert await rig.deliver(again) == Success(None)

    assert again.albums == [[("F-b'x'-1", "Part 1/3"), ("F-b'x'-2", "Part 2/3"), ("F-b'x'-3", "Part 3/3")]]
    assert "downloading" not in again.calls
    assert rig.downloader.downloads == ["v1"]
    assert len(rig.transcoder.cuts) == 1


async def test_parts_whose_file_ids_telegram_refuses_are_fetched_and_cut_again(rig: Rig) -> None:
    rig.serve(b"x" * 2400)
    await rig.deliver(AlbumChat())
    stale = AlbumChat()
    stale.refuse_stored = True

    assert await rig.deliver(stale) == Success(None)

    assert rig.downloader.downloads == ["v1", "v1"]
    assert all(shown.startswith("upload") for shown, _ in stale.albums[-1])
    assert stale.calls.count("unsent") == 1


async def test_a_cut_that_leaves_a_part_over_the_limit_is_made_again_with_one_part_more(rig: Rig) -> None:
    rig.serve(b"x" * 1900)  # 1900 bytes: three parts at first
    rig.transcoder.part_sizes.append([LIMIT + 1, 500, 399])  # a long keyframe interval in part 1
    chat = AlbumChat()

    # Three parts is already the cap here: nothing left to try after the first cut.
    assert await rig.deliver(chat) == Success(None)

    assert chat.calls[-2:] == ["ending", "too large 1900"]
    assert chat.albums == []
    assert list(rig.files.blob_dir.iterdir()) == []


async def test_a_part_over_the_limit_is_cut_again_into_more_parts_within_the_cap(rig: Rig) -> None:
    rig.serve(b"x" * 1700)  # two parts at first
    rig.transcoder.part_sizes.append([LIMIT + 1, 699])
    rig.transcoder.part_sizes.append([600, 600, 500])
    chat = AlbumChat()

    assert await rig.deliver(chat) == Success(None)

    assert len(rig.transcoder.cuts) == 2
    assert rig.transcoder.cuts[1] < rig.transcoder.cuts[0]
    assert [caption for _, caption in chat.albums[0]] == ["Part 1/3", "Part 2/3", "Part 3/3"]
    assert await rig.store.blob(part_key(KEY, 1, 2)) is None  # the first cut's parts are gone


async def test_a_video_that_would_take_more_parts_than_allowed_is_refused_before_a_byte(rig: Rig) -> None:
    chat = AlbumChat()
    announced = 4 * LIMIT

    assert await rig.deliver(chat, replace(LONG, filesize=announced)) == Success(None)

    assert chat.calls[-2:] == ["ending", f"too large {announced} in more than {MAX_PARTS} parts"]
    assert rig.downloader.downloads == []


async def test_where_no_album_can_go_a_video_to_cut_is_too_large(rig: Rig) -> None:
    rig.serve(b"x" * 2400)
    one_video_only = Recording()  # takes_albums is not offered: an inline placeholder's case

    assert await rig.delivery.deliver(LONG, one_video_only, one_video_only) == Success(None)

    assert one_video_only.calls[-2:] == ["ending", "too large 2400"]
    assert rig.transcoder.cuts == []


async def test_a_busy_chat_defers_the_album_and_keeps_the_parts_for_its_turn(
    rig: Rig, clock: VirtualClock
) -> None:
    rig.serve(b"x" * 2400)
    chat = AlbumChat()
    chat.busy_until = clock.now() + 40

    assert await rig.deliver(chat) == Success(Deferred(clock.now() + 40))
    chat.busy_until = None
    assert await rig.deliver(chat) == Success(None)

    assert rig.downloader.downloads == ["v1"]
    assert len(rig.transcoder.cuts) == 1
    assert len(chat.albums) == 1


@pytest.mark.parametrize(
    ("parts", "albums"),
    [(2, [2]), (10, [10]), (11, [6, 5]), (20, [10, 10]), (21, [7, 7, 7])],
)
def test_parts_are_shared_evenly_over_as_few_albums_as_ten_a_piece_allow(
    parts: int, albums: list[int]
) -> None:
    assert [len(a) for a in albums_of(parts)] == albums
    assert [i for a in albums_of(parts) for i in a] == list(range(parts))


async def test_a_videos_turn_is_asked_for_a_single_file(rig: Rig) -> None:
    rig.serve(b"x" * 500)
    chat = AlbumChat()

    await rig.deliver(chat)

    assert isinstance(chat.asked_turns[0], VideoFile)


async def test_a_file_ffmpeg_cannot_cut_is_too_large_and_leaves_nothing_behind(rig: Rig) -> None:
    rig.serve(b"x" * 2400)
    rig.transcoder.failures.append(ToolFailure("ERROR: ffmpeg could not cut the video into parts\n", 1))
    chat = AlbumChat()

    assert await rig.deliver(chat) == Success(None)

    assert chat.calls[-2:] == ["ending", "too large 2400"]
    assert list(rig.files.blob_dir.iterdir()) == []


async def test_two_chats_at_once_share_one_download_and_one_cut(rig: Rig, clock: VirtualClock) -> None:
    rig.serve(b"x" * 2400)
    rig.downloader.slow["v1"] = 2.0  # long enough for the second chat to join the download
    first, second = AlbumChat(), AlbumChat()

    one = asyncio.create_task(rig.deliver(first))
    two = asyncio.create_task(rig.deliver(second))
    await clock.run_until(lambda: one.done() and two.done())

    assert (one.result(), two.result()) == (Success(None), Success(None))
    assert rig.downloader.downloads == ["v1"]
    assert len(rig.transcoder.cuts) == 1
    assert len(first.albums) == len(second.albums) == 1
    assert list(rig.files.blob_dir.iterdir()) == []


async def test_a_long_video_whose_length_only_the_bytes_told_is_held_before_it_is_cut(rig: Rig) -> None:
    unknown_length = replace(LONG, duration=None)
    rig.serve(b"x" * 2400, unknown_length)
    for name in ("v1.mp4", blob_file_name(KEY, "mp4")):  # ffprobe reads the length off the bytes
        rig.prober.script(name, replace(H264_AAC, duration=600.0))
    chat = AlbumChat(hold_longer_than=300)

    assert await rig.deliver(chat, unknown_length) == Success(None)

    assert chat.calls[-1] == f"hold 600.0 {KEY}"  # asked with the bytes kept for the answer
    assert rig.transcoder.cuts == []
    assert chat.albums == []
