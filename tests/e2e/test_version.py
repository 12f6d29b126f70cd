"""`vidrelay --version`: what an operator pastes into a bug report, from the real command line."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

from tests.support.cli import cli_env

PYTHON = ".".join(map(str, sys.version_info[:3]))


def versions(data: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "entrypoints.cli", "--version"],
        env=cli_env(data_dir=str(data)),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_version_prints_vidrelay_yt_dlp_and_python_and_exits_0(tmp_path: Path) -> None:
    ran = versions(tmp_path / "data")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == f"vidrelay {version('vidrelay')}, yt-dlp {version('yt-dlp')}, Python {PYTHON}\n"
    assert not (tmp_path / "data").exists()  # asking for versions writes nothing


def test_version_names_the_yt_dlp_the_updater_switched_to(tmp_path: Path) -> None:
    install = tmp_path / "data" / "ytdlp" / "versions" / "2099.1.1"
    install.mkdir(parents=True)
    (tmp_path / "data" / "ytdlp" / "current").symlink_to(install)
    ran = versions(tmp_path / "data")
    assert ran.returncode == 0, ran.stderr
    assert f"yt-dlp 2099.1.1 (installed by the updater; {version('yt-dlp')} packaged)" in ran.stdout
