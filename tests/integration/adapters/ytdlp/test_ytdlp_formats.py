"""Scraped entries → VideoInfo, and the best format that fits the upload limit.

The first tests are pure (entries shaped like yt-dlp's --dump-json); the last one hands the
chosen format back to the real yt-dlp and checks which bytes arrive.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from adapters.ytdlp import YtDlpDownloader
from adapters.ytdlp.entries import choose_format, parse_entries, to_video_info
from testkit.video_site import VideoServer
from tests.support.integration import direct_entry

MB = 1024 * 1024


def fmt(format_id: str, vcodec: str, acodec: str, size: int | None, **extra: Any) -> dict[str, Any]:
    return {
        "format_id": format_id,
        "vcodec": vcodec,
        "acodec": acodec,
        "filesize": size,
        "ext": "mp4",
        **extra,
    }


def entry_with(formats: list[dict[str, Any]], picked: list[dict[str, Any]]) -> dict[str, Any]:
    """An entry as yt-dlp writes it: `formats` worst to best, the pick merged at the top level."""
    sizes = [f["filesize"] for f in picked]
    return {
        "id": "abc",
        "title": "A title",
        "extractor": "youtube",
        "webpage_url": "https://www.youtube.com/watch?v=abc",
        "duration": 61.5,
        "formats": formats,
        "requested_formats": picked if len(picked) > 1 else None,
        "format_id": "+".join(f["format_id"] for f in picked),
        "filesize_approx": sum(sizes) if None not in sizes else None,
        "ext": "mp4",
        **{k: picked[0].get(k) for k in ("width", "height", "vcodec")},
    }


SMALL_V = fmt("134", "avc1.4d401e", "none", 9 * MB, width=640, height=360, tbr=500.0)
BIG_V = fmt("137", "avc1.640028", "none", 80 * MB, width=1920, height=1080, tbr=4000.0)
AUDIO_LOW = fmt("139", "none", "mp4a.40.5", 1 * MB, tbr=48.0)
AUDIO = fmt("140", "none", "mp4a.40.2", 3 * MB, tbr=128.0)
ADAPTIVE = entry_with([AUDIO_LOW, AUDIO, SMALL_V, BIG_V], [BIG_V, AUDIO])


def test_a_pick_within_the_limit_is_kept() -> None:
    choice = choose_format(ADAPTIVE, 2000 * MB)
    assert (choice.format_id, choice.size) == ("137+140", 83 * MB)


def test_a_pick_over_the_limit_gives_way_to_the_best_fitting_combination() -> None:
    info = to_video_info("https://youtu.be/abc", ADAPTIVE, json.dumps(ADAPTIVE), 50 * MB)
    assert info.format_id == "134+140"
    assert info.filesize == 12 * MB
    assert (info.width, info.height, info.vcodec, info.acodec) == (640, 360, "avc1.4d401e", "mp4a.40.2")
    assert info.tbr == 628.0


def test_a_tight_limit_takes_the_smaller_audio_too() -> None:
    assert choose_format(ADAPTIVE, 10 * MB).format_id == "134+139"


def test_when_nothing_fits_a_modest_format_within_the_cap_is_fetched_to_be_compressed() -> None:
    choice = choose_format(ADAPTIVE, 5 * MB, 200 * MB)
    assert (choice.format_id, choice.size) == ("134+140", 12 * MB)  # 360p, not the 1080p pick


def test_when_nothing_modest_is_within_the_cap_the_smallest_within_it_is_fetched() -> None:
    uhd = fmt("401", "avc1", "none", 120 * MB, height=2160)
    entry = entry_with([AUDIO, BIG_V, uhd], [uhd, AUDIO])
    assert choose_format(entry, 5 * MB, 100 * MB).format_id == "137+140"


def test_when_nothing_is_within_the_cap_the_pick_stays_and_its_size_says_too_large() -> None:
    choice = choose_format(ADAPTIVE, 5 * MB, 9 * MB)
    assert (choice.format_id, choice.size) == ("137+140", 83 * MB)


def hls(format_id: str, tbr: float, height: int, acodec: str = "mp4a.40.2") -> dict[str, Any]:
    """An HLS variant as yt-dlp lists it: a declared bitrate, no size."""
    return {
        **fmt(format_id, "avc1.42c014", acodec, None, tbr=tbr, height=height),
        "protocol": "m3u8_native",
        "manifest_url": "https://cdn.example/master.m3u8",
    }


def test_manifest_variants_are_sized_by_bitrate_and_duration_and_the_fitting_one_is_chosen() -> None:
    low, high = hls("145", 145.2, 120), hls("8000", 8000.0, 1080)
    entry = {**entry_with([low, high], [high]), **high, "duration": 65.0, "filesize_approx": None}
    choice = choose_format(entry, 50 * MB)
    assert choice.format_id == "145"
    assert choice.size == int(145.2 * 1000 / 8 * 65)
    assert choose_format(entry, 70 * MB).format_id == "8000"  # 65 MB estimated: it fits 70


def test_a_separate_audio_track_without_a_bitrate_counts_as_128_kbps() -> None:
    video = {**hls("v1", 1000.0, 720, acodec="none")}
    audio = {**fmt("aud", "none", "mp4a.40.2", None), "protocol": "m3u8_native"}
    entry = {**entry_with([audio, video], [video, audio]), "duration": 100.0, "filesize_approx": None}
    choice = choose_format(entry, 50 * MB)
    assert choice.size == int((1000 + 128) * 1000 / 8 * 100)


def test_dash_without_a_duration_is_timed_by_its_fragments() -> None:
    fragments = [{"path": "init.m4s"}, *({"path": f"{n}.m4s", "duration": 2.0} for n in range(30))]
    video = {**fmt("0", "avc1", "none", None, tbr=400.0, height=240), "fragments": fragments}
    audio = {**fmt("2", "none", "mp4a.40.2", None, tbr=32.0), "fragments": fragments}
    entry = {**entry_with([audio, video], [video, audio]), "duration": None, "filesize_approx": None}
    info = to_video_info("https://x/manifest.mpd", entry, json.dumps(entry), 50 * MB)
    assert info.duration == 60.0
    assert info.filesize == int(432 * 1000 / 8 * 60)


def test_progressive_formats_compete_too() -> None:
    low = fmt("18", "avc1.42001E", "mp4a.40.2", 20 * MB, height=360)
    high = fmt("22", "avc1.64001F", "mp4a.40.2", 70 * MB, height=720)
    entry = entry_with([low, high], [high])
    entry["filesize"] = 70 * MB
    assert choose_format(entry, 50 * MB).format_id == "18"


def test_unknown_sizes_keep_the_pick() -> None:
    entry = entry_with(
        [fmt("a", "avc1", "mp4a", None), fmt("b", "avc1", "mp4a", None)], [fmt("b", "avc1", "mp4a", None)]
    )
    choice = choose_format(entry, 1)
    assert (choice.format_id, choice.size) == ("b", None)


def test_drm_and_unsafe_format_ids_are_never_chosen() -> None:
    drm = fmt("drm", "avc1", "mp4a", 1 * MB, has_drm=True)
    odd = fmt("a/b", "avc1", "mp4a", 1 * MB)
    big = fmt("big", "avc1", "mp4a", 90 * MB)
    entry = entry_with([drm, odd, big], [big])
    assert choose_format(entry, 50 * MB).format_id == "big"


def test_every_field_of_video_info_is_filled() -> None:
    entry = {**ADAPTIVE, "playlist_title": "Playlist", "description": "words"}
    info = to_video_info("https://youtu.be/abc", entry, "{raw}", 2000 * MB)
    assert info.url == "https://youtu.be/abc"
    assert info.webpage_url == "https://www.youtube.com/watch?v=abc"
    assert (info.extractor, info.id, info.title, info.ext) == ("youtube", "abc", "A title", "mp4")
    assert info.info_json == "{raw}"
    assert info.duration == 61.5
    assert (info.width, info.height) == (1920, 1080)
    assert (info.playlist_title, info.description, info.has_video) == ("Playlist", "words", True)


def test_audio_only_and_image_entries_have_no_video() -> None:
    audio = {
        "id": "s",
        "title": "s",
        "extractor": "generic",
        "format_id": "mpeg",
        "ext": "mp3",
        "vcodec": "none",
    }
    image = {"id": "p", "title": "p", "extractor": "generic", "format_id": "0", "ext": "jpg"}
    infos = parse_entries("https://x/post", [json.dumps(audio), json.dumps(image)], 50 * MB)
    assert [(i.id, i.has_video) for i in infos] == [("s", False), ("p", False)]


def test_non_json_stdout_lines_are_skipped() -> None:
    good = json.dumps({"id": "v", "title": "t", "extractor": "generic", "format_id": "0", "ext": "mp4"})
    infos = parse_entries("https://x/v", ["", "[info] noise", "{broken", "[1, 2]", good], 50 * MB)
    assert [i.id for i in infos] == ["v"]


async def test_the_fitting_format_is_the_one_yt_dlp_downloads(
    ytdlp: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    short, medium = video_server.clip("short"), video_server.clip("medium")
    url = video_server.url("/formats")
    entry = direct_entry(url, "multi")
    entry["formats"] = [
        {**fmt("small", "avc1", "mp4a", short.stat().st_size), "url": video_server.url("/clips/short.mp4")},
        {**fmt("big", "avc1", "mp4a", medium.stat().st_size), "url": video_server.url("/clips/medium.mp4")},
    ]
    entry |= {"format_id": "big", "filesize": medium.stat().st_size}
    info = to_video_info(url, entry, json.dumps(entry), max_filesize=100_000)
    assert (info.format_id, info.filesize) == ("small", short.stat().st_size)

    path = (await ytdlp.download(info, staging, timeout=60)).unwrap()

    assert hashlib.sha256(path.read_bytes()).digest() == hashlib.sha256(short.read_bytes()).digest()
    assert video_server.hits("/clips/medium.mp4") == 0
