"""LocalBlobFiles against the real filesystem."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adapters.filesystem.blob_files import LocalBlobFiles
from ports.errors import BlobFilesError

HOSTILE_NAMES = [
    "",
    ".",
    "..",
    "../escape.mp4",
    "a/b.mp4",
    "..\\x.mp4",
    "/etc/passwd",
    "nul\0.mp4",
    "x" * 300,
]


@pytest.fixture
def files(tmp_path: Path) -> LocalBlobFiles:
    return LocalBlobFiles(tmp_path / "data")


async def _staged(files: LocalBlobFiles, content: bytes = b"video bytes", label: str = "job") -> Path:
    folder = await files.new_staging(label)
    produced = folder / "clip [id].mp4"
    produced.write_bytes(content)
    return produced


async def test_move_in_puts_the_bytes_under_blobs_and_leaves_the_staging_file_gone(
    files: LocalBlobFiles, tmp_path: Path
) -> None:
    produced = await _staged(files, b"0123456789")

    path = await files.move_in(produced, "abc.mp4")

    assert path == tmp_path / "data" / "blobs" / "abc.mp4"
    assert path.read_bytes() == b"0123456789"
    assert not produced.exists()
    assert await files.size_of("abc.mp4") == 10
    assert files.path_of("abc.mp4") == path


async def test_move_in_restarts_the_file_age_so_the_orphan_grace_counts_from_arrival(
    files: LocalBlobFiles,
) -> None:
    produced = await _staged(files)
    os.utime(produced, (1_000_000.0, 1_000_000.0))  # a server's Last-Modified from long ago

    await files.move_in(produced, "old.mp4")

    [listed] = await files.listing()
    assert listed.modified_at > 1_000_000.0 + 3600


async def test_move_in_replaces_an_existing_blob_of_the_same_name(files: LocalBlobFiles) -> None:
    await files.move_in(await _staged(files, b"first"), "same.mp4")
    await files.move_in(await _staged(files, b"second!"), "same.mp4")

    assert files.path_of("same.mp4").read_bytes() == b"second!"


async def test_move_in_refuses_a_file_outside_the_staging_folder(
    files: LocalBlobFiles, tmp_path: Path
) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("keep me")

    with pytest.raises(BlobFilesError):
        await files.move_in(outside, "stolen.mp4")

    assert outside.read_text() == "keep me"
    assert await files.listing() == []


async def test_move_in_refuses_a_staged_symlink(files: LocalBlobFiles, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("keep me")
    folder = await files.new_staging("job")
    (folder / "link.mp4").symlink_to(outside)

    with pytest.raises(BlobFilesError):
        await files.move_in(folder / "link.mp4", "stolen.mp4")

    assert outside.exists()
    assert await files.listing() == []


@pytest.mark.parametrize("name", HOSTILE_NAMES)
async def test_a_hostile_name_never_reaches_the_disk(
    files: LocalBlobFiles, tmp_path: Path, name: str
) -> None:
    victim = tmp_path / "data" / "escape.mp4"
    victim.parent.mkdir(parents=True, exist_ok=True)
    victim.write_text("outside the blob folder")
    produced = await _staged(files)

    for attempt in (
        lambda: files.move_in(produced, name),
        lambda: files.size_of(name),
        lambda: files.unlink(name),
    ):
        with pytest.raises(BlobFilesError):
            await attempt()
    with pytest.raises(BlobFilesError):
        files.path_of(name)

    assert victim.read_text() == "outside the blob folder"
    assert produced.exists()


async def test_unlink_is_true_once_and_false_when_already_gone(files: LocalBlobFiles) -> None:
    await files.move_in(await _staged(files), "gone.mp4")

    assert await files.unlink("gone.mp4") is True
    assert await files.unlink("gone.mp4") is False
    assert await files.size_of("gone.mp4") is None


async def test_listing_reports_name_size_and_mtime_of_regular_files_only(files: LocalBlobFiles) -> None:
    await files.move_in(await _staged(files, b"abc"), "a.mp4")
    await files.move_in(await _staged(files, b"abcdef"), "b.webm")
    (files.blob_dir / "a-folder").mkdir()
    os.utime(files.path_of("a.mp4"), (2_000_000.0, 2_000_000.0))

    listed = {f.name: f for f in await files.listing()}

    assert set(listed) == {"a.mp4", "b.webm"}
    assert listed["a.mp4"].size == 3
    assert listed["b.webm"].size == 6
    assert listed["a.mp4"].modified_at == 2_000_000.0


async def test_listing_and_size_of_an_absent_blob_folder_are_empty(files: LocalBlobFiles) -> None:
    assert await files.listing() == []
    assert await files.size_of("nothing.mp4") is None
    assert await files.unlink("nothing.mp4") is False


async def test_new_staging_gives_fresh_empty_folders_named_by_a_sanitized_label(
    files: LocalBlobFiles, tmp_path: Path
) -> None:
    first = await files.new_staging("abc123")
    second = await files.new_staging("abc123")
    hostile = await files.new_staging("../../etc/")

    assert first != second
    for folder in (first, second, hostile):
        assert folder.is_dir()
        assert folder.parent == tmp_path / "data" / "staging"
        assert list(folder.iterdir()) == []
    assert first.name.startswith("abc123-")
    assert hostile.name.startswith("etc-")


async def test_remove_staging_removes_the_folder_and_its_contents_and_tolerates_a_gone_one(
    files: LocalBlobFiles,
) -> None:
    folder = await files.new_staging("job")
    (folder / "part.mp4.part").write_bytes(b"partial")
    (folder / "nested").mkdir()
    (folder / "nested" / "frag").write_bytes(b"x")

    await files.remove_staging(folder)
    await files.remove_staging(folder)

    assert not folder.exists()


async def test_remove_staging_refuses_a_folder_outside_staging(files: LocalBlobFiles, tmp_path: Path) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "file").write_text("keep")

    with pytest.raises(BlobFilesError):
        await files.remove_staging(precious)
    with pytest.raises(BlobFilesError):
        await files.remove_staging(files.staging_dir / ".." / "blobs")

    assert (precious / "file").read_text() == "keep"


async def test_clear_staging_removes_every_staging_folder_but_keeps_blobs(files: LocalBlobFiles) -> None:
    await files.move_in(await _staged(files), "kept.mp4")
    folders = [await files.new_staging(f"dead{n}") for n in range(3)]
    (folders[0] / "half.part").write_bytes(b"...")

    leftovers = len(list(files.staging_dir.iterdir()))  # the three, plus the emptied one of kept.mp4

    assert await files.clear_staging() == leftovers == 4

    assert list(files.staging_dir.iterdir()) == []
    assert [f.name for f in await files.listing()] == ["kept.mp4"]
    assert await files.clear_staging() == 0


async def test_a_filesystem_error_surfaces_as_blob_files_error(files: LocalBlobFiles, tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "staging").write_text("a file where the folder should be")

    with pytest.raises(BlobFilesError):
        await files.new_staging("job")
