"""A yt-dlp run behind the guard's proxy: its own session, passed in a config file, and what the
proxy refused it turned into the run's verdict.

The proxy URL carries the session's secret, so it is never on a command line (every local user
can read /proc/<pid>/cmdline; a fork-server run shows its argv there too): it goes in a config
file only this user can read (`--config-locations`, which `--ignore-config` still honours).
yt-dlp hands the proxy to the ffmpeg it starts for HLS/DASH through ffmpeg's environment
(FFmpegFD sets HTTP_PROXY/http_proxy), which only this user can read. `/verbose` echoes the
config file's contents, so every line the run prints is redacted before anyone sees it.

When the run fails and the proxy refused something to it, the failure is the refusal: the tool
may have hidden the 403 (a skipped HLS fragment ends in "The downloaded file is empty", an
ffmpeg download in "ffmpeg exited with code 1"), so a last ERROR line in the guard's words is
added for the classification to find.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from adapters.process import Exit
from ports.net import EgressProxy, EgressSession, refusal_phrase

LineSink = Callable[[str], None]
_HIDDEN = "***"


class GuardedRun:
    def __init__(self, session: EgressSession | None, config: Path | None) -> None:
        self._session = session
        self._config = config
        self._secret = _secret_of(session.url) if session is not None else None

    @property
    def args(self) -> tuple[str, ...]:
        """What goes before yt-dlp's own arguments."""
        return ("--config-locations", str(self._config)) if self._config is not None else ()

    def redact(self, text: str) -> str:
        return text.replace(self._secret, _HIDDEN) if self._secret and self._secret in text else text

    def sink(self, sink: LineSink) -> LineSink:
        return lambda line: sink(self.redact(line))

    def outcome(self, exit_: Exit) -> Exit:
        """The run's exit with its output redacted and, for a failed run the proxy refused
        something to, the refusal as its last ERROR line."""
        tail = self.redact(exit_.stderr_tail)
        refusals = self._session.refusals if self._session is not None else ()
        if refusals and not exit_.ok and not exit_.aborted and exit_.timed_out_after is None:
            tail += f"ERROR: {refusal_phrase(refusals[0])}\n"
        return dataclasses.replace(exit_, stderr_tail=tail)


@asynccontextmanager
async def guarded_run(proxy: EgressProxy | None, folder: Path | None) -> AsyncIterator[GuardedRun]:
    """A run behind `proxy` (none: straight out); `folder` holds the config files (this user only)."""
    if proxy is None or folder is None:
        yield GuardedRun(None, None)
        return
    session = await proxy.session()
    config = _write_private(folder, f"--proxy {session.url}\n")
    try:
        yield GuardedRun(session, config)
    finally:
        session.close()
        config.unlink(missing_ok=True)


def private_folder() -> Path:
    """A fresh folder only this user can enter (mkdtemp makes it 0700)."""
    return Path(tempfile.mkdtemp(prefix="vidrelay-egress-"))


def _write_private(folder: Path, text: str) -> Path:
    fd, name = tempfile.mkstemp(prefix="run-", suffix=".conf", dir=folder)  # mode 0600
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(text)
    return Path(name)


def _secret_of(url: str) -> str | None:
    userinfo = url.partition("://")[2].partition("@")[0]
    return userinfo.partition(":")[2] or None
