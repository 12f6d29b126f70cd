"""yt-dlp self-update: a versioned install beside the running one, switched by one rename.

Layout under the data folder, the same one the locator resolves:

    ytdlp/versions/<version>/    `pip install --target` of one yt-dlp release, with its extras
    ytdlp/current                symlink -> versions/<version>

A release is installed under a hidden name, verified (`python -m yt_dlp --version` with that
directory on PYTHONPATH), renamed to its version, and only then selected: a new symlink is made
under a temporary name and `os.replace`d over `current`. The link is never missing and never
points at a half-written install; a download spawned before the switch resolved the old
directory and keeps it. Any failure keeps the current version and removes what it made.
The previous version stays (a running download may still import from it, and a rollback goes
back to it); older ones go.

A rollback (`roll_back`) selects the newest older version kept — the previous one, or the packaged
yt-dlp, by removing the link — when the version in use is one the caller names as broken; an update
does not install a release so named again, and waits for a newer one.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import secrets
import sys
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Literal

from adapters.process import ChildProcesses
from adapters.ytdlp.installs import (
    PACKAGE,
    Install,
    packaged_version,
    previous_install,
    release_of,
    remove_tree,
)
from ports.media import UpdateOutcome, Updater

log = logging.getLogger("vidrelay.ytdlp.updater")

Channel = Literal["stable", "nightly"]

__all__ = ["EXTRAS", "YtDlpUpdater", "packaged_version", "release_of"]

EXTRAS = "default"
"""What a release needs beside it: yt-dlp-ejs (YouTube's challenge solver, pinned by each release to
the version it works with), brotli, websockets, certifi… The `deno` extra is not reinstalled: it
is a runtime binary yt-dlp finds beside the interpreter (the venv's bin) or on PATH, never inside
an install's folder, so the one vidrelay was installed with serves every release."""
VERSIONS_DIR = "versions"
CURRENT_LINK = "current"
_INSTALLING_PREFIX = ".installing-"
_DISCARDED_PREFIX = ".discarded-"
_LINK_PREFIX = ".current-"
_SAFE_VERSION = re.compile(r"[0-9][0-9A-Za-z.+_-]*")
_TAIL_CHARS = 2000


class _StepFailed(Exception):
    """One step of an update failed; the current version stays."""


class YtDlpUpdater(Updater):
    def __init__(
        self,
        data_dir: Path | str,
        *,
        channel: Channel = "stable",
        pip_args: Sequence[str] = (),
        python: str = sys.executable,
        pip_command: Sequence[str] | None = None,
        check_timeout: float = 120.0,
        install_timeout: float = 600.0,
        verify_timeout: float = 60.0,
    ) -> None:
        """`pip_args` choose the package index (`--index-url URL`, `--find-links DIR --no-index`,
        `--isolated`, ...); without them pip's own configuration decides. `channel="nightly"` lets
        pre-releases count. `pip_command` defaults to `python -m pip`."""
        if channel not in ("stable", "nightly"):
            raise ValueError(f"unknown yt-dlp channel: {channel!r}")
        self._root = Path(data_dir) / "ytdlp"
        self._channel = channel
        self._pip_args = tuple(pip_args)
        self._python = python
        self._pip = tuple(pip_command) if pip_command is not None else (python, "-m", "pip")
        self._check_timeout = check_timeout
        self._install_timeout = install_timeout
        self._verify_timeout = verify_timeout
        self._children = ChildProcesses()
        self._inflight: asyncio.Future[UpdateOutcome] | None = None
        self._switching = asyncio.Lock()
        """Held by an update and by a rollback: each decides from the version in use."""

    @property
    def versions_dir(self) -> Path:
        return self._root / VERSIONS_DIR

    @property
    def current_link(self) -> Path:
        return self._root / CURRENT_LINK

    async def current_version(self) -> str | None:
        selected = self._selected_dir()
        return selected.name if selected is not None else packaged_version()

    def _selected_dir(self) -> Path | None:
        link = self.current_link
        return Path(os.path.realpath(link)) if link.exists() else None

    async def update(self, avoid: Collection[str] = ()) -> UpdateOutcome:
        """Single flight: a call while an update runs gets that update's outcome."""
        if self._inflight is not None:
            return await asyncio.shield(self._inflight)
        inflight: asyncio.Future[UpdateOutcome] = asyncio.get_running_loop().create_future()
        self._inflight = inflight
        try:
            async with self._switching:
                outcome = await self._update(avoid)
        except asyncio.CancelledError:
            inflight.set_result(UpdateOutcome(False, None, None, error="update cancelled"))
            raise
        except Exception as e:
            log.exception("yt-dlp update: unexpected error; keeping the current version")
            outcome = UpdateOutcome(False, None, None, error=f"unexpected error: {e}")
        finally:
            self._inflight = None
        inflight.set_result(outcome)
        return outcome

    async def _update(self, avoid: Collection[str]) -> UpdateOutcome:
        before = await self.current_version()
        try:
            await asyncio.to_thread(self._remove_leftovers)
            latest = await self._latest()
            if release_of(latest) in {release_of(v) for v in avoid}:
                log.info("yt-dlp %s was rolled back: staying on %s until a newer release", latest, before)
                return UpdateOutcome(False, before, before)
            if before is not None and release_of(latest) <= release_of(before):
                log.info("yt-dlp %s is up to date (%s channel)", before, self._channel)
                return UpdateOutcome(False, before, before)
            previous = self._selected_dir()
            installed = await self._install(latest)
        except (_StepFailed, OSError) as e:
            log.warning(
                "yt-dlp update failed, keeping %s", before or "the packaged yt-dlp", extra={"error": str(e)}
            )
            return UpdateOutcome(False, before, before, error=str(e))
        log.info("yt-dlp updated: %s -> %s (%s channel)", before, latest, self._channel)
        keep = {installed.name} | ({previous.name} if previous is not None else set())
        try:
            await asyncio.to_thread(self._prune, keep)
        except OSError:
            log.warning("yt-dlp update: could not remove old versions", exc_info=True)
        return UpdateOutcome(True, before, latest)

    async def previous_version(self, avoid: Collection[str] = ()) -> str | None:
        previous = await asyncio.to_thread(self._previous, await self.current_version(), avoid)
        return previous.version if previous is not None else None

    async def roll_back(self, avoid: Collection[str]) -> UpdateOutcome:
        async with self._switching:
            before = await self.current_version()
            if before is None or release_of(before) not in {release_of(v) for v in avoid}:
                return UpdateOutcome(False, before, before)
            target = await asyncio.to_thread(self._previous, before, avoid)
            if target is None:
                return UpdateOutcome(False, before, before, error=f"no yt-dlp older than {before} is kept")
            try:
                await asyncio.to_thread(self._select, target)
            except OSError as e:
                return UpdateOutcome(False, before, before, error=f"rollback: {e}")
            log.info("yt-dlp switched back: %s -> %s", before, target.version)
            return UpdateOutcome(True, before, target.version)

    def _previous(self, current: str | None, avoid: Collection[str]) -> Install | None:
        if current is None or self._selected_dir() is None:
            return None  # the packaged yt-dlp runs: nothing older is kept
        return previous_install(self.versions_dir, current, avoid)

    async def _latest(self) -> str:
        """The newest release the index offers on this channel (pip's resolver, nothing installed)."""
        report_json = await self._run_pip(
            "install",
            "--dry-run",
            "--ignore-installed",
            "--report",
            "-",
            *(["--pre"] if self._channel == "nightly" else []),
            PACKAGE,
            timeout=self._check_timeout,
            what="version check",
        )
        try:
            report = json.loads(report_json)
            version = next(
                str(item["metadata"]["version"])
                for item in report["install"]
                if _canonical(str(item["metadata"]["name"])) == PACKAGE
            )
        except (ValueError, KeyError, TypeError, StopIteration) as e:
            raise _StepFailed(f"version check: unreadable pip report ({e!r})") from e
        if not _SAFE_VERSION.fullmatch(version) or not release_of(version):
            raise _StepFailed(f"version check: refusing version {version!r}")
        return version

    async def _install(self, version: str) -> Path:
        staged = self.versions_dir / f"{_INSTALLING_PREFIX}{version}-{secrets.token_hex(4)}"
        try:
            await asyncio.to_thread(self.versions_dir.mkdir, parents=True, exist_ok=True)
            await self._run_pip(
                "install",
                "--target",
                str(staged),
                f"{PACKAGE}[{EXTRAS}]=={version}",
                timeout=self._install_timeout,
                what="install",
            )
            await self._verify(staged, version)
            installed = await asyncio.to_thread(self._settle, staged, version)
            await asyncio.to_thread(self._switch_to, installed)
        except BaseException:
            await asyncio.shield(asyncio.to_thread(remove_tree, staged))
            raise
        return installed

    async def _verify(self, install: Path, version: str) -> None:
        ran = await self._run(
            (self._python, "-m", "yt_dlp", "--version"),
            env=_env_with_pythonpath(install),
            cwd=install,
            timeout=self._verify_timeout,
            what="verify",
        )
        printed = ran.strip()
        if release_of(printed) != release_of(version):
            raise _StepFailed(f"verify: the new install prints {printed[:80]!r}, expected {version}")

    def _settle(self, staged: Path, version: str) -> Path:
        """Give the verified install its version's name (an unselected leftover of that name goes)."""
        final = self.versions_dir / version
        if final == self._selected_dir():
            raise _StepFailed(f"install: {version} is the selected version already")
        if final.exists() or final.is_symlink():
            discarded = self.versions_dir / f"{_DISCARDED_PREFIX}{version}-{secrets.token_hex(4)}"
            final.rename(discarded)
            remove_tree(discarded)
        staged.rename(final)
        return final

    def _switch_to(self, install: Path) -> None:
        try:
            self._link(install)
        except OSError:
            remove_tree(install)
            raise

    def _link(self, install: Path) -> None:
        temporary = self._root / f"{_LINK_PREFIX}{secrets.token_hex(4)}"
        try:
            temporary.symlink_to(Path(VERSIONS_DIR) / install.name)
            os.replace(temporary, self.current_link)
        except OSError:
            temporary.unlink(missing_ok=True)
            raise

    def _select(self, install: Install) -> None:
        """Back to a kept version; to the packaged one, the link goes (one unlink, as atomic)."""
        if install.folder is None:
            self.current_link.unlink(missing_ok=True)
        else:
            self._link(install.folder)

    def _prune(self, keep: set[str]) -> None:
        for entry in self.versions_dir.iterdir():
            if entry.name not in keep and not entry.name.startswith("."):
                log.info("yt-dlp update: removing old version %s", entry.name)
                remove_tree(entry)

    def _remove_leftovers(self) -> None:
        """Hidden names are work in progress of an update; none runs now, so they are garbage."""
        leftovers = [
            *(self._root.glob(f"{_LINK_PREFIX}*")),
            *(self.versions_dir.glob(f"{_INSTALLING_PREFIX}*")),
            *(self.versions_dir.glob(f"{_DISCARDED_PREFIX}*")),
        ]
        for leftover in leftovers:
            remove_tree(leftover)

    async def _run_pip(self, *args: str, timeout: float, what: str) -> str:
        argv = (
            *self._pip,
            args[0],
            "--no-input",
            "--disable-pip-version-check",
            "--quiet",
            "--only-binary=:all:",
            *self._pip_args,
            *args[1:],
        )
        return await self._run(argv, env=None, cwd=None, timeout=timeout, what=what)

    async def _run(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None,
        cwd: Path | None,
        timeout: float,
        what: str,
    ) -> str:
        """The run's stdout; `_StepFailed` when it did not exit 0 within `timeout`."""
        ran = await self._children.capture(argv, env=env, cwd=cwd, timeout=timeout)
        if ran.exit.ok:
            return ran.stdout
        if ran.exit.timed_out_after is not None:
            raise _StepFailed(f"{what}: {ran.exit.describe()}")
        tail = (ran.exit.stderr_tail.strip() or ran.stdout.strip())[-_TAIL_CHARS:]
        raise _StepFailed(f"{what}: {ran.exit.describe()}: {tail}")


def _env_with_pythonpath(install: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(install)
    return env


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()
