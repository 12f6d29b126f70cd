"""The child-process runner every tool starts through, with small real Python children."""

from __future__ import annotations

import asyncio
import signal
import sys
import textwrap
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from adapters.process import STDERR_TAIL_BYTES, Child, ChildProcesses, Exit
from tests.support.integration import wait_until
from tests.support.procs import pids_mentioning


async def run_python(
    code: str, *args: str, timeout: float = 20.0, grace: float = 1.0
) -> tuple[Exit, list[str]]:
    out: list[str] = []
    exit_ = await ChildProcesses(grace).run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        env=None,
        timeout=timeout,
        on_stdout=out.append,
        on_stderr=lambda _: None,
    )
    return exit_, out


async def test_a_long_stderr_keeps_only_its_tail_and_the_final_error_line() -> None:
    exit_, _ = await run_python(
        """
        import sys
        for i in range(400):
            print(f"[debug] noise line {i:04d} " + "y" * 900, file=sys.stderr)
        print("ERROR: the last word", file=sys.stderr)
        sys.exit(1)
        """
    )
    assert exit_.exit_code == 1
    assert not exit_.ok
    assert len(exit_.stderr_tail.encode()) <= STDERR_TAIL_BYTES
    assert exit_.stderr_tail.endswith("ERROR: the last word\n")
    assert exit_.stderr_tail.startswith("[debug] noise line ")


async def test_a_multi_megabyte_stdout_line_arrives_whole() -> None:
    exit_, out = await run_python('import sys; sys.stdout.write("{" + "z" * 5_000_000 + "}\\nnext\\n")')
    assert exit_.ok
    assert [len(line) for line in out] == [5_000_002, 4]


async def test_a_failing_callback_does_not_strand_the_child() -> None:
    seen: list[str] = []

    def explode(line: str) -> None:
        seen.append(line)
        raise RuntimeError("callback bug")

    exit_ = await ChildProcesses().run(
        [sys.executable, "-c", "print('one'); print('two')"],
        env=None,
        timeout=20,
        on_stdout=explode,
        on_stderr=lambda _: None,
    )
    assert exit_.ok
    assert seen == ["one", "two"]


async def test_a_signal_death_is_reported_as_the_signal() -> None:
    exit_, _ = await run_python("import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    assert exit_.signal == signal.SIGKILL
    assert exit_.exit_code is None
    assert exit_.timed_out_after is None


async def test_a_timeout_kills_the_whole_tree_even_a_grandchild_that_ignores_sigterm() -> None:
    marker = f"vidrelay-test-{uuid.uuid4().hex}"
    exit_, out = await run_python(
        """
        import subprocess, sys, time
        grandchild = (
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); "
            "time.sleep(60)"
        )
        subprocess.Popen([sys.executable, "-c", grandchild, sys.argv[1]])
        time.sleep(60)
        """,
        marker,
        timeout=1.5,
        grace=0.5,
    )
    assert exit_.timed_out_after == 1.5
    assert not exit_.aborted
    assert out == ["ready"]
    assert pids_mentioning(marker) == []


async def test_a_spawn_failure_is_a_failure_not_an_exception() -> None:
    exit_ = await ChildProcesses().run(
        ["/nonexistent/yt-dlp"], env=None, timeout=5, on_stdout=lambda _: None, on_stderr=lambda _: None
    )
    assert not exit_.ok
    assert exit_.stderr_tail.startswith("ERROR: could not start /nonexistent/yt-dlp")


async def test_after_shutdown_nothing_is_spawned() -> None:
    children = ChildProcesses()
    await children.shutdown()
    marker = f"vidrelay-test-{uuid.uuid4().hex}"
    exit_ = await children.run(
        [sys.executable, "-c", "import time; time.sleep(30)", marker],
        env=None,
        timeout=5,
        on_stdout=lambda _: None,
        on_stderr=lambda _: None,
    )
    assert exit_.aborted
    assert pids_mentioning(marker) == []


async def test_a_cancel_during_the_kill_grace_kills_at_once_and_propagates() -> None:
    marker = f"vidrelay-test-{uuid.uuid4().hex}"
    said: list[str] = []
    stubborn = textwrap.dedent(
        """
        import signal, time
        signal.signal(signal.SIGTERM, lambda *_: print("term", flush=True))
        print("ready", flush=True)
        time.sleep(60)
        """
    )
    children = ChildProcesses(kill_grace_seconds=30.0)
    task = asyncio.create_task(
        children.run(
            [sys.executable, "-c", stubborn, marker],
            env=None,
            timeout=0.3,
            on_stdout=said.append,
            on_stderr=lambda _: None,
        )
    )
    await wait_until(lambda: "term" in said)  # timed out, now inside the 30 s grace
    started = time.monotonic()

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert time.monotonic() - started < 5
    assert pids_mentioning(marker) == []


async def test_a_spawner_that_fails_leaves_the_run_to_a_plain_process() -> None:
    async def broken(argv: Sequence[str], env: Mapping[str, str] | None) -> Child | None:
        raise RuntimeError("no warm start today")

    out: list[str] = []
    exit_ = await ChildProcesses().run(
        [sys.executable, "-c", "print('plain')"],
        env=None,
        timeout=20,
        on_stdout=out.append,
        on_stderr=lambda _: None,
        spawn=broken,
    )
    assert exit_.ok
    assert out == ["plain"]


async def test_capture_returns_the_whole_stdout_and_runs_in_the_given_folder(tmp_path: Path) -> None:
    ran = await ChildProcesses().capture(
        [sys.executable, "-c", "import os, sys; print(os.getcwd()); print('x' * 200_000)"],
        cwd=tmp_path,
        timeout=20,
    )
    assert ran.exit.ok
    assert ran.stdout.split("\n") == [str(tmp_path), "x" * 200_000]


async def test_a_spawner_is_not_asked_for_a_run_with_its_own_folder(tmp_path: Path) -> None:
    asked: list[Sequence[str]] = []

    async def spawner(argv: Sequence[str], env: Mapping[str, str] | None) -> Child | None:
        asked.append(argv)
        return None

    exit_ = await ChildProcesses().run(
        [sys.executable, "-c", "pass"],
        env=None,
        cwd=tmp_path,
        timeout=20,
        on_stdout=lambda _: None,
        on_stderr=lambda _: None,
        spawn=spawner,
    )
    assert exit_.ok
    assert asked == []


@pytest.mark.parametrize(
    ("exit_", "said"),
    [
        (Exit(0, None, ""), "exit status 0"),
        (Exit(2, None, ""), "exit status 2"),
        (Exit(None, 9, ""), "killed by signal 9"),
        (Exit(None, 15, "", timed_out_after=1.5), "timed out after 1.5 s"),
        (Exit(None, 15, "", aborted=True), "stopped for shutdown"),
        (Exit(None, None, "ERROR: could not start x"), "no exit status"),
    ],
)
def test_an_exit_describes_how_it_ended(exit_: Exit, said: str) -> None:
    assert exit_.describe() == said
