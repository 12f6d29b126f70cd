"""A data folder the bot cannot make or write, met by the real command line: one line naming the
path and the reason and exit 2 from every command that writes the folder (`run`, `restore`,
`jobs`), the reason on `check`'s store line — never a traceback.

The suite may run as root, whom mode bits do not stop: there a read-only folder is a read-only
bind mount in a mount namespace of the child's own (`unshare --mount`), which stops root too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from adapters.sqlite import SqliteStore
from tests.support.cli import cli_env

pytestmark = pytest.mark.slow

CLI_TIMEOUT_SECONDS = 60
WRITING_COMMANDS = [
    ("run",),
    ("restore", "/nonexistent/backup.db"),
    ("jobs", "stats"),
    ("jobs", "retry", "1"),
]
READ_ONLY_MOUNT = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'


def read_only(folder: Path) -> list[str]:
    """The argv prefix that runs a command with `folder` read-only for it alone (root only)."""
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", READ_ONLY_MOUNT, str(folder)]


def cli(args: Sequence[str], data: Path, *, prefix: Sequence[str] = ()) -> subprocess.CompletedProcess[str]:
    # Telegram on a closed loopback port: a `run` that got past the check would retry, never pass.
    env = cli_env(data_dir=str(data), bot_token="42:token", telegram_api_url="http://127.0.0.1:9")
    argv = [*prefix, sys.executable, "-m", "entrypoints.cli", *args]
    return run(argv, env)


def run(argv: Sequence[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, env=env, capture_output=True, text=True, timeout=CLI_TIMEOUT_SECONDS, check=False
    )


def one_line(ran: subprocess.CompletedProcess[str]) -> str:
    assert ran.returncode == 2, ran.stderr
    assert ran.stdout == ""
    lines = ran.stderr.splitlines()
    assert len(lines) == 1, ran.stderr
    return lines[0]


@pytest.mark.parametrize("args", WRITING_COMMANDS, ids=" ".join)
def test_a_data_folder_under_a_file_is_one_line_naming_both(tmp_path: Path, args: tuple[str, ...]) -> None:
    regular = tmp_path / "notes.txt"
    regular.write_text("not a folder\n")
    data = regular / "data"
    line = one_line(cli(args, data))
    assert line == f"vidrelay: data folder {data} cannot be created: {regular} is a file, not a folder"


def test_a_data_folder_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.write_text("")
    line = one_line(cli(["run"], data))
    assert line == f"vidrelay: data folder {data} is not a folder (a file): set VIDRELAY_DATA_DIR to a folder"


def read_only_mount_problem(folder: Path) -> str | None:
    if shutil.which("unshare") is None:
        return "no `unshare` on PATH"
    tried = run([*read_only(folder), "true"])
    return None if tried.returncode == 0 else f"`unshare --mount` failed: {tried.stderr.strip()}"


async def test_a_read_only_data_folder_is_one_line_and_leaves_the_store_untouched(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    await (await SqliteStore.open(data / "vidrelay.db")).close()
    before = sorted(p.name for p in data.iterdir())
    as_root = os.geteuid() == 0
    if as_root and (problem := read_only_mount_problem(data)) is not None:
        pytest.skip(f"running as root, whom mode bits do not stop, and no read-only mount: {problem}")
    reason = "read-only file system" if as_root else f"permission denied for uid {os.geteuid()}"
    if not as_root:
        data.chmod(0o555)
    try:
        for args in WRITING_COMMANDS:
            line = one_line(cli(args, data, prefix=read_only(data) if as_root else ()))
            assert line.startswith(f"vidrelay: data folder {data} is not writable: {reason}"), line
    finally:
        data.chmod(0o755)
    assert sorted(p.name for p in data.iterdir()) == before  # not even the write probe was left


def test_check_reports_the_data_folder_on_its_store_line(tmp_path: Path) -> None:
    regular = tmp_path / "notes.txt"
    regular.write_text("")
    ran = cli(["check"], regular / "data")
    assert ran.returncode == 1
    assert "Traceback" not in ran.stderr
    (store,) = (line for line in ran.stdout.splitlines() if line.startswith("store "))
    assert store.split(None, 2)[1:] == [
        "failed",
        f"data folder {regular / 'data'} cannot be created: {regular} is a file, not a folder",
    ]


def test_a_writable_data_folder_is_made_and_left_without_a_probe(tmp_path: Path) -> None:
    data = tmp_path / "deep" / "data"
    ran = cli(["check"], data)
    assert next(line for line in ran.stdout.splitlines() if line.startswith("store ")).split()[1] == "ok"
    assert sorted(p.name for p in data.iterdir() if p.name.startswith(".vidrelay-write-check")) == []


def test_the_demo_runs_where_the_home_folder_cannot_keep_its_clips(tmp_path: Path) -> None:
    # A container run as an arbitrary uid gets HOME=/, which it cannot write; here HOME is a file.
    home = tmp_path / "home"
    home.write_text("")
    ran = subprocess.run(
        [sys.executable, "-m", "entrypoints.cli", "demo"],
        env={**cli_env(), "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.rstrip().endswith("6 of 6 steps did what they should.")
