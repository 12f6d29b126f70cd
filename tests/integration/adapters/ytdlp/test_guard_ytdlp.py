"""Real yt-dlp (and the ffmpeg it starts) behind the guard's proxy.

Two loopback sites: `site` is on the allowlist (its port), `private` is not. Whatever leads from
the site to the private one — a redirect, an HLS playlist whose segments live there, a format URL
— must not produce a single request there, and the run must fail for good with the reason.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import stat
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from returns.result import Failure, Success

from adapters.net.forward_proxy import ForwardProxy
from adapters.net.proxy_session import ProxySession
from adapters.ytdlp import YtDlpDownloader
from adapters.ytdlp.locator import YtDlpCommand, YtDlpLocator
from core.url_policy import Endpoint, GuardRules
from core.ytdlp_errors import FailureKind, Verdict, classify_ytdlp
from ports.media import ToolFailure, VideoInfo
from testkit.video_site import Redirect, Stall, VideoServer
from tests.support.integration import CLIPS_DIR, CLOUD_LIMIT, direct_info, wait_until

pytestmark = pytest.mark.slow

REFUSED = Verdict(FailureKind.REFUSED, "refused: the link leads to a private address (127.0.0.1)")


class RecordingProxy(ForwardProxy):
    """The real proxy, keeping each session it hands out so a test can read its secret."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.sessions: list[ProxySession] = []

    async def session(self) -> ProxySession:
        session = await super().session()
        self.sessions.append(session)
        return session


@dataclass
class Guarded:
    site: VideoServer
    private: VideoServer
    proxy: RecordingProxy
    ytdlp: YtDlpDownloader


@pytest.fixture
async def guarded() -> AsyncIterator[Guarded]:
    async with VideoServer(CLIPS_DIR) as site, VideoServer(CLIPS_DIR) as private:
        proxy = RecordingProxy(GuardRules([Endpoint("127.0.0.1", site.port)]))
        ytdlp = YtDlpDownloader(max_filesize_bytes=CLOUD_LIMIT, kill_grace_seconds=1.0, proxy=proxy)
        try:
            yield Guarded(site, private, proxy, ytdlp)
        finally:
            await ytdlp.shutdown()
            await proxy.aclose()


def _refusal(result: object) -> ToolFailure:
    assert isinstance(result, Failure), result
    failure = result.failure()
    assert isinstance(failure, ToolFailure)
    return failure


def _copy(info: VideoInfo, info_json: str) -> VideoInfo:
    return dataclasses.replace(info, info_json=info_json)


async def test_a_redirect_to_a_port_off_the_list_never_reaches_it(guarded: Guarded) -> None:
    g = guarded
    g.site.set_route("/watch", Redirect(g.private.url("/clips/short.mp4")))
    failure = _refusal(await g.ytdlp.scrape(g.site.url("/watch"), timeout=60))
    assert classify_ytdlp(failure) == REFUSED
    assert g.site.hits("/watch") == 1
    assert g.private.requests == []


async def test_a_redirect_to_https_off_the_list_is_refused_at_connect(guarded: Guarded) -> None:
    g = guarded
    g.site.set_route("/watch", Redirect(f"https://127.0.0.1:{g.private.port}/clips/short.mp4"))
    failure = _refusal(await g.ytdlp.scrape(g.site.url("/watch"), timeout=60))
    assert classify_ytdlp(failure) == REFUSED
    assert g.private.requests == []


@pytest.mark.parametrize("downloader", ["native", "ffmpeg"])
async def test_hls_segments_off_the_list_are_never_fetched_and_the_run_fails_for_good(
    guarded: Guarded, staging: Path, downloader: str
) -> None:
    g = guarded
    segments = await g.site.add_hls("/hls", segments_base=g.private.base_url)
    await g.private.add_hls("/hls")  # there to be fetched, were the guard to let a request through
    scraped = await g.ytdlp.scrape(g.site.url("/hls/index.m3u8"), timeout=60)
    assert isinstance(scraped, Success), scraped
    info = scraped.unwrap()[0]
    if downloader == "ffmpeg":
        info = _copy(info, _with_protocol(info.info_json, "m3u8"))
    failure = _refusal(await g.ytdlp.download(info, staging, timeout=120))
    assert classify_ytdlp(failure) == REFUSED, failure.stderr_tail
    assert g.private.requests == []
    assert all(g.site.hits(path) == 0 for path in segments)
    if downloader == "ffmpeg":
        assert "ffmpeg exited with code" in failure.stderr_tail  # the 403 was ffmpeg's, and hidden


@pytest.mark.parametrize("downloader", ["native", "ffmpeg"])
async def test_an_hls_stream_on_the_allowlisted_site_comes_through_the_proxy(
    guarded: Guarded, staging: Path, downloader: str
) -> None:
    g = guarded
    segments = await g.site.add_hls("/hls")
    scraped = await g.ytdlp.scrape(g.site.url("/hls/index.m3u8"), timeout=60)
    assert isinstance(scraped, Success), scraped
    info = scraped.unwrap()[0]
    if downloader == "ffmpeg":
        info = _copy(info, _with_protocol(info.info_json, "m3u8"))
    downloaded = await g.ytdlp.download(info, staging, timeout=120)
    assert isinstance(downloaded, Success), downloaded
    assert downloaded.unwrap().stat().st_size > 10_000
    assert all(g.site.hits(path) == 1 for path in segments)
    assert g.proxy.refused == 0
    assert all(s.refusals == [] for s in g.proxy.sessions)


