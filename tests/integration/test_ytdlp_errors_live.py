"""Replays every captured case of tests/unit/fixtures/ytdlp_errors.json with the real yt-dlp.

Scrape cases with an http URL and no extra options go through the adapter (YtDlpDownloader), so
the classes of a 404, 403, 410 and 503 page, a page without video and a refused connection are
asserted end to end; the rest run yt-dlp with the options they were captured with. The class must
hold with any yt-dlp; the exact line is also compared when the yt-dlp is the one that printed it.

All cases run once, four at a time, on their own event loop (a yt-dlp start costs about a second
of CPU); each case is then asserted by its own test.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yt_dlp.version
from returns.result import Failure

from adapters.process import ChildProcesses
from adapters.ytdlp import YtDlpDownloader
from core.classify import FailureKind, classify_ytdlp, error_lines
from ports.media import ToolFailure
from testkit.loopback import free_port
from testkit.video_site import VideoServer

from .conftest import CLIPS_DIR, CLOUD_LIMIT, direct_entry

pytestmark = pytest.mark.slow

FIXTURE = Path(__file__).parents[1] / "unit" / "fixtures" / "ytdlp_errors.json"
_DATA = json.loads(FIXTURE.read_text(encoding="utf-8"))
CAPTURED: list[dict[str, Any]] = [case for case in _DATA["lines"] if case["source"] == "captured"]
_AT_ONCE = 4


@dataclass(frozen=True)
class Replay:
    failure: ToolFailure | None
    expected_line: str


def _key(case: dict[str, Any]) -> str:
    scenario = case["scenario"]
    return (
        f"{'scrape' if 'scrape' in scenario else 'download'}:{scenario.get('scrape') or scenario['download']}"
    )


async def _raw_ytdlp(args: list[str]) -> ToolFailure | None:
    exit_ = await ChildProcesses().run(
        [sys.executable, "-m", "yt_dlp", "--ignore-config", "--no-warnings", *args],
        env=None,
        timeout=60,
        on_stdout=lambda _: None,
        on_stderr=lambda _: None,
    )
    return None if exit_.ok else ToolFailure(exit_.stderr_tail, exit_.exit_code, exit_.signal)


async def _replay(case: dict[str, Any], server: VideoServer, ytdlp: YtDlpDownloader, work: Path) -> Replay:
    scenario = case["scenario"]
    closed_port = free_port()
    extra: list[str] = scenario.get("args", [])
    expected = case["line"].replace("{port}", str(server.port)).replace("{closed_port}", str(closed_port))
    if "scrape" in scenario:
        target = scenario["scrape"]
        url = f"http://127.0.0.1:{closed_port}/video.mp4" if target == "closed-port" else target
        url = server.url(url) if url.startswith("/") else url
        if not extra and url.startswith("http://127.0.0.1"):
            result = await ytdlp.scrape(url, timeout=60)
            return Replay(result.failure() if isinstance(result, Failure) else None, expected)
        return Replay(await _raw_ytdlp([*extra, "--dump-json", "--", url]), expected)
    folder = Path(tempfile.mkdtemp(dir=work))
    info = folder / "info.json"
    info.write_text(json.dumps(direct_entry(server.url(scenario["download"]), "clip")))
    args = [*extra, "--load-info-json", str(info), "-P", str(folder), "-o", "%(id)s.%(ext)s"]
    return Replay(await _raw_ytdlp(args), expected)


async def _replay_all(work: Path) -> dict[str, Replay]:
    ytdlp = YtDlpDownloader(max_filesize_bytes=CLOUD_LIMIT, concurrency=_AT_ONCE)
    slots = asyncio.Semaphore(_AT_ONCE)

    async def one(case: dict[str, Any]) -> Replay:
        async with slots:
            return await _replay(case, server, ytdlp, work)

    async with VideoServer(CLIPS_DIR) as server:
        replays = await asyncio.gather(*(one(case) for case in CAPTURED))
    await ytdlp.shutdown()
    return {_key(case): replay for case, replay in zip(CAPTURED, replays, strict=True)}


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Replay]:
    return asyncio.run(_replay_all(tmp_path_factory.mktemp("replays")))


@pytest.mark.parametrize("case", CAPTURED, ids=_key)
def test_a_captured_failure_still_fails_the_same_way(
    case: dict[str, Any], replays: dict[str, Replay]
) -> None:
    replay = replays[_key(case)]
    failure = replay.failure
    assert failure is not None, "yt-dlp succeeded where the fixture says it fails"
    assert classify_ytdlp(failure).kind is FailureKind(case["kind"]), failure.stderr_tail
    if yt_dlp.version.__version__ == _DATA["yt_dlp_version"]:
        expected = " ".join(error_lines(replay.expected_line + "\n"))
        assert error_lines(failure.stderr_tail)[-1] == expected, failure.stderr_tail
