"""The original bot (miridius/mp4ify-bot, Bun + telegraf) as a process of the bench's own.

Set up once, outside this repository (bench/README.md, "The original bot"):

    git clone https://github.com/miridius/mp4ify-bot /opt/mp4ify-bot
    cd /opt/mp4ify-bot && npm install --no-save bun && node_modules/.bin/bun install --production

It runs as its README runs it (`bun .` in its checkout, which also makes yt-dlp read its
yt-dlp.conf), beside a local Bot API server, as it is deployed: here the fake Bot API in local
mode, where a video goes by its path. It reads its settings from the environment; yt-dlp and
ffprobe come from PATH, so both bots run the same yt-dlp.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
from pathlib import Path

from testkit.telegram import FakeBotApi

STOP_SECONDS = 10.0


def bun_of(checkout: Path) -> str:
    """The checkout's own bun (npm's `bun` package), else the one on PATH."""
    local = checkout / "node_modules" / ".bin" / "bun"
    found = str(local) if local.exists() else shutil.which("bun")
    if found is None:
        raise RuntimeError(f"no bun in {local.parent} nor on PATH: see bench/original_bot.py")
    return found


class OriginalBot:
    def __init__(self, checkout: Path, root: Path) -> None:
        if not (checkout / "src" / "bot.ts").exists():
            raise RuntimeError(f"{checkout} is not a checkout of mp4ify-bot (no src/bot.ts)")
        self._checkout = checkout
        self._root = root
        self._process: asyncio.subprocess.Process | None = None
        self.log = root / "original.log"

    async def start(self, api: FakeBotApi) -> None:
        self._root.mkdir(parents=True, exist_ok=True)
        env = os.environ | {
            "BOT_TOKEN": api.token,
            "API_ROOT": api.base_url.rstrip("/"),
            "DB_PATH": str(self._root / "mp4ify.db"),
            "BLOB_DIR": f"{self._root / 'blobs'}/",
            "STAGING_DIR": str(self._root / "staging"),
            # The same yt-dlp as vidrelay's: the one beside this Python.
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        with self.log.open("w") as log:
            self._process = await asyncio.create_subprocess_exec(
                bun_of(self._checkout), ".", cwd=self._checkout, env=env, stdout=log, stderr=log
            )
        await api.wait_for(lambda: api.polling or self._ended(), timeout=60)
        if self._ended():
            raise RuntimeError(f"the original bot ended at its start:\n{self.log.read_text()}")

    async def wait(self, timeout: float) -> int:
        assert self._process is not None
        return await asyncio.wait_for(self._process.wait(), timeout)

    async def stop(self) -> None:
        process = self._process
        if process is None or process.returncode is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), STOP_SECONDS)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()

    def _ended(self) -> bool:
        return self._process is not None and self._process.returncode is not None
