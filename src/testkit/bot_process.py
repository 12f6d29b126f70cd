"""The real bot as a child process, pointed at a fake Bot API: for the demo and the e2e tests."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from testkit.loopback import HOST, LoopbackServer
from testkit.telegram import FakeBotApi

# A bound, not a measurement: on a loaded 2-core machine importing aiogram alone has taken
# over 30 s of wall time (seen when several suites ran at once), and a start that slow is not
# what these tests judge.
_START_TIMEOUT_SECONDS = 90.0


def bot_environment(
    api: FakeBotApi, data_dir: Path, *, sites: Sequence[LoopbackServer] = (), **overrides: str
) -> dict[str, str]:
    """A clean VIDRELAY_* environment for a bot that talks only to `api` and loopback sites.

    With `sites`, the SSRF guard stays on and lets exactly those ports of 127.0.0.1 through, as a
    real deployment's would; without, the guard is off."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIDRELAY_")}
    guard = (
        {"VIDRELAY_PRIVATE_URL_ALLOWLIST": ",".join(f"{HOST}:{site.port}" for site in sites)}
        if sites
        else {"VIDRELAY_ALLOW_PRIVATE_URLS": "true"}
    )
    env.update(
        {
            "VIDRELAY_BOT_TOKEN": api.token,
            "VIDRELAY_TELEGRAM_API_URL": api.base_url,
            "VIDRELAY_DATA_DIR": str(data_dir),
            "VIDRELAY_STORE": "sqlite",
            **guard,
            "VIDRELAY_YTDLP_UPDATE_INTERVAL_SECONDS": "0",
            "VIDRELAY_RETRY_BASE_SECONDS": "0.2",
            "VIDRELAY_YTDLP_TIMEOUT_SECONDS": "60",
            "VIDRELAY_SHUTDOWN_GRACE_SECONDS": "30",
            "VIDRELAY_ENV_FILE": "",  # a developer's .env in the working directory stays out
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(overrides)
    return env


class BotProcess:
    """`vidrelay run` in its own process; its log goes to `log_path`."""

    def __init__(
        self, env: Mapping[str, str], log_path: Path, *, role: str = "all", webhook: bool = False
    ) -> None:
        self._env = dict(env)
        self.log_path = log_path
        self.role = role
        """`vidrelay run --role ROLE`: all, ingest or worker."""
        self.webhook = webhook
        """`vidrelay run --webhook`: updates come by webhook (VIDRELAY_WEBHOOK_* in `env`)."""
        self._process: asyncio.subprocess.Process | None = None

    @property
    def pid(self) -> int:
        assert self._process is not None
        return self._process.pid

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

    async def spawn(self) -> None:
        """Start the process and return at once (the caller decides what it waits for)."""
        with self.log_path.open("ab") as log:
            self._process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "entrypoints.cli",
                "run",
                "--role",
                self.role,
                *(["--webhook"] if self.webhook else []),
                env=self._env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )

    async def start(self, api: FakeBotApi) -> None:
        """Start and wait until the bot long-polls the fake API (or set its webhook)."""
        await self.spawn()
        assert self._process is not None
        # The fake API only wakes its waiters on API traffic, so the exit is watched on its own.
        receiving = (lambda: api.webhook is not None) if self.webhook else (lambda: api.polling)
        polling = asyncio.ensure_future(api.wait_for(receiving, timeout=_START_TIMEOUT_SECONDS))
        exited = asyncio.ensure_future(self._process.wait())
        await asyncio.wait({polling, exited}, return_when=asyncio.FIRST_COMPLETED)
        for task in (polling, exited):
            task.cancel()
        if not self.running:
            raise RuntimeError(f"the bot exited at start; its log:\n{self.log()}")
        if polling.cancelled() or polling.exception() is not None:
            raise RuntimeError(f"the bot did not start polling; its log:\n{self.log()}")

    def pause(self) -> None:
        """SIGSTOP: the process stands still (its children run on), as when its machine froze."""
        assert self._process is not None
        self._process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self._process is not None
        self._process.send_signal(signal.SIGCONT)

    @property
    def agent(self) -> str:
        """How the process names itself in each Bot API call it makes (a CallRecord's `client`)."""
        return f"vidrelay (pid {self.pid})"

    async def kill(self) -> int:
        """SIGKILL: no handler runs, nothing is flushed — a crash."""
        return await self._signal(signal.SIGKILL, 10.0)

    async def terminate(self, timeout: float = 60.0) -> int:
        """SIGTERM, then the exit code once the graceful stop is over."""
        return await self._signal(signal.SIGTERM, timeout)

    async def wait(self, timeout: float) -> int:
        assert self._process is not None
        return await asyncio.wait_for(self._process.wait(), timeout)

    async def _signal(self, signum: int, timeout: float) -> int:
        assert self._process is not None
        if self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.send_signal(signum)
        return await self.wait(timeout)

    async def close(self) -> None:
        if self.running:
            await self.kill()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
