"""How long a start takes: the bot to its first getUpdates, a CLI command, and aiogram's import.

`python bench/startup.py [--runs N] [--quick]` — everything on 127.0.0.1: the fake Bot API runs in
this process, the bot is `vidrelay run` as a child process (a temporary SQLite store, made by a
warm-up start that is not counted, so every counted start is a restart on an existing store).
Each round, in this order:

- `import_aiogram`: `python -c 'import aiogram'`, the floor of any process that uses aiogram;
- `jobs_stats`: `vidrelay jobs stats` on the bot's store, spawn to exit (it must not import aiogram);
- `boot`: `vidrelay run` from spawn to its first getUpdates reaching the fake (and to its getMe,
  which marks the end of imports and the store's opening); then SIGTERM, which must exit 0.

Figures are medians over the rounds. The targets (issue 25): boot ≤ 1.0 s, or, where importing
aiogram alone takes longer, boot ≤ that floor + 0.3 s (`boot_target_s` is the larger of the two);
a CLI command that does not talk to Telegram ≤ 0.5 s. The figures line:
`startup: boot_s=X boot_target_s=X import_aiogram_s=X boot_minus_floor_s=X jobs_stats_s=X ...`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import harness
from testkit.bot_process import BotProcess, bot_environment
from testkit.telegram import FakeBotApi

bench = harness.Bench("startup", __doc__)
bench.size("--runs", 5, quick=1, help="rounds, each timing every start once")
bench.size("--warmups", 1, quick=0, help="rounds before the counted ones (caches, the store's creation)")
BOOT_TARGET_S = 1.0
FLOOR_ALLOWANCE_S = 0.3
CLI_TARGET_S = 0.5
CHILD_TIMEOUT_S = 120.0
"""A bound so a hung child fails the bench; a start takes seconds."""


@dataclass(frozen=True, slots=True)
class Boot:
    getme_s: float
    """spawn → the getMe request: the imports, the settings, the store opened."""
    polling_s: float
    """spawn → the first getUpdates long poll waiting at the fake."""


async def timed_child(args: list[str], env: dict[str, str] | None, what: str) -> tuple[float, str]:
    """Wall seconds from spawn to exit of a child that must succeed, and its stdout."""
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        *args,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), CHILD_TIMEOUT_S)
    took = time.monotonic() - started
    if process.returncode != 0:
        raise harness.BenchFailed(f"{what} exited with {process.returncode}:\n{err.decode()[-3000:]}")
    return took, out.decode()


async def import_aiogram() -> float:
    took, _ = await timed_child([sys.executable, "-c", "import aiogram"], None, "python -c 'import aiogram'")
    return took


def vidrelay_command() -> list[str]:
    """The console script an operator runs, next to this interpreter (a checkout's venv)."""
    script = Path(sys.executable).with_name("vidrelay")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "entrypoints.cli"]


async def jobs_stats(env: dict[str, str]) -> float:
    took, out = await timed_child([*vidrelay_command(), "jobs", "stats"], env, "vidrelay jobs stats")
    bench.expect(any(line.startswith("all") for line in out.splitlines()), f"no totals row in:\n{out}")
    return took


async def boot(api: FakeBotApi, env: dict[str, str], log: Path) -> Boot:
    bot = BotProcess(env, log)
    calls_before = len(api.calls)
    started = time.monotonic()
    try:
        await bot.start(api)  # returns once the first getUpdates waits at the fake
        polling = time.monotonic() - started
        getme = [c for c in api.calls[calls_before:] if c.method == "getMe"]
        bench.expect(bool(getme), "the bot polled without asking getMe first")
        code = await bot.terminate()
        bench.expect(code == 0, f"the bot exited with {code} on SIGTERM, not 0; its log:\n{bot.log()}")
    finally:
        await bot.close()
    return Boot(getme_s=getme[0].at - started, polling_s=polling)


def median(values: list[float]) -> float:
    return statistics.median(values)


def spread(values: list[float]) -> str:
    return f"{min(values):.2f}–{max(values):.2f}"


async def measure(args: argparse.Namespace) -> None:
    command = " ".join(Path(arg).name if i == 0 else arg for i, arg in enumerate(vidrelay_command()))
    bench.setup(libraries=("aiogram", "pydantic", "pydantic-core"), cli=command)
    with tempfile.TemporaryDirectory(prefix="vidrelay-bench-") as tmp:
        root = Path(tmp)
        floors: list[float] = []
        stats: list[float] = []
        boots: list[Boot] = []
        async with FakeBotApi() as api:
            env = bot_environment(api, root / "data")
            for round_ in range(args.warmups + args.runs):
                floor = await import_aiogram()
                if round_ == 0:  # the store a restart opens, and what `jobs stats` reads
                    await boot(api, env, root / "bot.log")
                cli = await jobs_stats(env)
                started = await boot(api, env, root / "bot.log")
                counted = round_ >= args.warmups
                if counted:
                    floors.append(floor)
                    stats.append(cli)
                    boots.append(started)
                print(
                    f"round {round_ + 1}{'' if counted else ' (warm-up)'}: import aiogram {floor:.2f} s, "
                    f"jobs stats {cli:.2f} s, boot → getMe {started.getme_s:.2f} s, "
                    f"→ first getUpdates {started.polling_s:.2f} s",
                    flush=True,
                )
    polling = [b.polling_s for b in boots]
    floor_s, boot_s, cli_s = median(floors), median(polling), median(stats)
    target = max(BOOT_TARGET_S, floor_s + FLOOR_ALLOWANCE_S)
    print(
        f"boot → first getUpdates {boot_s:.2f} s (range {spread(polling)}), target {target:.2f} s "
        f"(≤ {BOOT_TARGET_S} s or ≤ import aiogram {floor_s:.2f} s + {FLOOR_ALLOWANCE_S} s); "
        f"vidrelay jobs stats {cli_s:.2f} s (range {spread(stats)}), target {CLI_TARGET_S} s"
    )
    bench.figures(
        boot_s=boot_s,
        boot_target_s=target,
        import_aiogram_s=floor_s,
        boot_minus_floor_s=boot_s - floor_s,
        jobs_stats_s=cli_s,
        cli_target_s=CLI_TARGET_S,
        boot_to_getme_s=median([b.getme_s for b in boots]),
    )


if __name__ == "__main__":
    bench.run(measure, bench.parse())
