"""Which yt-dlp runs: the packaged one, or the install `<data>/ytdlp/current` points at.

Fake installs are tiny `yt_dlp` packages in versioned folders, as `pip --target` would lay them out.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from returns.result import Success

from adapters.ytdlp import YtDlpDownloader, YtDlpLocator
from tests.support.integration import install_fake_ytdlp, wait_until
from tests.support.integration import switch_ytdlp as switch

FAKE_MAIN = """
import json, os, sys, time
here = os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if "--version" in sys.argv:
    print(here)
    sys.exit(0)
gate = os.environ.get("FAKE_GATE")
deadline = time.monotonic() + 20
while gate and not os.path.exists(gate) and time.monotonic() < deadline:
    time.sleep(0.02)
url = sys.argv[-1]
entry = {"id": here, "title": here, "extractor": "fake", "webpage_url": url, "format_id": "0", "ext": "mp4"}
print(json.dumps(entry))
"""


def install_fake(data: Path, version: str) -> Path:
    return install_fake_ytdlp(data, version, FAKE_MAIN)


def test_without_an_install_the_packaged_yt_dlp_runs(tmp_path: Path) -> None:
    for locator in (YtDlpLocator(), YtDlpLocator(tmp_path)):
        command = locator.command()
        assert command.argv == (sys.executable, "-m", "yt_dlp")
        assert command.install_dir is None
        assert "PYTHONPATH" not in command.env


def test_the_current_link_is_resolved_once_per_command(tmp_path: Path) -> None:
    v1 = install_fake(tmp_path, "2030.1.1")
    v2 = install_fake(tmp_path, "2030.2.2")
    locator = YtDlpLocator(tmp_path)
    switch(tmp_path, "2030.1.1")
    before = locator.command()

    switch(tmp_path, "2030.2.2")
    after = locator.command()

    assert before.install_dir == Path(os.path.realpath(v1))
    assert before.env["PYTHONPATH"] == os.path.realpath(v1)
    assert after.env["PYTHONPATH"] == os.path.realpath(v2)
    assert locator.current_link == tmp_path / "ytdlp" / "current"
    assert locator.versions_dir == tmp_path / "ytdlp" / "versions"


def test_a_dangling_current_link_falls_back_to_the_packaged_yt_dlp(tmp_path: Path) -> None:
    (tmp_path / "ytdlp").mkdir()
    (tmp_path / "ytdlp" / "current").symlink_to(tmp_path / "ytdlp" / "versions" / "gone")
    assert YtDlpLocator(tmp_path).command().install_dir is None


async def test_the_downloader_runs_the_selected_install(tmp_path: Path) -> None:
    install_fake(tmp_path, "2030.1.1")
    install_fake(tmp_path, "2030.2.2")
    downloader = YtDlpDownloader(max_filesize_bytes=10**9, locator=YtDlpLocator(tmp_path))
    switch(tmp_path, "2030.1.1")
    assert await downloader.version() == "2030.1.1"
    switch(tmp_path, "2030.2.2")
    assert await downloader.version() == "2030.2.2"


async def test_a_run_started_before_a_switch_keeps_its_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_fake(tmp_path, "2030.1.1")
    install_fake(tmp_path, "2030.2.2")
    gate = tmp_path / "gate"
    monkeypatch.setenv("FAKE_GATE", str(gate))  # the fake waits for this file before answering
    downloader = YtDlpDownloader(max_filesize_bytes=10**9, locator=YtDlpLocator(tmp_path))
    switch(tmp_path, "2030.1.1")
    running = asyncio.create_task(downloader.scrape("https://example.com/v", timeout=30))
    await wait_until(lambda: bool(downloader.live_pids))

    switch(tmp_path, "2030.2.2")
    gate.touch()
    first = await running
    second = await downloader.scrape("https://example.com/v", timeout=30)

    assert isinstance(first, Success)
    assert isinstance(second, Success)
    assert [i.id for i in first.unwrap()] == ["2030.1.1"]
    assert [i.id for i in second.unwrap()] == ["2030.2.2"]
