"""InfoCache contract: entries under the requested URL and every canonical alias, TTL, eviction."""

from __future__ import annotations

import pytest

from ports.media import VideoInfo
from ports.store import Store
from tests.contract.conftest import NOW, StoreKit

SHORT = "https://youtu.be/abc"
LONG = "https://www.youtube.com/watch?v=abc"
CANONICAL = "https://www.youtube.com/watch?v=abc&canonical"


def entry(**changes: object) -> VideoInfo:
    fields: dict[str, object] = {
        "url": SHORT,
        "webpage_url": CANONICAL,
        "extractor": "youtube",
        "id": "abc",
        "title": "A <b>title</b> with émoji 🎬",
        "format_id": "18",
        "ext": "mp4",
        "info_json": '{"id": "abc"}',
        "duration": 212.5,
        "filesize": 1_234_567,
        "width": 640,
        "height": 360,
        "vcodec": "avc1.42001E",
        "acodec": "mp4a.40.2",
        "tbr": 500.25,
        "playlist_title": None,
        "description": "line\nline",
        "has_video": True,
    }
    fields.update(changes)
    return VideoInfo(**fields)  # type: ignore[arg-type]


async def test_entries_are_cached_under_the_url_and_its_canonical_urls(store: Store) -> None:
    entries = [entry(), entry(id="def", webpage_url="", has_video=False, duration=None, tbr=None)]

    await store.cache_info([SHORT], entries, NOW)

    assert await store.cached_info(SHORT, NOW) == entries
    assert await store.cached_info(CANONICAL, NOW) == entries
    assert await store.cached_info(LONG, NOW) is None


async def test_an_empty_scrape_is_cached_as_empty(store: Store) -> None:
    await store.cache_info([SHORT], [], NOW)

    assert await store.cached_info(SHORT, NOW) == []


async def test_entries_older_than_fresh_after_are_a_miss(store: Store) -> None:
    await store.cache_info([SHORT], [entry()], NOW)

    assert await store.cached_info(SHORT, NOW) == [entry()]
    assert await store.cached_info(SHORT, NOW + 0.5) is None


async def test_evicting_a_url_evicts_every_alias_sharing_its_canonical_url(store: Store) -> None:
    await store.cache_info([SHORT], [entry()], NOW)
    await store.cache_info([LONG], [entry(url=LONG)], NOW)
    await store.cache_info(["https://vimeo.com/1"], [entry(webpage_url="https://vimeo.com/1")], NOW)

    await store.evict_info(SHORT)

    assert await store.cached_info(SHORT, NOW) is None
    assert await store.cached_info(CANONICAL, NOW) is None
    assert await store.cached_info(LONG, NOW) is None
    assert await store.cached_info("https://vimeo.com/1", NOW) is not None


async def test_evicting_an_unknown_url_is_harmless(store: Store) -> None:
    await store.cache_info([SHORT], [entry()], NOW)

    await store.evict_info("https://unknown.example/x")

    assert await store.cached_info(SHORT, NOW) == [entry()]


async def test_sweep_forgets_old_entries(store: Store) -> None:
    await store.cache_info([SHORT], [entry()], NOW)
    await store.cache_info(["https://vimeo.com/1"], [entry(webpage_url="")], NOW + 100)

    assert await store.sweep_info(NOW + 50) == 2  # SHORT and its canonical alias
    assert await store.cached_info(SHORT, 0) is None
    assert await store.cached_info("https://vimeo.com/1", 0) is not None


@pytest.mark.parametrize(
    "garbage",
    [
        "not json {",
        '{"url": "x"}',
        "[1, 2]",
        '[{"url": "x"}]',
        '[{"url": 1, "webpage_url": "", "extractor": "", "id": "", "title": "", "format_id": "",'
        ' "ext": "", "info_json": ""}]',
        '[{"url": "x", "webpage_url": "", "extractor": "", "id": "", "title": "", "format_id": "",'
        ' "ext": "", "info_json": "", "surprise": 1}]',
        '[{"url": "x", "webpage_url": "", "extractor": "", "id": "", "title": "", "format_id": "",'
        ' "ext": "", "info_json": "", "duration": "long"}]',
    ],
    ids=["bad-json", "object", "numbers", "missing-fields", "wrong-type", "unknown-field", "bad-duration"],
)
async def test_a_corrupt_entry_is_discarded_and_reported_as_a_miss(kit: StoreKit, garbage: str) -> None:
    if kit.corrupt_info is None:
        pytest.skip("the memory store keeps live objects: nothing can be corrupted")
    await kit.store.cache_info([SHORT], [entry()], NOW)
    await kit.corrupt_info(SHORT, garbage)

    assert await kit.store.cached_info(SHORT, NOW) is None
    assert await kit.store.sweep_info(NOW + 1) == 1  # the corrupt row is gone; its alias remains
    assert await kit.store.cached_info(CANONICAL, NOW) is None


async def test_a_missing_optional_field_takes_its_default(kit: StoreKit) -> None:
    if kit.corrupt_info is None:
        pytest.skip("the memory store keeps live objects: nothing is decoded")
    await kit.store.cache_info([SHORT], [entry()], NOW)
    minimal = (
        '[{"url": "x", "webpage_url": "", "extractor": "e", "id": "i", "title": "t", "format_id": "f",'
        ' "ext": "mp4", "info_json": "{}", "duration": 3}]'
    )
    await kit.corrupt_info(SHORT, minimal)

    assert await kit.store.cached_info(SHORT, NOW) == [
        VideoInfo("x", "", "e", "i", "t", "f", "mp4", "{}", duration=3)
    ]
