"""The testkit's ffmpeg runs: a failure says what could not be made and ffmpeg's own words."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from testkit.clips import ensure_made
from testkit.ffmpeg import run_ffmpeg

pytestmark = pytest.mark.slow


async def test_a_failing_run_names_what_and_quotes_ffmpeg(tmp_path: Path) -> None:
    missing = tmp_path / "missing.mp4"
    with pytest.raises(RuntimeError, match=r"ffmpeg could not make a thing: .*missing\.mp4"):
        await run_ffmpeg(
            ["-nostdin", "-v", "error", "-i", str(missing), str(tmp_path / "out.mp4")], "make a thing"
        )


async def test_a_failed_make_leaves_neither_the_target_nor_its_partial(tmp_path: Path) -> None:
    def args(output: Path) -> list[str]:
        return ["-nostdin", "-v", "error", "-i", str(tmp_path / "missing.mp4"), str(output)]

    with pytest.raises(RuntimeError, match="ffmpeg could not make the clip"):
        await ensure_made(tmp_path, "clip.mp4", args, "the clip")
    assert os.listdir(tmp_path) == []


async def test_a_made_file_is_made_once(tmp_path: Path) -> None:
    runs: list[Path] = []

    def args(output: Path) -> list[str]:
        runs.append(output)
        return ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=c=black:s=16x16:d=0.1", str(output)]

    first = await ensure_made(tmp_path, "still.mp4", args, "a still")
    again = await ensure_made(tmp_path, "still.mp4", args, "a still")
    assert first == again == tmp_path / "still.mp4"
    assert first.stat().st_size > 0
    assert len(runs) == 1
