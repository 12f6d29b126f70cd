"""Replays every captured case of tests/unit/fixtures/ytdlp_errors.json with the real yt-dlp.

Scrape cases with an http URL and no extra options go through the adapter (YtDlpDownloader), so
the classes of a 404, 403, 410 and 503 page, a page without video and a refused connection are
asserted end to end; the rest run yt-dlp with the options they were captured with. The class must
hold with any yt-dlp; the exact line is also compared when the yt-dlp is the one that printed it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yt_dlp.version
from returns.result import Failure

from adapters.ytdlp import YtDlpDownloader
from adapters.ytdlp.process import ChildProcesses
from core.classify import FailureKind, classify_ytdlp, error_lines
from entrypoints.testkit.video_server import VideoServer, free_port
from ports.media import ToolFailure

from .conftest import direct_entry

pytestmark = pytest.mark.slow

FIXTURE = Path(__file__).parents[1] / "unit" / "fixtures" / "ytdlp_errors.json"
_DATA = json.loads(FIXTURE.read_text(encoding="utf-8"))
CAPTURED = [case for case in _DATA["lines"] if case["source"] == "captured"]


def _id(case: dict[str, Any]) -> str:
    scenario = case["scenario"]
    return (
        f"{'scrape' if 'scrape' in scenario else 'download'}:{scenario.get('scrape') or scenario['download']}"
    )


def _url(server: VideoServer, target: str, closed_port: int) -> str:
    if target == "closed-port":
        return f"http://127.0.0.1:{closed_port}/video.mp4"
    return server.url(target) if target.startswith("/") else target


async def _raw_ytdlp(args: list[str]) -> ToolFailure:
    exit_ = await ChildProcesses().run(
        [sys.executable, "-m", "yt_dlp", "--ignore-config", "--no-warnings", *args],
        env=None,
        timeout=60,
        on_stdout=lambda _: None,
        on_stderr=lambda _: None,
    )
    assert not exit_.ok, "yt-dlp succeeded where the fixture says it fails"
    return ToolFailure(exit_.stderr_tail, exit_.exit_code, exit_.signal)


@pytest.mark.parametrize("case", CAPTURED, ids=_id)
async def test_a_captured_failure_still_fails_the_same_way(
    case: dict[str, Any], ytdlp: YtDlpDownloader, video_server: VideoServer, tmp_path: Path
) -> None:
    scenario = case["scenario"]
    closed_port = free_port()
    extra: list[str] = scenario.get("args", [])
    if "scrape" in scenario:
        url = _url(video_server, scenario["scrape"], closed_port)
        if not extra and url.startswith("http://127.0.0.1"):
            result = await ytdlp.scrape(url, timeout=60)
            assert isinstance(result, Failure), result
            failure = result.failure()
        else:
            failure = await _raw_ytdlp([*extra, "--dump-json", "--", url])
    else:
        url = video_server.url(scenario["download"])
        info = direct_entry(url, "clip")
        (tmp_path / "info.json").write_text(json.dumps(info))
        failure = await _raw_ytdlp(
            [
                *extra,
                "--load-info-json",
                str(tmp_path / "info.json"),
                "-P",
                str(tmp_path),
                "-o",
                "%(id)s.%(ext)s",
            ]
        )

    assert classify_ytdlp(failure).kind is FailureKind(case["kind"]), failure.stderr_tail
    if yt_dlp.version.__version__ == _DATA["yt_dlp_version"]:
        expected = case["line"].replace("{port}", str(video_server.port))
        expected = expected.replace("{closed_port}", str(closed_port))
        assert error_lines(failure.stderr_tail)[-1] == " ".join(error_lines(expected + "\n")), (
            failure.stderr_tail
        )
