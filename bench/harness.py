"""What every bench shares: `--quick`, the set-up line, the figures line, and failing loudly.

A bench is a script `bench/NAME.py` (bench/README.md, "How to write a bench"):

    bench = harness.Bench("NAME", __doc__)
    bench.size("--jobs", 20_000, quick=200, help="...")   # full size, and the tiny one of --quick
    args = bench.parse()
    bench.run(measure, args)     # measure(args) may be a coroutine function

    async def measure(args):
        bench.setup(libraries=("huey",), sqlite=sqlite3.sqlite_version)   # once, before measuring
        ...
        bench.expect(done == args.jobs, f"{done} of {args.jobs} jobs done")
        bench.figures(ratio_vs_huey=2.17, jobs_per_s=1400)                 # once, at the end

`run` exits 0 only when `measure` returned (None or 0) after printing exactly one set-up line
and one figures line; an exception, a failed `expect`, a child that died (`alive`), a non-zero
return or a missing line prints `NAME: FAILED: why` on stderr and exits 1.

Both lines are `PREFIX key=value key=value ...` with shell-style quoting where a value holds a
space, so `shlex.split` reads them back: `NAME setup: quick=0 cores=2 cpu='…' ...` and
`NAME: key=value ...`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import inspect
import os
import platform
import re
import shlex
import subprocess
import sys
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, NoReturn

_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_REPO = Path(__file__).resolve().parent.parent


class BenchFailed(Exception):
    """Something the figures depend on did not happen: a count off, a child gone, a refusal."""


class Bench:
    """One bench run: its arguments, its two lines, and its exit status."""

    def __init__(self, name: str, description: str | None) -> None:
        self.name = name
        self.parser = argparse.ArgumentParser(
            description=description, formatter_class=argparse.RawDescriptionHelpFormatter
        )
        self.parser.add_argument(
            "--quick",
            action="store_true",
            help="tiny sizes, one round, the same code paths; the figures mean nothing",
        )
        self._sizes: dict[str, tuple[object, object]] = {}
        self.quick = False
        self._printed: dict[str, int] = {"setup": 0, "figures": 0}
        self._sizes_seen: dict[str, object] = {}

    def size(self, flag: str, full: object, *, quick: object, help: str | None = None) -> None:
        """An option whose default is `full`, or `quick` under --quick; given explicitly, it wins."""
        dest = flag.lstrip("-").replace("-", "_")
        self._sizes[dest] = (full, quick)
        self.parser.add_argument(flag, type=type(full), default=None, help=f"{help or dest} (default {full})")

    def parse(self, argv: list[str] | None = None) -> argparse.Namespace:
        args = self.parser.parse_args(argv)
        self.quick = args.quick
        for dest, (full, quick) in self._sizes.items():
            if getattr(args, dest) is None:
                setattr(args, dest, quick if self.quick else full)
            self._sizes_seen[dest] = getattr(args, dest)
        return args

    # ---- the two lines

    def setup(self, *, libraries: Iterable[str] = (), **extra: object) -> None:
        """`NAME setup: quick=… cores=… cpu=… load=… python=… commit=… <library>=<version>… <size>=…`."""
        fields: dict[str, object] = {"quick": int(self.quick), **machine()}
        fields.update({library: _version(library) for library in libraries})
        fields.update(self._sizes_seen)
        fields.update(extra)
        self._print("setup", f"{self.name} setup:", fields)

    def figures(self, **values: object) -> None:
        """`NAME: key=value …`: the figures the README quotes, in one line."""
        if not values:
            raise BenchFailed("a figures line needs at least one figure")
        self._print("figures", f"{self.name}:", values)

    def _print(self, which: str, prefix: str, fields: dict[str, object]) -> None:
        self._printed[which] += 1
        print(prefix, " ".join(f"{_key(k)}={_value(v)}" for k, v in fields.items()), flush=True)

    # ---- failing loudly

    def expect(self, condition: bool, why: str) -> None:
        if not condition:
            raise BenchFailed(why)

    def run(self, measure: Callable[[argparse.Namespace], object], args: argparse.Namespace) -> NoReturn:
        try:
            outcome = measure(args)
            if inspect.isawaitable(outcome):
                outcome = asyncio.run(_awaited(outcome))
        except SystemExit as exit_:
            if exit_.code not in (None, 0):
                print(exit_.code, file=sys.stderr)
                self._fail(f"it exited with {str(exit_.code).splitlines()[0]}")
            outcome = 0
        except BaseException as error:
            traceback.print_exc()
            self._fail(f"{type(error).__name__}: {error}".splitlines()[0])
        if outcome not in (None, 0):
            self._fail(f"it returned {outcome!r}")
        for which, count in self._printed.items():
            if count != 1:
                self._fail(f"it printed {count} {which} line(s), not one")
        sys.exit(0)

    def _fail(self, why: str) -> NoReturn:
        print(f"{self.name}: FAILED: {why}", file=sys.stderr, flush=True)
        sys.exit(1)


async def _awaited(outcome: Awaitable[Any]) -> object:
    return await outcome


@contextlib.asynccontextmanager
async def alive(ended: Awaitable[object], what: str) -> AsyncIterator[None]:
    """Fail the block at once with BenchFailed when `ended` (a child's wait()) completes inside it,
    rather than after every wait on that child's output timed out."""
    task = asyncio.current_task()
    assert task is not None
    exit_codes: list[object] = []

    async def watch() -> None:
        try:
            exit_codes.append(await ended)
        except Exception:  # the wait itself failed (its own timeout): no news of a death
            return
        task.cancel()

    watcher = asyncio.ensure_future(watch())
    try:
        yield
    except asyncio.CancelledError:
        if not exit_codes:
            raise
        task.uncancel()
        raise BenchFailed(f"{what} exited (code {exit_codes[0]}) while the bench ran") from None
    finally:
        watcher.cancel()


def child_result(done: subprocess.CompletedProcess[str], what: str) -> str:
    """A child's stdout, or BenchFailed naming it with the end of its stderr when it failed."""
    if done.returncode != 0:
        raise BenchFailed(f"{what} exited with {done.returncode}:\n{done.stderr[-3000:]}")
    return done.stdout


# ---- the set-up


def machine() -> dict[str, object]:
    return {
        "cores": os.cpu_count(),
        "cpu": _cpu_model(),
        "load": f"{os.getloadavg()[0]:.2f}",
        "python": platform.python_version(),
        "commit": _commit(),
    }


async def postgres_facts(dsn: str) -> dict[str, str]:
    """The server's version and durability settings, for the set-up line of a PostgreSQL bench."""
    import asyncpg

    connection = await asyncpg.connect(dsn)
    try:
        names = ("server_version", "fsync", "synchronous_commit", "full_page_writes", "wal_sync_method")
        facts = {name: str(await connection.fetchval(f"SHOW {name}")) for name in names}
    finally:
        await connection.close()
    facts["postgres"] = facts.pop("server_version").split()[0]
    return facts


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def _commit() -> str:
    """The checkout's commit, `-dirty` when its tracked files differ from it."""
    try:
        head = subprocess.run(
            ["git", "-C", str(_REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(_REPO), "diff", "--quiet", "HEAD", "--", "src", "bench"],
            capture_output=True,
            check=False,
            timeout=10,
        ).returncode
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{head}-dirty" if dirty else head


def _version(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "absent"


def _key(key: str) -> str:
    if not _KEY.fullmatch(key):
        raise BenchFailed(f"{key!r} is not a figure name (letters, digits, _ . -)")
    return key


def _value(value: object) -> str:
    if isinstance(value, float):  # about three significant digits; pass a str to say otherwise
        text = f"{value:.2f}" if abs(value) < 10 else f"{value:.1f}" if abs(value) < 100 else f"{value:.0f}"
    else:
        text = str(value)
    return shlex.quote(text)
