"""The pure media decisions: does a probed file play everywhere, and what compression fits a limit."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.media.fit import (
    MIN_VIDEO_KBPS,
    SizeLimits,
    SizeVerdict,
    fit_plan,
    tighter,
    verdict_before_download,
)
from core.media.playback import playback_plan
from ports.media import MediaProbe
from ports.transcoder import StreamAction, TranscodePlan

MP4 = "mov,mp4,m4a,3gp,3g2,mj2"
MB = 1024 * 1024
CLOUD = SizeLimits(upload_bytes=50 * MB, download_bytes=200 * MB)


def probe(video: str | None = "h264", audio: str | None = "aac", **changes: object) -> MediaProbe:
    fields: dict[str, object] = {
        "duration": 10.0,
        "width": 640,
        "height": 360,
        "video_codec": video,
        "pix_fmt": "yuv420p",
        "bit_depth": 8,
        "audio_codec": audio,
        "container": MP4,
    }
    fields.update(changes)
    return MediaProbe(**fields)  # type: ignore[arg-type]


# Playable everywhere -----------------------------------------------------------------------------


@pytest.mark.parametrize("audio", ["aac", "mp3", None])
def test_h264_in_mp4_is_sent_as_it_is(audio: str | None) -> None:
    assert playback_plan(probe(audio=audio)) is None


@pytest.mark.parametrize("video", ["vp9", "av1", "hevc", "mpeg4", "vp8"])
def test_other_video_codecs_are_encoded(video: str) -> None:
    plan = playback_plan(probe(video=video, audio="opus"))
    assert plan == TranscodePlan(StreamAction.ENCODE, StreamAction.ENCODE, audio_kbps=128)
    assert plan.video_kbps is None  # a constant quality, not a bitrate


def test_ten_bit_or_4_4_4_h264_is_encoded() -> None:
    assert playback_plan(probe(pix_fmt="yuv420p10le", bit_depth=10)) is not None
    assert playback_plan(probe(pix_fmt="yuv444p")) is not None
    assert playback_plan(probe(bit_depth=10)) is not None


def test_right_streams_in_the_wrong_container_are_only_remuxed() -> None:
    plan = playback_plan(probe(container="matroska,webm"))
    assert plan == TranscodePlan(StreamAction.COPY, StreamAction.COPY, audio_kbps=128)
    assert plan is not None
    assert not plan.reencodes


def test_only_the_wrong_stream_is_encoded() -> None:
    assert playback_plan(probe(audio="opus")) == TranscodePlan(StreamAction.COPY, StreamAction.ENCODE)
    vp9_aac = playback_plan(probe(video="vp9"))
    assert vp9_aac is not None
    assert (vp9_aac.video, vp9_aac.audio) == (StreamAction.ENCODE, StreamAction.COPY)


def test_a_silent_vp9_has_no_audio_made_up() -> None:
    plan = playback_plan(probe(video="vp9", audio=None, container="matroska,webm"))
    assert plan is not None
    assert plan.audio is StreamAction.DROP


def test_nothing_to_judge_is_left_alone() -> None:
    assert playback_plan(None) is None
    assert playback_plan(probe(video=None, audio="opus", container="ogg")) is None


# Compress to fit ---------------------------------------------------------------------------------


def test_a_64_mb_clip_of_20_seconds_fits_50_mb_at_full_height() -> None:
    plan = fit_plan(20.0, 50 * MB, source_height=240, has_audio=True)
    assert plan is not None
    assert plan.video is StreamAction.ENCODE
    assert plan.audio is StreamAction.ENCODE
    assert plan.max_height is None  # 240p is already below what the bitrate allows
    total_bits = (plan.video_kbps or 0) * 1000 * 20 + plan.audio_kbps * 1000 * 20
    assert 0.85 * 50 * MB < total_bits / 8 < 50 * MB


def test_a_long_video_is_scaled_down_to_what_its_bitrate_carries() -> None:
    plan = fit_plan(600.0, 50 * MB, source_height=1080, has_audio=True)  # ~580 kbps of video
    assert plan is not None
    assert plan.max_height == 480
    assert MIN_VIDEO_KBPS <= (plan.video_kbps or 0) < 700


def test_below_the_watchable_bitrate_there_is_no_plan() -> None:
    # 50 MB over 25 minutes leaves ~190 kbps of video after 64 kbps of sound.
    assert fit_plan(1500.0, 50 * MB, source_height=720, has_audio=True) is None
    assert fit_plan(None, 50 * MB, source_height=720, has_audio=True) is None


def test_a_silent_video_gives_the_sound_share_to_the_picture() -> None:
    # At 1250 s, the video alone has ~300 kbps: watchable only without a sound track.
    assert fit_plan(1250.0, 50 * MB, 720, has_audio=True) is None
    silent = fit_plan(1250.0, 50 * MB, 720, has_audio=False)
    assert silent is not None
    assert silent.audio is StreamAction.DROP


@given(
    duration=st.floats(min_value=0.5, max_value=10 * 3600),
    limit=st.integers(min_value=1 * MB, max_value=2000 * MB),
    height=st.one_of(st.none(), st.integers(min_value=16, max_value=4320)),
)
def test_every_plan_aims_under_the_limit_and_stays_watchable(
    duration: float, limit: int, height: int | None
) -> None:
    plan = fit_plan(duration, limit, height, has_audio=True)
    if plan is None:
        return
    assert (plan.video_kbps or 0) >= MIN_VIDEO_KBPS
    assert ((plan.video_kbps or 0) + plan.audio_kbps) * 1000 * duration / 8 <= limit * 0.95
    assert plan.max_height is None or height is None or plan.max_height < height


def test_an_overshoot_asks_for_less_next_time_until_it_is_no_longer_watchable() -> None:
    plan = fit_plan(20.0, 50 * MB, 240, has_audio=True)
    assert plan is not None
    assert plan.video_kbps is not None
    second = tighter(plan, produced_bytes=52 * MB, limit_bytes=50 * MB)
    assert second is not None
    assert second.video_kbps is not None
    assert second.video_kbps < plan.video_kbps * 0.92
    floor = TranscodePlan(StreamAction.ENCODE, StreamAction.ENCODE, video_kbps=MIN_VIDEO_KBPS)
    assert tighter(floor, produced_bytes=51 * MB, limit_bytes=50 * MB) is None


# Before the download -----------------------------------------------------------------------------


def test_an_unknown_or_small_size_is_fetched() -> None:
    assert verdict_before_download(None, None, None, CLOUD) is SizeVerdict.FITS
    assert verdict_before_download(50 * MB, 30.0, 720, CLOUD) is SizeVerdict.FITS


def test_over_the_limit_with_a_watchable_bitrate_is_compressed() -> None:
    assert verdict_before_download(64 * MB, 20.0, 240, CLOUD) is SizeVerdict.COMPRESS
    assert verdict_before_download(64 * MB, None, None, CLOUD) is SizeVerdict.COMPRESS


def test_over_the_download_cap_or_unwatchable_is_too_large_before_any_byte() -> None:
    assert verdict_before_download(201 * MB, 20.0, 240, CLOUD) is SizeVerdict.TOO_LARGE
    assert verdict_before_download(100 * MB, 1500.0, 720, CLOUD) is SizeVerdict.TOO_LARGE


def test_a_download_cap_below_the_upload_limit_refuses_what_would_fit() -> None:
    capped = SizeLimits(upload_bytes=50 * MB, download_bytes=1 * MB)
    assert verdict_before_download(4 * MB, 60.0, 360, capped) is SizeVerdict.TOO_LARGE
    assert verdict_before_download(1 * MB, 60.0, 360, capped) is SizeVerdict.FITS


def test_unwatchable_at_any_bitrate_is_cut_into_parts_when_few_enough_are_allowed() -> None:
    eight = SizeLimits(upload_bytes=50 * MB, download_bytes=400 * MB, max_parts=8)
    assert verdict_before_download(100 * MB, 1500.0, 720, eight) is SizeVerdict.PARTS
    assert verdict_before_download(64 * MB, 20.0, 240, eight) is SizeVerdict.COMPRESS  # compressing wins
    # 380 MB takes 9 parts of 45 MB: one more than allowed, refused before a byte
    assert verdict_before_download(380 * MB, 9000.0, 720, eight) is SizeVerdict.TOO_MANY_PARTS
    assert verdict_before_download(401 * MB, 9000.0, 720, eight) is SizeVerdict.TOO_LARGE  # the cap
