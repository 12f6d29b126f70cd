"""A throwaway PostgreSQL server for the tests and the benchmarks: a real server, never a fake.

A Docker engine that answers gets testcontainers' PostgreSQL module; otherwise the machine's own
server binaries (Debian's `postgresql` package, which `.ci/run` installs) run a private cluster:
`initdb` in a temporary folder, `pg_ctl` on a free 127.0.0.1 port, stopped and deleted at the end.
PostgreSQL refuses to run as root, so under root the cluster belongs to the `postgres` system
user (or `nobody`). When neither way works, `PostgresUnavailable` says what to install: the
tests that need a server fail with that line, they never skip.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

SUPERUSER = "postgres"
DURABLE: Mapping[str, str] = {"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on"}
"""The server's own defaults, spelled out: what the benchmarks run on."""
FAST: Mapping[str, str] = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}
"""For tests: crash safety of the server itself is not what they check, and every commit's
fsync would cost the suite minutes on a slow disk."""
_UNPRIVILEGED_USERS = ("postgres", "nobody")
_START_TIMEOUT_SECONDS = 60
_DOCKER_PROBE_SECONDS = 10


class PostgresUnavailable(RuntimeError):
    """No Docker engine answered and no PostgreSQL server binaries were found."""


class ServerControl(Protocol):
    """Stopping and starting the running server, for the tests and benchmarks of its outages."""

    def stop(self) -> None:
        """Like `pg_ctl stop -m fast`: every session is ended, the server is down until `start`."""
        ...

    def start(self) -> None:
        """Back up, on the same address, accepting connections when this returns."""
        ...


@dataclass(frozen=True, slots=True)
class PostgresServer:
    host: str
    port: int
    user: str
    password: str
    how: str
    """"docker" or "local <bindir>": said in test and bench output."""
    control: ServerControl | None = field(default=None, compare=False, repr=False)

    def dsn(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}:{quote(self.password, safe='')}@{self.host}:{self.port}/{database}"

    def restart(self) -> None:
        """`pg_ctl restart -m fast`: every session ends, and the server is back when this returns."""
        assert self.control is not None, "this server cannot be restarted"
        self.control.stop()
        self.control.start()


@contextlib.contextmanager
def throwaway_postgres(settings: Mapping[str, str] = FAST) -> Iterator[PostgresServer]:
    """A running server with `settings` in its configuration, gone when the block ends."""
    if docker_answers():
        with _container(settings) as server:
            yield server
        return
    bindir = find_bindir()
    if bindir is None:
        raise PostgresUnavailable(
            "PostgreSQL tests need a server: no Docker engine answers and no initdb/pg_ctl were found"
            " on PATH or under /usr/lib/postgresql/*/bin (install Debian's `postgresql` package,"
            " as .ci/run does)"
        )
    with _local_cluster(bindir, settings) as server:
        yield server


