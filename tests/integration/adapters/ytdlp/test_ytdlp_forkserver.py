"""Runs forked from a warm yt-dlp server are runs like any other: the same results as a cold
spawn, progress and output as they come, what a run sees and how it ends, and a plain process
where a fork server cannot help."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path

import pytest
from returns.result import Success

from adapters.process import ChildProcesses
from adapters.ytdlp import YtDlpDownloader, forkserver_process
from adapters.ytdlp.forkserver import ForkServers
from ports.media import Progress
from testkit.video_site import Trickle, VideoServer
from tests.support.fake_ytdlp import (
    TIMEOUT,
    comparable,
    install_fake,
    parent_of,
    run_fake,
    sha256,
)
from tests.support.integration import direct_info, wait_until
from tests.support.procs import pids_mentioning

pytestmark = pytest.mark.slow


async def test_scrape_and_download_through_the_fork_server_match_a_cold_spawn(
    warm: YtDlpDownloader, cold: YtDlpDownloader, video_server: VideoServer, tmp_path: Path
) -> None:
    for path, clip in (("/clips/short.mp4", "short"), ("/pages/video.html", "short")):
        url = video_server.url(path)
        scraped = {}
        for name, downloader in (("cold", cold), ("warm", warm)):
            result = await downloader.scrape(url, timeout=TIMEOUT)
            assert isinstance(result, Success), result
            scraped[name] = result.unwrap()
        assert [comparable(i) for i in scraped["warm"]] == [comparable(i) for i in scraped["cold"]]
        assert [json.loads(i.info_json)["id"] for i in scraped["warm"]] == [i.id for i in scraped["cold"]]

        [info] = scraped["warm"]
        folders = {name: tmp_path / f"{name}{path.replace('/', '-')}" for name in ("cold", "warm")}
        files = {}
        for name, downloader in (("cold", cold), ("warm", warm)):
            folders[name].mkdir()
            files[name] = (await downloader.download(info, folders[name], timeout=TIMEOUT)).unwrap()
        assert files["warm"].name == files["cold"].name
        assert sha256(files["warm"]) == sha256(files["cold"]) == sha256(video_server.clip(clip))

    assert len(warm.forkserver_pids) == 1
    assert cold.forkserver_pids == []


async def test_progress_and_output_arrive_from_a_forked_download(
    warm: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    video_server.set_route("/faults/slow.mp4", Trickle(video_server.clip("medium").read_bytes(), seconds=1.0))
    updates: list[Progress] = []
    output: list[str] = []
    running = asyncio.create_task(
        warm.download(
            direct_info(video_server, "/faults/slow.mp4"),
            staging,
            timeout=TIMEOUT,
            on_progress=updates.append,
            on_output=output.append,
        )
    )
    await wait_until(lambda: bool(warm.live_pids))
    [child] = warm.live_pids
    [server] = warm.forkserver_pids
    assert parent_of(child) == server
    # It shows its yt-dlp argv as its command line, once the forked child has renamed itself (a
    # moment after the fork, which a loaded machine stretches).
    await wait_until(lambda: pids_mentioning(str(staging)) == [child], timeout=10)

    path = (await running).unwrap()

    percents = [u.percent for u in updates if u.percent is not None]
    assert len(set(percents)) >= 3, updates
    assert percents == sorted(percents)
    assert percents[-1] == 100.0
    assert updates[-1].downloaded_bytes == video_server.clip("medium").stat().st_size
    assert any("Destination" in line for line in output)
    assert sha256(path) == sha256(video_server.clip("medium"))


async def test_a_forked_run_sees_what_a_plain_run_sees(tmp_path: Path, pool: ForkServers) -> None:
    install = install_fake(tmp_path, "2030.1.1")
    _, [plain] = await run_fake(install, "probe", None, FAKE_MARK="x")
    _, [forked] = await run_fake(install, "probe", pool, FAKE_MARK="x")

    assert json.loads(forked) == json.loads(plain)
    seen = json.loads(forked)
    assert seen["cmdline"] == [sys.executable, "-m", "yt_dlp", "--some", "option with spaces", "probe"]
    assert seen["fds"] == [0, 1, 2, 3]  # 3: the listing itself
    assert seen["own_group"]
    assert seen["own_session"]
    assert seen["here"] == "2030.1.1"
    [server] = pool.pids
    with open(f"/proc/{server}/cmdline", "rb") as cmdline:  # noqa: ASYNC230 - procfs does not block
        assert cmdline.read().split(b"\0")[1] == b"vidrelay-ytdlp-forkserver"


@pytest.mark.parametrize(
    "what",
    ["exit:0", "exit:3", "signal:SIGKILL", "signal:SIGTERM", "raise", "message", "interrupt", "unflushed"],
)
async def test_a_forked_run_ends_the_way_a_plain_run_ends(
    what: str, tmp_path: Path, pool: ForkServers
) -> None:
    install = install_fake(tmp_path, "2030.1.1")
    plain, plain_out = await run_fake(install, what, None)
    forked, forked_out = await run_fake(install, what, pool)

    assert (forked.exit_code, forked.signal, forked.ok) == (plain.exit_code, plain.signal, plain.ok)
    assert forked_out == plain_out
    assert forked.stderr_tail.splitlines()[-1:] == plain.stderr_tail.splitlines()[-1:]
    assert len(pool.pids) == 1  # a child's crash is just a failed run


async def test_a_server_that_cannot_start_leaves_runs_to_plain_processes_and_says_so_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(forkserver_process, "SERVER_SCRIPT", tmp_path / "missing.py")
    install = install_fake(tmp_path, "2030.1.1")
    servers = ForkServers()
    try:
        with caplog.at_level(logging.DEBUG, logger="adapters.ytdlp.forkserver"):
            results = [await run_fake(install, "hello", servers) for _ in range(3)]
    finally:
        await servers.aclose()

    assert [(e.ok, out) for e, out in results] == [(True, ["2030.1.1"])] * 3
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1
    assert "could not start" in warnings[0].getMessage()
    assert servers.pids == []


async def test_commands_that_are_not_python_m_yt_dlp_start_plainly(pool: ForkServers) -> None:
    out: list[str] = []
    exit_ = await ChildProcesses().run(
        [sys.executable, "-c", "print('plain')"],
        env=None,
        timeout=10,
        on_stdout=out.append,
        on_stderr=lambda _: None,
        spawn=pool.spawn,
    )
    assert exit_.ok
    assert out == ["plain"]
    assert pool.pids == []
