"""Real yt-dlp behind the guard, and the guard behind the operator's own proxy (VIDRELAY_PROXY).

The guard still resolves and checks every address, and has the operator's proxy connect to the
very address it checked: the proxy is asked for `CONNECT 127.0.0.1:<port>`, never for the host
name (which it could resolve again, to somewhere else), and never for what the guard refused.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from returns.result import Failure, Success

from adapters.net.direct import DirectProxy
from adapters.net.forward_proxy import ForwardProxy
from adapters.net.upstream import UpstreamProxy
from adapters.ytdlp import YtDlpDownloader
from core.url_policy import Endpoint, GuardRules
from testkit.connect_proxy import ConnectProxy
from testkit.video_site import VideoServer
from tests.support.integration import CLIPS_DIR, CLOUD_LIMIT

pytestmark = pytest.mark.slow


@dataclass
class Chain:
    site: VideoServer
    private: VideoServer
    operators: ConnectProxy
    ytdlp: YtDlpDownloader


@pytest.fixture
async def chain() -> AsyncIterator[Chain]:
    async with (
        VideoServer(CLIPS_DIR) as site,
        VideoServer(CLIPS_DIR) as private,
        ConnectProxy(user="op", password="p@ss/w#rd") as operators,
    ):
        # The allowlist names the site as its links do (`localhost:<port>`): the guard resolves it.
        rules = GuardRules([Endpoint("localhost", site.port)])
        guard = ForwardProxy(rules, upstream=UpstreamProxy(operators.url("op:p%40ss%2Fw%23rd")))
        ytdlp = YtDlpDownloader(max_filesize_bytes=CLOUD_LIMIT, kill_grace_seconds=1.0, proxy=guard)
        try:
            yield Chain(site, private, operators, ytdlp)
        finally:
            await ytdlp.shutdown()
            await guard.aclose()


def on_localhost(server: VideoServer, path: str) -> str:
    return f"http://localhost:{server.port}{path}"


async def test_a_download_goes_through_the_operators_proxy_to_the_address_the_guard_checked(
    chain: Chain, staging: Path
) -> None:
    scraped = await chain.ytdlp.scrape(on_localhost(chain.site, "/clips/short.mp4"), timeout=60)
    assert isinstance(scraped, Success), scraped
    downloaded = await chain.ytdlp.download(scraped.unwrap()[0], staging, timeout=60)
    assert isinstance(downloaded, Success), downloaded
    assert downloaded.unwrap().read_bytes() == chain.site.clip("short").read_bytes()
    assert chain.operators.targets, "nothing went through the operator's proxy"
    assert set(chain.operators.targets) == {f"127.0.0.1:{chain.site.port}"}  # the checked address
    assert chain.operators.refused == 0  # the credentials, percent-quoted in the URL, went as written


async def test_what_the_guard_refuses_never_reaches_the_operators_proxy(chain: Chain) -> None:
    scraped = await chain.ytdlp.scrape(on_localhost(chain.private, "/clips/short.mp4"), timeout=60)
    assert isinstance(scraped, Failure)
    assert "Refused by vidrelay" in scraped.failure().stderr_tail
    assert chain.operators.targets == []
    assert chain.private.requests == []


async def test_with_the_guard_off_runs_go_straight_through_the_operators_proxy(
    tmp_path: Path, staging: Path
) -> None:
    async with VideoServer(CLIPS_DIR) as site, ConnectProxy() as operators:
        ytdlp = YtDlpDownloader(
            max_filesize_bytes=CLOUD_LIMIT, kill_grace_seconds=1.0, proxy=DirectProxy(operators.url())
        )
        try:
            scraped = await ytdlp.scrape(site.url("/pages/video.html"), timeout=60)
        finally:
            await ytdlp.shutdown()
    assert isinstance(scraped, Success), scraped
    assert site.url("/pages/video.html") in operators.targets
