"""A fork server's lifetime: a switch or a reinstall of yt-dlp retires it for new runs (an
in-flight run keeps its version), it exits when idle, and it goes when the bot dies."""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from pathlib import Path

import pytest
from returns.result import Success

from adapters.ytdlp import YtDlpDownloader, YtDlpLocator
from adapters.ytdlp.forkserver import ForkServers
from tests.support.fake_ytdlp import (
    PARENT,
    alive,
    install_fake,
    parent_of,
    run_fake,
)
from tests.support.integration import switch_ytdlp as switch
from tests.support.integration import wait_until
from tests.support.procs import pids_mentioning

pytestmark = pytest.mark.slow


async def test_a_switch_gives_new_runs_a_new_server_while_an_in_flight_run_keeps_the_old_version(
    tmp_path: Path,
) -> None:
    install_fake(tmp_path, "2030.1.1")
    install_fake(tmp_path, "2030.2.2")
    gate = tmp_path / "gate"
    downloader = YtDlpDownloader(
        max_filesize_bytes=10**9, locator=YtDlpLocator(tmp_path), warm_idle_seconds=0.5
    )
    try:
        switch(tmp_path, "2030.1.1")
        running = asyncio.create_task(downloader.scrape(f"https://example.com/gate:{gate}", timeout=30))
        await wait_until(lambda: bool(downloader.live_pids))
        [old_server] = downloader.forkserver_pids
        [in_flight] = downloader.live_pids
        assert parent_of(in_flight) == old_server

        switch(tmp_path, "2030.2.2")
        second = await downloader.scrape("https://example.com/v", timeout=30)
        servers = downloader.forkserver_pids
        gate.touch()
        first = await running

        assert [i.id for i in first.unwrap()] == ["2030.1.1"]
        assert [i.id for i in second.unwrap()] == ["2030.2.2"]
        assert len(servers) == 2
        assert old_server in servers
        # The old one has nothing left to do: it exits once idle; the new one stays current.
        await wait_until(lambda: not alive(old_server), timeout=10)
        third = await downloader.scrape("https://example.com/v", timeout=30)
        assert [i.id for i in third.unwrap()] == ["2030.2.2"]
    finally:
        await downloader.shutdown()


async def test_a_reinstall_in_place_retires_the_server_that_imported_the_old_files(
    tmp_path: Path, pool: ForkServers
) -> None:
    install = install_fake(tmp_path, "2030.1.1")
    await run_fake(install, "hello", pool)
    [before] = pool.pids
    init = install / "yt_dlp" / "__init__.py"
    replacement = init.with_suffix(".new")
    replacement.write_text("# reinstalled\n")
    replacement.replace(init)  # what pip does: new files

    exit_, _ = await run_fake(install, "hello", pool)

    assert exit_.ok
    await wait_until(lambda: len(pool.pids) == 1 and before not in pool.pids, timeout=10)
    assert not alive(before)


async def test_the_server_exits_when_idle_and_a_later_run_starts_another(tmp_path: Path) -> None:
    install_fake(tmp_path, "2030.1.1")
    switch(tmp_path, "2030.1.1")
    downloader = YtDlpDownloader(
        max_filesize_bytes=10**9, locator=YtDlpLocator(tmp_path), warm_idle_seconds=0.3
    )
    try:
        assert downloader.forkserver_pids == []  # lazily: none before the first run
        assert isinstance(await downloader.scrape("https://example.com/v", timeout=30), Success)
        [server] = downloader.forkserver_pids

        await wait_until(lambda: downloader.forkserver_pids == [], timeout=10)

        assert not alive(server)
        later = await downloader.scrape("https://example.com/v", timeout=30)
        assert [i.id for i in later.unwrap()] == ["2030.1.1"]
        assert downloader.forkserver_pids not in ([], [server])
    finally:
        await downloader.shutdown()


async def test_the_server_and_its_runs_go_when_the_bot_dies(tmp_path: Path) -> None:
    install_fake(tmp_path, "2030.1.1")
    switch(tmp_path, "2030.1.1")
    marker = f"never-{uuid.uuid4().hex}"
    parent = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        PARENT,
        str(tmp_path),
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "GATE_URL": f"https://example.com/gate:{tmp_path / marker}"},  # not in its argv
    )
    try:
        assert parent.stdout is not None
        line = await asyncio.wait_for(parent.stdout.readline(), 30)
        server, run = (int(word) for word in line.split())
        assert alive(server)
        assert pids_mentioning(marker) == [run]

        parent.kill()
        await parent.wait()

        await wait_until(lambda: not alive(server) and not alive(run), timeout=10)
        assert pids_mentioning(marker) == []
    finally:
        if parent.returncode is None:
            parent.kill()
            await parent.wait()