def docker_answers() -> bool:
    docker = shutil.which("docker")
    if docker is None:
        return False
    try:
        probe = subprocess.run(
            [docker, "info"], capture_output=True, timeout=_DOCKER_PROBE_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def find_bindir() -> Path | None:
    """The folder holding initdb and pg_ctl: PATH first, then Debian's versioned folders, newest first."""
    on_path = shutil.which("pg_ctl")
    candidates = [Path(on_path).resolve().parent] if on_path else []
    versioned = glob.glob("/usr/lib/postgresql/*/bin")
    candidates += sorted((Path(p) for p in versioned), key=_major_version, reverse=True)
    return next((c for c in candidates if (c / "initdb").exists() and (c / "pg_ctl").exists()), None)


def _major_version(bindir: Path) -> int:
    name = bindir.parent.name
    return int(name) if name.isdigit() else 0


@contextlib.contextmanager
def _container(settings: Mapping[str, str]) -> Iterator[PostgresServer]:
    # A dev dependency, needed only where a Docker engine answers; the module moved in 4.15.
    try:
        from testcontainers.community.postgres import PostgresContainer  # noqa: PLC0415
    except ImportError:
        from testcontainers.postgres import PostgresContainer  # noqa: PLC0415

    password = secrets.token_hex(8)
    container = PostgresContainer(
        "postgres:16-alpine", username=SUPERUSER, password=password, dbname="postgres", driver=None
    )
    flags = [f"-c{key}={value}" for key, value in settings.items()]
    container.with_command(["postgres", *flags])
    with container:
        host = container.get_container_host_ip()
        port = int(container.get_exposed_port(5432))
        yield PostgresServer(host, port, SUPERUSER, password, "docker", _ContainerControl(container))


@dataclass(frozen=True, slots=True)
class _ContainerControl:
    container: Any

    def stop(self) -> None:
        self.container.get_wrapped_container().stop(timeout=30)

    def start(self) -> None:
        self.container.get_wrapped_container().start()
        deadline = time.monotonic() + _START_TIMEOUT_SECONDS
        while self.container.exec(["pg_isready", "-U", SUPERUSER]).exit_code != 0:
            if time.monotonic() > deadline:
                raise PostgresUnavailable("the PostgreSQL container did not come back up")
            time.sleep(0.2)


@contextlib.contextmanager
def _local_cluster(bindir: Path, settings: Mapping[str, str]) -> Iterator[PostgresServer]:
    folder = Path(tempfile.mkdtemp(prefix="vidrelay-pg-"))
    try:
        runner = _Runner.for_this_process(folder)
        password = secrets.token_hex(8)
        _initdb(runner, bindir, folder, password)
        port = _start(runner, bindir, folder, settings)
        stop = [str(bindir / "pg_ctl"), "stop", "-D", str(folder / "data"), "-m", "immediate", "-w"]
        watchdog = _watchdog(runner, stop, folder)
        control = _ClusterControl(runner, bindir, folder)
        try:
            yield PostgresServer("127.0.0.1", port, SUPERUSER, password, f"local {bindir}", control)
        finally:
            runner.run(stop)
            watchdog.kill()
            watchdog.wait()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


_WATCHDOG = """
import os, select, shutil, subprocess, sys
parent, folder, uid, gid, stop = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
select.select([parent], [], [])
ids = {} if uid == "-" else {"user": int(uid), "group": int(gid), "extra_groups": []}
subprocess.run(stop, capture_output=True, check=False, **ids)
shutil.rmtree(folder, ignore_errors=True)
"""


def _watchdog(runner: _Runner, stop: list[str], folder: Path) -> subprocess.Popen[bytes]:
    """The server is a daemon: should this process die before its `finally` (SIGKILL, a timeout),
    a small process of its own stops the server and deletes the folder once this one is gone."""
    uid, gid = ("-", "-") if runner.uid is None else (str(runner.uid), str(runner.gid))
    # A pidfd opened here, before the child exists, cannot name a recycled pid.
    parent = os.pidfd_open(os.getpid())
    try:
        argv = [sys.executable, "-c", _WATCHDOG, str(parent), str(folder), uid, gid, *stop]
        return subprocess.Popen(argv, start_new_session=True, stdin=subprocess.DEVNULL, pass_fds=(parent,))
    finally:
        os.close(parent)


@dataclass(frozen=True, slots=True)
class _ClusterControl:
    runner: _Runner
    bindir: Path
    folder: Path

    def stop(self) -> None:
        self._pg_ctl("stop", "-m", "fast")

    def start(self) -> None:
        self._pg_ctl("start", "-l", str(self.folder / "log"), "-t", str(_START_TIMEOUT_SECONDS))

    def _pg_ctl(self, *argv: str) -> None:
        self.runner.run(
            [str(self.bindir / "pg_ctl"), *argv, "-D", str(self.folder / "data"), "-w"], check=True
        )


@dataclass(frozen=True, slots=True)
class _Runner:
    """Runs the server's tools as an unprivileged user when this process is root."""

    uid: int | None
    gid: int | None

    @classmethod
    def for_this_process(cls, folder: Path) -> _Runner:
        if os.geteuid() != 0:
            return cls(None, None)
        for name in _UNPRIVILEGED_USERS:
            with contextlib.suppress(KeyError):
                entry = pwd.getpwnam(name)
                os.chown(folder, entry.pw_uid, entry.pw_gid)
                return cls(entry.pw_uid, entry.pw_gid)
        raise PostgresUnavailable(
            "PostgreSQL refuses to run as root and neither a `postgres` nor a `nobody` user exists"
        )

    def run(self, argv: list[str], check: bool = False) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            check=False,
            user=self.uid,
            group=self.gid,
            extra_groups=[] if self.uid is not None else None,
            cwd="/",
        )
        if check and done.returncode != 0:
            raise PostgresUnavailable(f"{Path(argv[0]).name} failed: {(done.stderr or done.stdout).strip()}")
        return done

    def write(self, path: Path, text: str) -> None:
        path.write_text(text)
        if self.uid is not None and self.gid is not None:
            os.chown(path, self.uid, self.gid)


def _initdb(runner: _Runner, bindir: Path, folder: Path, password: str) -> None:
    password_file = folder / "password"
    runner.write(password_file, password + "\n")
    argv = [str(bindir / "initdb"), "-D", str(folder / "data"), "-U", SUPERUSER, "-E", "UTF8"]
    argv += ["--locale=C", "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync"]
    runner.run([*argv, f"--pwfile={password_file}"], check=True)
    password_file.unlink()


def _start(runner: _Runner, bindir: Path, folder: Path, settings: Mapping[str, str]) -> int:
    """Start on a free port; another process may take the port between the probe and the bind, so
    a failed start is tried again on a new one."""
    config = folder / "data" / "postgresql.conf"
    base = config.read_text()
    error = ""
    for _ in range(5):
        port = _free_port()
        lines = {
            "listen_addresses": "'127.0.0.1'",
            "port": str(port),
            "unix_socket_directories": f"'{folder}'",
            "max_connections": "200",
            **{key: f"'{value}'" for key, value in settings.items()},
        }
        runner.write(config, base + "".join(f"\n{key} = {value}" for key, value in lines.items()) + "\n")
        argv = [str(bindir / "pg_ctl"), "start", "-D", str(folder / "data"), "-l", str(folder / "log")]
        started = runner.run([*argv, "-w", "-t", str(_START_TIMEOUT_SECONDS)])
        if started.returncode == 0:
            return port
        error = _log_tail(folder / "log") or started.stderr.strip()
    raise PostgresUnavailable(f"the local PostgreSQL server did not start: {error}")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _log_tail(log: Path) -> str:
    try:
        return " | ".join(log.read_text(errors="replace").strip().splitlines()[-3:])
    except OSError:
        return ""
