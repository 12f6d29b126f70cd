"""An update that goes wrong keeps the current yt-dlp: an unusable index, a hung pip killed at
its timeout, a cancelled update whose half-made install goes, a crashed one's leftovers removed
by the next."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from tests.support.updater_index import (
    HANGING_INSTALL,
    V1,
    V2,
    MakeUpdater,
    hidden_leftovers,
    publish,
    selected,
    versions,
    wait_for_file,
)

pytestmark = pytest.mark.slow


async def test_an_unusable_index_keeps_the_current_version(
    make_updater: MakeUpdater, index: Path, data: Path, tmp_path: Path
) -> None:
    publish(index, V1)
    await make_updater().update()
    empty = tmp_path / "empty-index"
    empty.mkdir()

    outcome = await make_updater(pip_args=("--isolated", "--no-index", "--find-links", str(empty))).update()

    assert (outcome.changed, outcome.version_after) == (False, V1)
    assert outcome.error is not None
    assert outcome.error.startswith("version check:")
    assert selected(data) == f"versions/{V1}"


async def test_a_hung_pip_is_killed_at_its_timeout(make_updater: MakeUpdater, tmp_path: Path) -> None:
    pid_file = tmp_path / "pip.pid"
    hang = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    # The timeout outlasts the start of the child, so the pid is written before it is killed.
    updater = make_updater(pip_command=(sys.executable, "-c", hang), check_timeout=5.0)

    outcome = await updater.update()

    assert outcome.error == "version check: timed out after 5 s"
    assert not outcome.changed
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)


async def test_a_cancelled_update_kills_pip_removes_the_half_made_install_and_keeps_the_version(
    make_updater: MakeUpdater, index: Path, data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    publish(index, V1)
    await make_updater().update()
    publish(index, V2)
    pid_file = tmp_path / "hanging-pip.pid"
    monkeypatch.setenv("PIP_HANG_PID", str(pid_file))
    script = tmp_path / "hanging_pip.py"
    script.write_text(HANGING_INSTALL)
    updater = make_updater(pip_command=(sys.executable, str(script)))
    updating = asyncio.create_task(updater.update())
    await asyncio.to_thread(wait_for_file, pid_file)

    updating.cancel()
    with pytest.raises(asyncio.CancelledError):
        await updating

    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)
    assert selected(data) == f"versions/{V1}"
    assert versions(data) == {V1}
    assert hidden_leftovers(data) == []
    pid_file.unlink()
    assert (await make_updater().update()).version_after == V2


async def test_leftovers_of_a_crashed_update_are_removed_by_the_next_one(
    make_updater: MakeUpdater, index: Path, data: Path
) -> None:
    publish(index, V1)
    updater = make_updater()
    await updater.update()
    half_made = data / "ytdlp" / "versions" / f".installing-{V2}-dead"
    (half_made / "yt_dlp").mkdir(parents=True)
    (data / "ytdlp" / ".current-dead").symlink_to(f"versions/.installing-{V2}-dead")

    await updater.update()

    assert hidden_leftovers(data) == []
    assert selected(data) == f"versions/{V1}"
