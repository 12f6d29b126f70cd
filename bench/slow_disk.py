"""A slower disk for a bench's child processes: every fsync and fdatasync takes MS longer.

What makes a disk slow or fast for a database that syncs every commit is how long a flush takes:
writes land in the page cache either way. A tiny library preloaded into a child (LD_PRELOAD)
wraps libc's fsync and fdatasync: each calls the real one, then sleeps for the delay (the
thread's timer slack set to 1 ns, so the sleep is what was asked). SQLite calls them at every
commit (synchronous=FULL) and checkpoint, from whichever process and thread: every system under
test pays the same for each flush it makes. Linux only; built with the system's C compiler
(`cc`) when a bench starts.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from harness import BenchFailed

DELAY_VARIABLE = "VIDRELAY_BENCH_SYNC_DELAY_US"
_SOURCE = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static long delay_ns = -1;
static __thread int precise = 0;

static void wait_for_the_disk(void) {
    if (delay_ns < 0) {
        const char *value = getenv("VIDRELAY_BENCH_SYNC_DELAY_US");
        delay_ns = value ? atol(value) * 1000L : 0;
    }
    if (delay_ns <= 0) return;
    if (!precise) { prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); precise = 1; }
    struct timespec left = {delay_ns / 1000000000L, delay_ns % 1000000000L};
    while (nanosleep(&left, &left) != 0) {}
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    int done = real(fd);
    wait_for_the_disk();
    return done;
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    int done = real(fd);
    wait_for_the_disk();
    return done;
}
"""
_PROBE = """
import os, sys, time
path = os.path.join(sys.argv[1], "flush-probe")
fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
flushes, started = 0, time.perf_counter()
while time.perf_counter() - started < 0.5:
    os.write(fd, b"x" * 4096)
    os.fdatasync(fd)
    flushes += 1
os.close(fd)
os.unlink(path)
print(flushes / (time.perf_counter() - started))
"""


def build(folder: Path) -> Path:
    """The preloadable library, compiled into `folder`."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None or not sys.platform.startswith("linux"):
        raise BenchFailed(
            "the slow disk needs Linux and a C compiler (cc) to build its fsync delay;"
            " --sync-delay 0 measures the disk as it is only"
        )
    library = folder / "slow_sync.so"
    source = folder / "slow_sync.c"
    source.write_text(_SOURCE)
    built = subprocess.run(
        [compiler, "-shared", "-fPIC", "-O2", "-o", str(library), str(source), "-ldl"],
        capture_output=True,
        text=True,
        check=False,
    )
    if built.returncode != 0:
        raise BenchFailed(f"building the slow disk's library failed:\n{built.stderr[-2000:]}")
    return library


def environment(library: Path | None, delay_ms: float) -> dict[str, str]:
    """A child's environment: the disk as it is (no library), or every flush `delay_ms` slower."""
    env = dict(os.environ)
    if library is not None and delay_ms > 0:
        env["LD_PRELOAD"] = " ".join(filter(None, [str(library), env.get("LD_PRELOAD", "")]))
        env[DELAY_VARIABLE] = str(round(delay_ms * 1000))
    return env


def flushes_per_second(folder: Path, env: dict[str, str]) -> float:
    """How many 4 KiB write + fdatasync pairs a child makes in `folder` per second."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(folder)], capture_output=True, text=True, env=env, check=False
    )
    if done.returncode != 0:
        raise BenchFailed(f"the flush probe failed:\n{done.stderr[-2000:]}")
    return float(done.stdout)
