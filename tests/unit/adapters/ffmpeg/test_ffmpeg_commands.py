"""The ffmpeg command lines built from a plan, and the reading of its -progress output."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.ffmpeg.commands import split_args, transcode_args
from adapters.ffmpeg.progress import ProgressReader
from adapters.ffmpeg.thumbnail_command import thumbnail_args
from ports.transcoder import StreamAction, TranscodePlan

SRC, DST = Path("/s/-in.webm"), Path("/s/out.mp4")


def args(plan: TranscodePlan, duration: float | None = 60.0) -> list[str]:
    return transcode_args(SRC, DST, plan, preset="veryfast", crf=23, duration=duration)


def after(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


def test_files_are_named_with_the_file_protocol_so_a_name_is_never_an_option() -> None:
    argv = args(TranscodePlan(StreamAction.COPY, StreamAction.COPY))
    assert after(argv, "-i") == "file:/s/-in.webm"
    assert argv[-1] == "file:/s/out.mp4"
    assert "-nostdin" in argv


def test_a_remux_copies_both_streams_into_a_faststart_mp4() -> None:
    argv = args(TranscodePlan(StreamAction.COPY, StreamAction.COPY))
    assert (after(argv, "-c:v"), after(argv, "-c:a")) == ("copy", "copy")
    assert (after(argv, "-movflags"), after(argv, "-f")) == ("+faststart", "mp4")
    assert "libx264" not in argv


def test_a_conversion_is_constant_quality_h264_yuv420p_and_aac() -> None:
    argv = args(TranscodePlan(StreamAction.ENCODE, StreamAction.ENCODE, audio_kbps=128))
    assert (after(argv, "-c:v"), after(argv, "-pix_fmt"), after(argv, "-crf")) == ("libx264", "yuv420p", "23")
    assert (after(argv, "-c:a"), after(argv, "-b:a")) == ("aac", "128k")
    assert after(argv, "-vf") == "scale=trunc(iw/2)*2:trunc(ih/2)*2"
    assert "-b:v" not in argv


def test_a_compression_holds_the_rate_with_a_buffer_bounded_by_the_duration() -> None:
    plan = TranscodePlan(
        StreamAction.ENCODE, StreamAction.ENCODE, video_kbps=1000, audio_kbps=64, max_height=720
    )
    long, short = args(plan, duration=600.0), args(plan, duration=10.0)
    assert (after(long, "-b:v"), after(long, "-maxrate"), after(long, "-bufsize")) == (
        "1000k",
        "1000k",
        "2000k",
    )
    assert after(short, "-bufsize") == "500k"
    assert after(long, "-vf") == "scale=-2:trunc(min(ih\\,720)/2)*2"
    assert "-crf" not in long


def test_a_silent_video_gets_no_audio_stream() -> None:
    argv = args(TranscodePlan(StreamAction.ENCODE, StreamAction.DROP))
    assert "-an" in argv
    assert "0:a:0" not in argv


def test_progress_goes_to_stdout_as_key_values() -> None:
    argv = args(TranscodePlan(StreamAction.COPY, StreamAction.COPY))
    assert after(argv, "-progress") == "pipe:1"


def test_a_thumbnail_is_one_frame_at_most_320_px_a_side() -> None:
    argv = thumbnail_args(SRC, Path("/s/t.jpg"), 2.5)
    assert (after(argv, "-ss"), after(argv, "-frames:v")) == ("2.500", "1")
    assert "min(320\\,iw)" in after(argv, "-vf")
    assert argv[-1] == "file:/s/t.jpg"


def feed(reader: ProgressReader, *lines: str) -> None:
    for line in lines:
        reader.line(line)


def test_a_cut_copies_the_streams_into_faststart_mp4_parts_starting_at_zero() -> None:
    argv = split_args(SRC, Path("/s/-parts"), 722.5)
    assert after(argv, "-i") == "file:/s/-in.webm"
    assert argv[-1] == "file:/s/-parts/part%03d.mp4"
    assert (after(argv, "-c"), after(argv, "-f"), after(argv, "-segment_time")) == (
        "copy",
        "segment",
        "722.500",
    )
    assert after(argv, "-reset_timestamps") == "1"
    assert after(argv, "-segment_format_options") == "movflags=+faststart"
    assert "0:a:0?" in argv  # a silent video is cut too


def test_progress_is_the_time_written_against_the_duration() -> None:
    seen: list[float] = []
    reader = ProgressReader(10.0, seen.append)
    feed(
        reader, "frame=10", "out_time_us=N/A", "progress=continue", "out_time_us=4200000", "progress=continue"
    )
    feed(reader, "out_time_us=12000000", "progress=continue", "progress=end")
    assert seen == pytest.approx([42.0, 100.0, 100.0])


def test_an_unknown_duration_reports_only_the_end() -> None:
    seen: list[float] = []
    feed(ProgressReader(None, seen.append), "out_time_us=4200000", "progress=continue", "progress=end")
    assert seen == [100.0]
