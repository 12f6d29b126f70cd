"""Thumbnails: a frame a little into the video, in a staging folder that is gone after the upload."""

from __future__ import annotations

from pathlib import Path

from adapters.filesystem.blob_files import LocalBlobFiles
from core.media.thumbnails import Thumbnails, frame_at
from tests.support.media import RecordingTranscoder, ScriptedProber


def test_the_frame_is_a_tenth_in_but_never_later_than_five_seconds() -> None:
    assert (frame_at(None), frame_at(0.0), frame_at(20.0), frame_at(600.0)) == (0.0, 0.0, 2.0, 5.0)


async def test_the_thumbnail_lives_only_while_the_upload_does(tmp_path: Path) -> None:
    files = LocalBlobFiles(tmp_path / "data")
    transcoder = RecordingTranscoder(ScriptedProber())
    video = tmp_path / "v.mp4"
    video.write_bytes(b"video")

    async with Thumbnails(transcoder, files).of(video, 20.0) as thumb:
        assert thumb is not None
        assert thumb.read_bytes().startswith(b"\xff\xd8\xff")
        folder = thumb.parent

    assert not folder.exists()
    assert transcoder.thumbnails == ["v.mp4"]


async def test_no_frame_means_no_thumbnail_and_no_leftover(tmp_path: Path) -> None:
    files = LocalBlobFiles(tmp_path / "data")
    async with Thumbnails(RecordingTranscoder(ScriptedProber()), files).of(
        tmp_path / "gone.mp4", 3.0
    ) as thumb:
        assert thumb is None
    assert list((tmp_path / "data").rglob("*.jpg")) == []
