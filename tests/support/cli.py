"""The `vidrelay` command line as a real process, with a clean VIDRELAY_* environment."""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass
from pathlib import Path

CLI_TIMEOUT_SECONDS = 120.0


@dataclass(frozen=True, slots=True)
class Ran:
    code: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return self.stdout.splitlines()


def cli_env(**settings: str) -> dict[str, str]:
    """Only these settings: no VIDRELAY_* of the test's own environment, no `.env` read."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIDRELAY_")}
    env["VIDRELAY_ENV_FILE"] = ""
    env.update({f"VIDRELAY_{k.upper()}": v for k, v in settings.items()})
    return env


async def vidrelay(*args: str, env: dict[str, str], cwd: Path | None = None) -> Ran:
    """Run `vidrelay ARGS` to its end (asynchronously: the fakes it talks to run in this loop)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "entrypoints.cli",
        *args,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
    )
    out, err = await asyncio.wait_for(process.communicate(), CLI_TIMEOUT_SECONDS)
    assert process.returncode is not None
    return Ran(process.returncode, out.decode(), err.decode())
