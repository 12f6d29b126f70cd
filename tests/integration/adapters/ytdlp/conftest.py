"""The yt-dlp adapter's fixtures: fork server pools and downloaders, warm and cold, stopped at the end."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from adapters.ytdlp import YtDlpDownloader
from adapters.ytdlp.forkserver import ForkServers
from adapters.ytdlp.updater import YtDlpUpdater
from tests.support.integration import CLOUD_LIMIT
from tests.support.updater_index import (
    PIP_WRAPPER,
    MakeUpdater,
)


@pytest.fixture
def index(tmp_path: Path) -> Path:
    folder = tmp_path / "index"
    folder.mkdir()
    return folder


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def pip_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    log = tmp_path / "pip-calls.log"
    log.touch()
    monkeypatch.setenv("PIP_CALLS_LOG", str(log))
    return log


@pytest.fixture
def make_updater(tmp_path: Path, index: Path, data: Path, pip_log: Path) -> MakeUpdater:
    """An updater on the test's index; pip runs through a wrapper that logs every call."""
    wrapper = tmp_path / "pip_wrapper.py"
    wrapper.write_text(PIP_WRAPPER)

    def build(**overrides: Any) -> YtDlpUpdater:
        options: dict[str, Any] = {
            "data_dir": data,
            "pip_args": ("--isolated", "--no-index", "--find-links", str(index)),
            "pip_command": (sys.executable, str(wrapper)),
            **overrides,
        }
        return YtDlpUpdater(**options)

    return build


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
