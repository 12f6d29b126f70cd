"""Stopping forked runs: a timeout or a cancellation kills the run's whole group (a grandchild
that ignores SIGTERM too), shutdown aborts runs and refuses new ones, a server that dies takes
only its run with it."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from returns.result import Success

from adapters.process import Child, ChildProcesses
from adapters.process.runner import STATUS_LOST
from adapters.ytdlp import YtDlpDownloader
from adapters.ytdlp.forkserver import ForkServers
from core.ytdlp_errors import FailureKind, classify_ytdlp
from testkit.video_site import VideoServer
from tests.support.fake_ytdlp import (
    TIMEOUT,
    alive,
    failure_of,
    fake_env,
    install_fake,
    parent_of,
    run_fake,
)
from tests.support.integration import CLOUD_LIMIT, direct_info, wait_until
from tests.support.procs import pids_mentioning

pytestmark = pytest.mark.slow


async def test_a_timeout_kills_the_forked_group_and_the_server_serves_the_next_run(
    warm: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    await warm.scrape(video_server.url("/clips/short.mp4"), timeout=TIMEOUT)
    [server] = warm.forkserver_pids
    started = time.monotonic()

    failure = failure_of(
        await warm.download(direct_info(video_server, "/faults/stall.mp4"), staging, timeout=2.0)
    )

    assert failure.timed_out_after == 2.0
    assert not failure.aborted
    assert time.monotonic() - started < 2.0 + 1.0 + 5.0
    assert classify_ytdlp(failure).reason == "Timed out after 2 seconds"
    assert pids_mentioning(str(staging)) == []
    assert warm.live_pids == []
    again = await warm.scrape(video_server.url("/clips/short.mp4"), timeout=TIMEOUT)
    assert isinstance(again, Success)
    assert warm.forkserver_pids == [server]


async def test_a_timeout_kills_a_grandchild_that_ignores_sigterm(tmp_path: Path, pool: ForkServers) -> None:
    install = install_fake(tmp_path, "2030.1.1")
    marker = f"hang-{uuid.uuid4().hex}"
    out: list[str] = []
    exit_ = await ChildProcesses(kill_grace_seconds=0.5).run(
        [sys.executable, "-m", "yt_dlp", marker],
        env=fake_env(install),
        timeout=1.5,
        on_stdout=out.append,
        on_stderr=lambda _: None,
        spawn=pool.spawn,
    )
    assert exit_.timed_out_after == 1.5
    assert out == ["ready"]
    assert pids_mentioning(marker) == []
    assert len(pool.pids) == 1


async def test_cancellation_kills_the_forked_child_and_propagates(
    warm: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    task = asyncio.create_task(
        warm.download(direct_info(video_server, "/faults/stall.mp4"), staging, timeout=60)
    )
    await wait_until(lambda: video_server.hits("/faults/stall.mp4") == 1)
    [server] = warm.forkserver_pids
    assert [parent_of(pid) for pid in pids_mentioning(str(staging))] == [server]

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert pids_mentioning(str(staging)) == []
    assert warm.live_pids == []
    assert warm.forkserver_pids == [server]


async def test_shutdown_aborts_forked_runs_stops_the_servers_and_refuses_new_runs(
    video_server: VideoServer, staging: Path
) -> None:
    downloader = YtDlpDownloader(max_filesize_bytes=CLOUD_LIMIT, kill_grace_seconds=1.0)
    task = asyncio.create_task(
        downloader.download(direct_info(video_server, "/faults/stall.mp4"), staging, timeout=60)
    )
    await wait_until(lambda: video_server.hits("/faults/stall.mp4") == 1)
    [server] = downloader.forkserver_pids

    await downloader.shutdown()
    failure = failure_of(await asyncio.wait_for(task, 10))

    assert failure.aborted
    assert failure.timed_out_after is None
    assert pids_mentioning(str(staging)) == []
    assert not alive(server)
    assert downloader.forkserver_pids == []
    later = failure_of(await downloader.scrape(video_server.url("/clips/short.mp4"), timeout=10))
    assert later.aborted
    assert downloader.forkserver_pids == []


async def test_a_run_whose_start_races_shutdown_is_aborted(tmp_path: Path, pool: ForkServers) -> None:
    install = install_fake(tmp_path, "2030.1.1")
    marker = f"hang-{uuid.uuid4().hex}"
    children = ChildProcesses(kill_grace_seconds=0.5)

    async def spawn_then_shut_down(argv: Sequence[str], env: Mapping[str, str] | None) -> Child | None:
        child = await pool.spawn(argv, env)
        await children.shutdown()  # while the run is being started, before it counts as live
        return child

    exit_ = await children.run(
        [sys.executable, "-m", "yt_dlp", marker],
        env=fake_env(install),
        timeout=30,
        on_stdout=lambda _: None,
        on_stderr=lambda _: None,
        spawn=spawn_then_shut_down,
    )

    assert exit_.aborted
    assert pids_mentioning(marker) == []


async def test_a_server_killed_mid_run_fails_that_run_cleanly_and_the_next_run_works(
    warm: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    task = asyncio.create_task(
        warm.download(direct_info(video_server, "/faults/stall.mp4"), staging, timeout=60)
    )
    await wait_until(lambda: video_server.hits("/faults/stall.mp4") == 1)
    [server] = warm.forkserver_pids

    os.kill(server, signal.SIGKILL)
    failure = failure_of(await asyncio.wait_for(task, 15))

    assert not failure.aborted
    assert failure.timed_out_after is None
    assert (failure.exit_code, failure.signal) == (None, None)
    assert failure.stderr_tail.endswith(STATUS_LOST + "\n")
    assert classify_ytdlp(failure).kind is FailureKind.TRANSIENT
    assert pids_mentioning(str(staging)) == []
    assert warm.live_pids == []
    again = await warm.scrape(video_server.url("/clips/short.mp4"), timeout=TIMEOUT)
    assert isinstance(again, Success)
    [new_server] = warm.forkserver_pids
    assert new_server != server


async def test_a_server_gone_before_the_fork_hands_the_run_to_a_new_one(
    tmp_path: Path, pool: ForkServers, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="adapters.ytdlp.forkserver")
    install = install_fake(tmp_path, "2030.1.1")
    await run_fake(install, "hello", pool)
    [server] = pool.pids
    os.kill(server, signal.SIGSTOP)  # alive to the bot, but it reads no request ...
    running = asyncio.create_task(run_fake(install, "hello", pool))
    await asyncio.sleep(0.3)
    os.kill(server, signal.SIGKILL)  # ... and dies with the run's request unread

    exit_, out = await asyncio.wait_for(running, 30)

    assert exit_.ok
    assert out == ["2030.1.1"]
    await wait_until(lambda: len(pool.pids) == 1 and server not in pool.pids)
    assert any(f"fork server {server} did not take a run" in r.getMessage() for r in caplog.records)
