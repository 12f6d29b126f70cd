"""Replays every captured case of tests/unit/fixtures/ytdlp_errors.json with the real yt-dlp.

Scrape cases with an http URL and no extra options go through the adapter (YtDlpDownloader), so
the classes of a 404, 403, 410 and 503 page, a page without video and a refused connection are
asserted end to end; the rest run yt-dlp with the options they were captured with. The class must
hold with any yt-dlp; the exact line is also compared when the yt-dlp is the one that printed it
(the last ERROR line, or any of them for a case marked `not_last`).

Cases marked `proxy` run behind the SSRF guard's proxy, which allows the site's port and nothing
else; `private:<path>` is a path on a second server it refuses ({private_port} in the line), and
`/guard/...` are routes that lead there (a redirect, an HLS playlist whose segments live there).
A `fetch` case downloads straight from its URL (an HLS playlist) instead of from an entry.

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

from adapters.net.forward_proxy import ForwardProxy
from adapters.process import ChildProcesses
from adapters.ytdlp import YtDlpDownloader
from core.url_policy import Endpoint, GuardRules
from core.ytdlp_errors import FailureKind, classify_ytdlp, error_lines
from ports.media import ToolFailure
from testkit.loopback import free_port
from testkit.video_site import Redirect, VideoServer
from tests.support.integration import CLIPS_DIR, CLOUD_LIMIT, direct_entry

pytestmark = pytest.mark.slow

FIXTURE = Path(__file__).parents[3] / "unit" / "core" / "fixtures" / "ytdlp_errors.json"
_DATA = json.loads(FIXTURE.read_text(encoding="utf-8"))
CAPTURED: list[dict[str, Any]] = [case for case in _DATA["lines"] if case["source"] == "captured"]
_AT_ONCE = 4


@dataclass(frozen=True)
class Replay:
    failure: ToolFailure | None
    expected_line: str


@dataclass(frozen=True)
class Sites:
    server: VideoServer
    private: VideoServer
    proxy_url: str

    def url(self, target: str) -> str:
        if target.startswith("private:"):
            return self.private.url(target.removeprefix("private:"))
        return self.server.url(target) if target.startswith("/") else target


def _key(case: dict[str, Any]) -> str:
    scenario = case["scenario"]
    verb = next(v for v in ("scrape", "download", "fetch") if v in scenario)
    return f"{verb}:{scenario[verb]}:{' '.join(scenario.get('args', []))}"


async def _raw_ytdlp(args: list[str]) -> ToolFailure | None:
    exit_ = await ChildProcesses().run(
        [sys.executable, "-m", "yt_dlp", "--ignore-config", "--no-warnings", *args],
        env=None,
        timeout=60,
        on_stdout=lambda _: None,
        on_stderr=lambda _: None,
    )
    return None if exit_.ok else ToolFailure(exit_.stderr_tail, exit_.exit_code, exit_.signal)


async def _replay(case: dict[str, Any], sites: Sites, ytdlp: YtDlpDownloader, work: Path) -> Replay:
    scenario = case["scenario"]
    closed_port = free_port()
    extra: list[str] = scenario.get("args", [])
    if scenario.get("proxy"):
        extra = ["--proxy", sites.proxy_url, *extra]
    expected = (
        case["line"]
        .replace("{port}", str(sites.server.port))
        .replace("{closed_port}", str(closed_port))
        .replace("{private_port}", str(sites.private.port))
    )
    folder = Path(tempfile.mkdtemp(dir=work))
    if "scrape" in scenario:
        target = scenario["scrape"]
        url = sites.url(f"http://127.0.0.1:{closed_port}/video.mp4" if target == "closed-port" else target)
        if not extra and url.startswith("http://127.0.0.1"):
            result = await ytdlp.scrape(url, timeout=60)
            return Replay(result.failure() if isinstance(result, Failure) else None, expected)
        return Replay(await _raw_ytdlp([*extra, "--dump-json", "--", url]), expected)
    output = ["-P", str(folder), "-o", "%(id)s.%(ext)s"]
    if "fetch" in scenario:
        return Replay(await _raw_ytdlp([*extra, *output, "--", sites.url(scenario["fetch"])]), expected)
    info = folder / "info.json"
    info.write_text(json.dumps(direct_entry(sites.url(scenario["download"]), "clip")))
    return Replay(await _raw_ytdlp([*extra, "--load-info-json", str(info), *output]), expected)


async def _guard_routes(server: VideoServer, private: VideoServer) -> None:
    server.set_route("/guard/redirect", Redirect(private.url("/clips/short.mp4")))
    server.set_route("/guard/redirect-https", Redirect(f"https://127.0.0.1:{private.port}/clips/short.mp4"))
    await server.add_hls("/guard/hls", segments_base=private.base_url)
    await private.add_hls("/guard/hls")


async def _replay_all(work: Path) -> dict[str, Replay]:
    ytdlp = YtDlpDownloader(max_filesize_bytes=CLOUD_LIMIT, concurrency=_AT_ONCE)
    slots = asyncio.Semaphore(_AT_ONCE)

    async def one(case: dict[str, Any]) -> Replay:
        async with slots:
            return await _replay(case, sites, ytdlp, work)

    async with VideoServer(CLIPS_DIR) as server, VideoServer(CLIPS_DIR) as private:
        await _guard_routes(server, private)
        proxy = ForwardProxy(GuardRules([Endpoint("127.0.0.1", server.port)]))
        sites = Sites(server, private, (await proxy.session()).url)
        replays = await asyncio.gather(*(one(case) for case in CAPTURED))
        await proxy.aclose()
        assert private.requests == [], "a request got past the guard's proxy"
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
        printed = error_lines(failure.stderr_tail)
        assert expected in (printed if case["scenario"].get("not_last") else printed[-1:]), (
            failure.stderr_tail
        )