class BypassingLocator(YtDlpLocator):
    """The packaged yt-dlp, started from an environment that asks every tool to skip proxies."""

    def command(self) -> YtDlpCommand:
        command = super().command()
        bypass = {
            "no_proxy": "*",
            "NO_PROXY": "127.0.0.1,localhost",
            "http_proxy": "",
            "REQUEST_METHOD": "GET",
        }
        return dataclasses.replace(command, env={**command.env, **bypass})


async def test_the_bots_own_no_proxy_never_lets_ffmpeg_around_the_proxy(
    guarded: Guarded, staging: Path
) -> None:
    g = guarded
    ytdlp = YtDlpDownloader(max_filesize_bytes=CLOUD_LIMIT, locator=BypassingLocator(), proxy=g.proxy)
    try:
        await g.site.add_hls("/hls", segments_base=g.private.base_url)
        await g.private.add_hls("/hls")
        scraped = await ytdlp.scrape(g.site.url("/hls/index.m3u8"), timeout=60)
        assert isinstance(scraped, Success), scraped
        info = _copy(scraped.unwrap()[0], _with_protocol(scraped.unwrap()[0].info_json, "m3u8"))
        failure = _refusal(await ytdlp.download(info, staging, timeout=120))
    finally:
        await ytdlp.shutdown()
    assert classify_ytdlp(failure) == REFUSED
    assert g.private.requests == []


async def test_a_format_url_off_the_list_is_refused(guarded: Guarded, staging: Path) -> None:
    g = guarded
    failure = _refusal(
        await g.ytdlp.download(direct_info(g.private, "/clips/short.mp4"), staging, timeout=60)
    )
    assert classify_ytdlp(failure) == REFUSED
    assert g.private.requests == []


async def test_a_page_and_its_video_on_the_allowlisted_site_download_as_before(
    guarded: Guarded, staging: Path
) -> None:
    g = guarded
    scraped = await g.ytdlp.scrape(g.site.url("/pages/video.html"), timeout=60)
    assert isinstance(scraped, Success), scraped
    downloaded = await g.ytdlp.download(scraped.unwrap()[0], staging, timeout=60)
    assert isinstance(downloaded, Success), downloaded
    assert downloaded.unwrap().read_bytes() == g.site.clip("short").read_bytes()
    assert g.site.hits("/clips/short.mp4") >= 1


async def test_each_run_gets_its_own_credentials_revoked_when_it_ends(guarded: Guarded) -> None:
    g = guarded
    for _ in range(2):
        assert isinstance(await g.ytdlp.scrape(g.site.url("/pages/video.html"), timeout=60), Success)
    first, second = g.proxy.sessions
    assert first.secret != second.secret
    assert all(s.closed for s in g.proxy.sessions)


async def test_the_secret_is_never_on_a_command_line_nor_in_what_the_run_prints(
    guarded: Guarded, staging: Path
) -> None:
    g = guarded
    g.site.set_route("/stalled.mp4", Stall())
    lines: list[str] = []
    info = direct_info(g.site, "/stalled.mp4")
    run = asyncio.create_task(
        g.ytdlp.download(info, staging, timeout=60, verbose=True, on_output=lines.append)
    )
    await wait_until(lambda: bool(g.ytdlp.live_pids) and bool(g.proxy.sessions))
    secret = g.proxy.sessions[0].secret
    argv = _command_line(g.ytdlp.live_pids[0])
    config = Path(argv[argv.index("--config-locations") + 1])
    assert all(secret not in arg for arg in argv)
    assert _owner_and_modes(config) == (os.getuid(), 0o600, 0o700)
    proxy_at = f"@127.0.0.1:{await g.proxy.port()}"
    await wait_until(lambda: any(proxy_at in line for line in lines))  # yt-dlp --verbose shows its proxy
    run.cancel()
    outcome = await asyncio.gather(run, return_exceptions=True)
    assert not _exists(config)
    assert all(f":***{proxy_at}" in line for line in lines if proxy_at in line)
    assert all(secret not in line for line in lines)
    assert all(secret not in str(o) for o in outcome)


def _with_protocol(info_json: str, protocol: str) -> str:
    entry = json.loads(info_json)
    for fmt in [entry, *entry.get("formats", []), *entry.get("requested_formats", [])]:
        if str(fmt.get("protocol", "")).startswith("m3u8"):
            fmt["protocol"] = protocol
    return json.dumps(entry)


def _command_line(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


def _owner_and_modes(file: Path) -> tuple[int, int, int]:
    info = file.stat()
    return info.st_uid, stat.S_IMODE(info.st_mode), stat.S_IMODE(file.parent.stat().st_mode)


def _exists(file: Path) -> bool:
    return file.exists()
