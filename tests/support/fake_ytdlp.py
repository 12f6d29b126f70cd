"""A yt-dlp stand-in the fork server's tests install and run, and how they look at its processes."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from returns.result import Failure

from adapters.process import ChildProcesses, Exit
from adapters.ytdlp.forkserver import ForkServers
from ports.media import ToolFailure, VideoInfo
from tests.support.integration import install_fake_ytdlp

TIMEOUT = 60.0


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
