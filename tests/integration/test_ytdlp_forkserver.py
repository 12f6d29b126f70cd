"""The pre-warmed yt-dlp fork server, with real processes: real yt-dlp against the local video
site, and tiny fake `yt_dlp` packages (installed the way the updater lays them out) where a test
needs a run to wait, to crash, or to tell which install it is."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import signal
import sys
import time
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path

import pytest
from returns.result import Failure, Success

from adapters.process import Child, ChildProcesses, Exit
from adapters.process.runner import STATUS_LOST
from adapters.ytdlp import YtDlpDownloader, YtDlpLocator, forkserver_process
from adapters.ytdlp.forkserver import ForkServers
from core.ytdlp_errors import FailureKind, classify_ytdlp
from ports.media import Progress, ToolFailure, VideoInfo
from testkit.video_site import Trickle, VideoServer
from tests.support.procs import pids_mentioning
from tests.support.ytdlp_installs import install_fake_ytdlp
from tests.support.ytdlp_installs import switch_ytdlp as switch

from .conftest import CLOUD_LIMIT, direct_info, wait_until

pytestmark = pytest.mark.slow
TIMEOUT = 60.0

# A yt-dlp stand-in. Its last argument says what to do; it always knows which install it is.
FAKE_MAIN = """
import json, os, signal, stat, subprocess, sys, threading, time

here = os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
what = sys.argv[-1]
if what.startswith("http"):  # a scrape; with "gate:<file>" in the URL it waits for that file first
    gate = what.split("gate:", 1)[1] if "gate:" in what else None
    deadline = time.monotonic() + 30
    while gate and not os.path.exists(gate) and time.monotonic() < deadline:
        time.sleep(0.02)
    print(json.dumps({"id": here, "title": here, "extractor": "fake", "webpage_url": what,
                      "format_id": "0", "ext": "mp4"}))
elif what.startswith("hang"):  # a grandchild that ignores SIGTERM, then wait forever
    subprocess.Popen([sys.executable, "-c",
                      "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)",
                      what])
    print("ready", flush=True)
    time.sleep(60)
elif what == "probe":  # what a run sees of its process
    with open("/proc/self/cmdline", "rb") as f:
        cmdline = [w.decode() for w in f.read().rstrip(b"\\0").split(b"\\0")]
    print(json.dumps({
        "here": here, "args": sys.argv[1:], "argv0": sys.argv[0], "cwd": os.getcwd(),
        "fds": sorted(int(f) for f in os.listdir("/proc/self/fd")),
        "own_group": os.getpgid(0) == os.getpid(), "own_session": os.getsid(0) == os.getpid(),
        "signals": {n: str(signal.getsignal(getattr(signal, n))) for n in ("SIGINT", "SIGPIPE", "SIGCHLD")},
        "stdin": os.readlink("/proc/self/fd/0"), "stdout_pipe": stat.S_ISFIFO(os.fstat(1).st_mode),
        "stderr_pipe": stat.S_ISFIFO(os.fstat(2).st_mode), "cmdline": cmdline,
        "main": [__name__, __package__], "path0": sys.path[0], "threads": threading.active_count(),
        "env": {k: v for k, v in os.environ.items() if k.startswith(("PYTHON", "FAKE"))},
        "stdout": [sys.stdout.encoding, sys.stdout.line_buffering],
    }))
elif what.startswith("exit:"):
    print("ERROR: leaving with " + what[5:], file=sys.stderr)
    sys.exit(int(what[5:]))
elif what.startswith("signal:"):
    os.kill(os.getpid(), getattr(signal, what[7:]))
elif what == "raise":
    raise RuntimeError("fake yt-dlp bug")
elif what == "message":
    sys.exit("ERROR: a message for sys.exit")
elif what == "interrupt":
    raise KeyboardInterrupt
elif what == "unflushed":
    sys.stdout.write("no newline and no flush")
else:
    print(here)
"""


def install_fake(data: Path, version: str) -> Path:
    return install_fake_ytdlp(data, version, FAKE_MAIN)


def alive(pid: int) -> bool:
    """In the process table and not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2 :].split(" ", 1)[0] != "Z"


def parent_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def failure_of(result: object) -> ToolFailure:
    assert isinstance(result, Failure), result
    failure = result.failure()
    assert isinstance(failure, ToolFailure)
    return failure


def fake_env(install: Path, **extra: str) -> dict[str, str]:
    """What the locator gives a run of that install."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return {**env, "PYTHONIOENCODING": "utf-8", "PYTHONUTF8": "1", "PYTHONPATH": str(install), **extra}


async def run_fake(install: Path, what: str, pool: ForkServers | None, **env: str) -> tuple[Exit, list[str]]:
    out: list[str] = []
    exit_ = await ChildProcesses(kill_grace_seconds=1.0).run(
        [sys.executable, "-m", "yt_dlp", "--some", "option with spaces", what],
        env=fake_env(install, **env),
        timeout=30,
        on_stdout=out.append,
        on_stderr=lambda _: None,
        spawn=pool.spawn if pool is not None else None,
    )
    return exit_, out


@pytest.fixture
async def pool() -> AsyncIterator[ForkServers]:
    servers = ForkServers()
    yield servers
    await servers.aclose()


@pytest.fixture
async def warm() -> AsyncIterator[YtDlpDownloader]:
    downloader = YtDlpDownloader(max_filesize_bytes=CLOUD_LIMIT, kill_grace_seconds=1.0, warm=True)
    yield downloader
    await downloader.shutdown()


@pytest.fixture
async def cold() -> AsyncIterator[YtDlpDownloader]:
    downloader = YtDlpDownloader(max_filesize_bytes=CLOUD_LIMIT, kill_grace_seconds=1.0, warm=False)
    yield downloader
    await downloader.shutdown()


def comparable(info: VideoInfo) -> tuple[object, ...]:
    """An entry without what changes from one scrape to the next (info_json has timestamps)."""
    return (
        info.url,
        info.webpage_url,
        info.extractor,
        info.id,
        info.title,
        info.ext,
        info.format_id,
        info.duration,
        info.has_video,
        info.playlist_title,
    )


# ---- the same results as a cold spawn (real yt-dlp)


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
    assert pids_mentioning(str(staging)) == [child]  # it shows its yt-dlp argv as its command line

    path = (await running).unwrap()

    percents = [u.percent for u in updates if u.percent is not None]
    assert len(set(percents)) >= 3, updates
    assert percents == sorted(percents)
    assert percents[-1] == 100.0
    assert updates[-1].downloaded_bytes == video_server.clip("medium").stat().st_size
    assert any("Destination" in line for line in output)
    assert sha256(path) == sha256(video_server.clip("medium"))


# ---- stopping runs: timeout, cancellation, shutdown, a dead server


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


# ---- versions: a switch of `current`, a reinstall in place


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


# ---- lifetime: idle exit, the bot's death


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


PARENT = """
import asyncio, os, sys
from pathlib import Path
from adapters.ytdlp import YtDlpDownloader, YtDlpLocator

async def main() -> None:
    downloader = YtDlpDownloader(max_filesize_bytes=10**9, locator=YtDlpLocator(Path(sys.argv[1])))
    running = asyncio.create_task(downloader.scrape(os.environ["GATE_URL"], timeout=60))
    while not downloader.live_pids:
        await asyncio.sleep(0.02)
    print(downloader.forkserver_pids[0], downloader.live_pids[0], flush=True)
    await running

asyncio.run(main())
"""


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


# ---- a run is a run: what it sees, how it ends


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
