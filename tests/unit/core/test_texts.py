from __future__ import annotations

import pytest

from core import texts
from ports.media import Progress, VideoInfo


def info(**overrides: object) -> VideoInfo:
    fields: dict[str, object] = {
        "url": "https://example.com/v",
        "webpage_url": "https://example.com/v",
        "extractor": "generic",
        "id": "v1",
        "title": "A <b>bold</b> & title",
        "format_id": "mp4",
        "ext": "mp4",
        "info_json": "{}",
        "duration": 12.0,
        "filesize": 2_500_000,
        "width": 640,
        "height": 360,
        "vcodec": "avc1.64001e",
        "acodec": "mp4a.40.2",
        "tbr": 1600.0,
    }
    fields.update(overrides)
    return VideoInfo(**fields)  # type: ignore[arg-type]


def test_retry_line_names_the_next_attempt() -> None:
    assert texts.retrying(2, 3) == "\n⚠️ <b>Download failed</b>, retrying (attempt 2 of 3)..."


def test_failure_line_escapes_the_reason() -> None:
    assert texts.failed("HTTP <Error> & co") == "\n💥 <b>Download failed</b>: HTTP &lt;Error&gt; &amp; co"


def test_info_block_escapes_outside_text_and_lists_the_facts() -> None:
    block = texts.video_info(info())
    assert "A &lt;b&gt;bold&lt;/b&gt; &amp; title" in block
    assert "<b>Size:</b> 2.50 MB" in block
    assert "<b>Resolution:</b> 640x360" in block
    assert "avc1.64001e @ 1600 kbps" in block
    assert "<b>bold</b>" not in block


def test_too_large_and_long_video_prompt() -> None:
    assert texts.too_large(73_400_000) == "😞 Video too large (73 MB)"
    assert texts.long_video_prompt(25 * 60) == "This video is pretty long (25m), download it anyway?"
    assert texts.long_video_prompt(3900) == "This video is pretty long (1h 5m), download it anyway?"


@pytest.mark.parametrize(
    ("percent", "bar"),
    [(None, "[░░░░░░░░░░] 0.0%"), (55.0, "[██████░░░░] 55.0%"), (140.0, "[██████████] 100.0%")],
)
def test_progress_bar_is_clamped(percent: float | None, bar: str) -> None:
    assert texts.progress_bar(percent) == bar


def test_progress_line_has_speed_and_eta() -> None:
    line = texts.progress_line(Progress(percent=50.0, speed_bytes=1_500_000, eta_seconds=75))
    assert line == "[█████░░░░░] 50.0% · 1.50 MB/s · ETA 1:15"


def test_caption_prefers_the_title_unless_it_is_only_the_id() -> None:
    assert texts.caption_for(info(title="Nice clip")) == "Nice clip"
    assert texts.caption_for(info(title="v1", playlist_title="The post")) == "The post"
    assert texts.caption_for(info(title="v1.mp4", description="desc")) == "desc"


def test_the_stages_after_the_download_name_themselves() -> None:
    from core.texts import stage_line
    from ports.media import Progress, Stage

    limit = 50 * 1024 * 1024
    assert stage_line(Progress(0.0, None, None, stage=Stage.CONVERT), limit) == "\n🎞 <b>Converting…</b>"
    assert stage_line(Progress(0.0, None, None, stage=Stage.COMPRESS), limit) == (
        "\n📦 <b>Compressing to fit 50 MB…</b>"
    )
    assert stage_line(Progress(10.0, 1.0, 1.0), limit) is None
