"""The data folder's lock between real processes: one holder, named to the refused, gone with it."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path

import pytest

from adapters.filesystem.folder_lock import FolderInUse, holding_folder

pytestmark = pytest.mark.slow

HOLD = """
import sys, time
from pathlib import Path
from adapters.filesystem.folder_lock import holding_folder
with holding_folder(Path(sys.argv[1]), "vidrelay run"):
    print("held", flush=True)
    time.sleep(600)
"""


async def holder(data: Path) -> asyncio.subprocess.Process:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", HOLD, str(data), stdout=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None
    assert await asyncio.wait_for(process.stdout.readline(), 60) == b"held\n"
    return process


async def test_a_second_holder_is_refused_with_the_first_ones_name(tmp_path: Path) -> None:
    process = await holder(tmp_path / "data")
    try:
        with pytest.raises(FolderInUse) as refused, holding_folder(tmp_path / "data", "vidrelay restore"):
            pytest.fail("two holders at once")
        assert str(refused.value) == (
            f"{tmp_path / 'data'} is in use by vidrelay run (pid {process.pid} on {socket.gethostname()})"
        )
    finally:
        process.kill()
        await process.wait()


async def test_a_killed_holder_leaves_the_folder_free(tmp_path: Path) -> None:
    process = await holder(tmp_path)
    os.kill(process.pid, signal.SIGKILL)
    await process.wait()

    with holding_folder(tmp_path, "vidrelay restore"):
        assert (tmp_path / "vidrelay.lock").read_text().startswith(f"vidrelay restore (pid {os.getpid()} ")
    with holding_folder(tmp_path, "vidrelay run"):  # released when the block ended
        pass


def test_the_lock_is_not_inherited_by_children(tmp_path: Path) -> None:
    with holding_folder(tmp_path, "vidrelay run"):
        inherited = [fd for fd in os.listdir("/proc/self/fd") if _is_lock(tmp_path, fd)]
        assert len(inherited) == 1
        assert os.get_inheritable(int(inherited[0])) is False


def _is_lock(folder: Path, fd: str) -> bool:
    try:
        return os.readlink(f"/proc/self/fd/{fd}") == str(folder / "vidrelay.lock")
    except OSError:
        return False
