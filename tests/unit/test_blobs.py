"""The pure blob rules: naming, "do we have it", when bytes may go, the cap, the sweep plan."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.blobs import (
    ORPHAN_GRACE_SECONDS,
    UNSENT_MAX_AGE_SECONDS,
    blob_file_name,
    blob_key,
    has_blob,
    over_cap_evictions,
    plan_sweep,
    should_drop_bytes,
)
from ports.blobs import BlobFile
from ports.media import VideoInfo
from tests.support.blob_records import NOW, record, sent


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


# Naming ----------------------------------------------------------------------------------------


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


# Do we have it? -------------------------------------------------------------------------------


def test_has_blob_needs_a_file_id_or_the_bytes() -> None:
    assert not has_blob(None, bytes_exist=True)
    assert not has_blob(record(), bytes_exist=False)
    assert has_blob(record(), bytes_exist=True)
    assert has_blob(record(file_id="F", file_name=None), bytes_exist=False)


# When bytes may go ----------------------------------------------------------------------------


def test_sent_bytes_go_at_once_unless_pinned() -> None:
    assert should_drop_bytes(sent("a", NOW), pinned=False, now=NOW)
    assert not should_drop_bytes(sent("a", NOW), pinned=True, now=NOW)


def test_unsent_bytes_go_only_after_a_day_and_only_when_unpinned() -> None:
    young = record(created_at=NOW - UNSENT_MAX_AGE_SECONDS + 1)
    old = record(created_at=NOW - UNSENT_MAX_AGE_SECONDS - 1)
    assert not should_drop_bytes(young, pinned=False, now=NOW)
    assert should_drop_bytes(old, pinned=False, now=NOW)
    assert not should_drop_bytes(old, pinned=True, now=NOW)


def test_nothing_to_drop_when_the_bytes_are_already_gone() -> None:
    assert not should_drop_bytes(record(file_name=None, file_id="F"), pinned=False, now=NOW)


# The disk cap ---------------------------------------------------------------------------------


def test_the_cap_evicts_least_recently_used_sent_bytes_until_it_fits() -> None:
    records = [sent("newest", NOW), sent("oldest", NOW - 30), sent("middle", NOW - 20)]

    evicted = over_cap_evictions(records, pinned=set(), cap_bytes=150)

    assert [r.key for r in evicted] == ["oldest", "middle"]


def test_the_cap_never_evicts_unsent_or_pinned_bytes_even_when_it_cannot_fit() -> None:
    records = [record("unsent", size=1000), sent("pinned", NOW - 100), sent("free", NOW)]

    evicted = over_cap_evictions(records, pinned={"pinned"}, cap_bytes=10)

    assert [r.key for r in evicted] == ["free"]


def test_no_cap_or_a_folder_under_the_cap_evicts_nothing() -> None:
    records = [sent("a", NOW), sent("b", NOW - 1)]
    assert over_cap_evictions(records, set(), cap_bytes=0) == []
    assert over_cap_evictions(records, set(), cap_bytes=200) == []


def test_rows_without_bytes_do_not_count_toward_the_cap() -> None:
    records = [replace(sent("gone", NOW - 50, size=10_000), file_name=None), sent("here", NOW)]
    assert over_cap_evictions(records, set(), cap_bytes=100) == []


# The sweep plan -------------------------------------------------------------------------------


def test_plan_sweep_unlinks_old_orphans_only() -> None:
    files = [
        BlobFile("k.mp4", 100, NOW - 10),
        BlobFile("old-orphan.mp4", 5, NOW - ORPHAN_GRACE_SECONDS - 1),
        BlobFile("fresh-orphan.mp4", 5, NOW - ORPHAN_GRACE_SECONDS + 1),
    ]

    plan = plan_sweep([record("k")], files, NOW)

    assert plan.unlink_names == ("old-orphan.mp4",)
    assert plan.forget_keys == ()


def test_plan_sweep_forgets_rows_whose_bytes_vanished_unless_they_have_a_file_id() -> None:
    records = [record("vanished"), sent("sent-vanished", NOW), record("here")]

    plan = plan_sweep(records, [BlobFile("here.mp4", 100, NOW)], NOW)

    assert plan.forget_keys == ("vanished",)
    assert plan.unlink_names == ()
