"""Stored scrape entries decode to exactly what was stored, or to CorruptEntry — never half a value."""

from __future__ import annotations

import json

import pytest

from adapters.sql.info_rows import dump_entries, load_entries
from adapters.sql.json_text import CorruptEntry, dump_json, load_payload, load_urls
from ports.media import VideoInfo

ENTRY = VideoInfo(
    url="https://example.org/v",
    webpage_url="https://example.org/v",
    extractor="generic",
    id="v",
    title="A \udcff title",
    format_id="0",
    ext="mp4",
    info_json="{}",
    duration=12,
    filesize=1_000,
    tbr=800.5,
)


def test_entries_survive_the_round_trip_lone_surrogates_included() -> None:
    assert load_entries(dump_entries([ENTRY, ENTRY])) == [ENTRY, ENTRY]


def _stored(**changes: object) -> str:
    raw = json.loads(dump_entries([ENTRY]))
    raw[0].update(changes)
    return json.dumps(raw)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("not json", "not JSON"),
        ('{"url": "x"}', "not a list"),
        ("[1]", "not an object"),
        (_stored(colour="red"), "unknown fields"),
        (_stored(filesize=True), "'filesize' holds bool"),
        (_stored(duration="12"), "'duration' holds str"),
        (_stored(has_video=None), "'has_video' holds NoneType"),
    ],
)
def test_a_damaged_entry_is_corrupt_and_says_why(text: str, reason: str) -> None:
    with pytest.raises(CorruptEntry, match=reason):
        load_entries(text)


def test_an_entry_missing_a_required_field_is_corrupt() -> None:
    raw = json.loads(dump_entries([ENTRY]))
    del raw[0]["title"]
    with pytest.raises(CorruptEntry, match="missing fields \\['title'\\]"):
        load_entries(json.dumps(raw))


@pytest.mark.parametrize("text", ["[1, 2", "[]", '"x"', "[1]"])
def test_a_damaged_payload_keeps_its_text_for_the_operator(text: str) -> None:
    assert load_payload(text) == {"corrupt_payload": text}


def test_a_payload_round_trips() -> None:
    assert load_payload(dump_json({"url": "https://example.org", "n": [1, None]})) == {
        "url": "https://example.org",
        "n": [1, None],
    }


def test_url_lists_are_lists_of_strings_or_corrupt() -> None:
    assert load_urls(dump_json(["a", "b"])) == ["a", "b"]
    with pytest.raises(CorruptEntry):
        load_urls("[1]")
