"""How a video is named: its blob key per site and format, and a file name that never leaves the folder."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.blob_names import blob_file_name, blob_key, part_key
from ports.media import VideoInfo


def info(**changes: object) -> VideoInfo:
    base = VideoInfo(
        url="https://www.youtube.com/shorts/abc",
        webpage_url="https://www.youtube.com/watch?v=abc",
        extractor="youtube",
        id="abc",
        title="t",
        format_id="18",
        ext="mp4",
        info_json="{}",
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def test_blob_key_is_extractor_id_format() -> None:
    assert blob_key(info(extractor="Youtube ")) == "youtube:abc:18"


@pytest.mark.parametrize(
    "changes", [{"extractor": "generic"}, {"extractor": "HTML5"}, {"extractor": ""}, {"id": ""}]
)
def test_blob_key_of_a_generic_or_anonymous_video_uses_the_webpage_url(changes: dict[str, str]) -> None:
    assert blob_key(info(**changes)) == "generic:https://www.youtube.com/watch?v=abc:18"


def test_two_urls_of_one_video_share_one_key() -> None:
    assert blob_key(info(url="https://youtu.be/abc")) == blob_key(
        info(url="https://m.youtube.com/watch?v=abc")
    )


def test_different_formats_are_different_blobs() -> None:
    assert blob_key(info(format_id="18")) != blob_key(info(format_id="22"))


def test_blob_file_name_is_the_sha256_of_the_key_with_a_clean_extension() -> None:
    digest = hashlib.sha256(b"youtube:abc:18").hexdigest()
    assert blob_file_name("youtube:abc:18", "MP4") == f"{digest}.mp4"
    assert blob_file_name("youtube:abc:18", "../../x/sh") == f"{digest}.xsh"
    assert blob_file_name("youtube:abc:18", "") == f"{digest}.mp4"
    assert blob_file_name("youtube:abc:18", "a" * 40) == f"{digest}.{'a' * 8}"


@given(st.text(), st.text())
def test_blob_file_name_never_leaves_the_folder_whatever_the_key_and_ext(key: str, ext: str) -> None:
    name = blob_file_name(key, ext)
    stem, _, suffix = name.partition(".")
    assert len(stem) == 64
    assert all(c in "0123456789abcdef" for c in stem)
    assert suffix
    assert suffix.isalnum()
    assert suffix.isascii()


def test_a_parts_key_names_the_video_the_part_and_the_cut() -> None:
    whole = blob_key(info())
    assert part_key(whole, 2, 3) == f"{whole}#part=2/3"
    assert part_key(whole, 1, 2) != part_key(whole, 1, 3)  # two cuts never share a part
    entry = blob_key(info(entry=2))
    assert part_key(entry, 1, 2) == f"{entry}#part=1/2"
    assert not part_key(entry, 1, 2).startswith(blob_key(info(entry=20)))
