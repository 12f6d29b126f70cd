"""The commands that never talk to Telegram import no aiogram, nor any other heavy library they do
not use (issue 25): importing aiogram alone costs seconds of CPU, and an operator's `vidrelay jobs
stats` on a loaded machine must not pay for it.

Each command runs for real (`python -X importtime -m entrypoints.cli ...`, on a real SQLite store)
and the modules it imported are read from the interpreter's own import log on stderr: which
modules, never how long they took.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from adapters.sqlite import SqliteStore
from ports.jobs import NewJob
from tests.support.cli import CLI_TIMEOUT_SECONDS, Ran, cli_env

pytestmark = pytest.mark.slow

UNUSED_BY_STORE_TOOLS = frozenset({"aiogram", "aiohttp", "yt_dlp", "prometheus_client", "asyncpg", "psycopg"})
"""Telegram's client and its HTTP stack, yt-dlp, the metrics endpoint, the PostgreSQL drivers:
a command on the SQLite store needs none of them."""
_IMPORT_LOG = "import time:"

COMMANDS: dict[str, tuple[str, ...]] = {
    "help": (),
    "version": ("--version",),
    "config": ("config",),
    "jobs stats": ("jobs", "stats"),
    "jobs stats --json": ("jobs", "stats", "--json"),
    "jobs list": ("jobs", "list"),
    "jobs list --failed --json": ("jobs", "list", "--failed", "--json"),
    "jobs retry --all-failed": ("jobs", "retry", "--all-failed"),
    "jobs purge": ("jobs", "purge"),
    "backup": ("backup", "{backup}"),
    "restore": ("restore", "{backup}"),
}


async def logged_imports(*python_args: str, env: dict[str, str] | None = None) -> tuple[Ran, set[str]]:
    """Run `python -X importtime ARGS`; return its result (the import log taken out of stderr)
    and the top-level packages of every module it imported."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-X",
        "importtime",
        *python_args,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), CLI_TIMEOUT_SECONDS)
    assert process.returncode is not None
    log: list[str] = []
    rest: list[str] = []
    for line in err.decode().splitlines():
        (log if line.startswith(_IMPORT_LOG) else rest).append(line)
    # `import time: self | cumulative | <indent>module`; the first line is the header.
    modules = {line.rsplit("|", 1)[1].strip() for line in log[1:]}
    return Ran(process.returncode, out.decode(), "\n".join(rest)), modules


async def vidrelay_imports(args: tuple[str, ...], env: dict[str, str]) -> tuple[Ran, set[str]]:
    return await logged_imports("-m", "entrypoints.cli", *args, env=env)


def top_level(modules: set[str]) -> set[str]:
    return {module.partition(".")[0] for module in modules}


@pytest.fixture
async def deployment(tmp_path: Path) -> dict[str, str]:
    """A data folder with a store the bot could have left: a queued job and a dead letter."""
    data = tmp_path / "data"
    data.mkdir()
    store = await SqliteStore.open(data / "vidrelay.db")
    try:
        await store.enqueue(NewJob("process_link", {"url": "https://example.com/queued"}, 3), 1_000.0)
        await store.enqueue(NewJob("process_link", {"url": "https://example.com/failed"}, 3), 1_000.0)
        job = await store.claim("cli-imports-test", 1_001.0, 30.0)
        assert job is not None
        await store.dead_letter(job.lease, "ERROR: [generic] Unsupported URL", 1_002.0)
    finally:
        await store.close()
    return cli_env(data_dir=str(data))


@pytest.mark.parametrize("command", list(COMMANDS), ids=list(COMMANDS))
async def test_a_command_that_does_not_talk_to_telegram_imports_no_aiogram(
    command: str, deployment: dict[str, str], tmp_path: Path
) -> None:
    backup = tmp_path / "copy.db"
    if command == "restore":  # something to restore: a copy made the way an operator makes one
        made, _ = await vidrelay_imports(("backup", str(backup)), deployment)
        assert made.code == 0, made.stderr
    args = tuple(arg.format(backup=backup) for arg in COMMANDS[command])

    ran, modules = await vidrelay_imports(args, deployment)

    assert ran.code == 0, f"{ran.stdout}\n{ran.stderr}"  # the command ran its whole path
    assert "entrypoints.settings" in modules, "no import log read: the check would pass vacuously"
    assert top_level(modules) & UNUSED_BY_STORE_TOOLS == set(), sorted(
        m for m in modules if top_level({m}) & UNUSED_BY_STORE_TOOLS
    )


async def test_the_import_log_names_aiogram_when_a_process_does_import_it() -> None:
    """The control: the same reading sees aiogram in a process that imports it."""
    ran, modules = await logged_imports("-c", "import aiogram")

    assert ran.code == 0, ran.stderr
    assert "aiogram" in top_level(modules)
