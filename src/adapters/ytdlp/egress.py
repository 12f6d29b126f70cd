"""A yt-dlp run behind the guard's proxy: its own session, passed in a config file, and what the
proxy refused it turned into the run's verdict.

The proxy URL carries the session's secret, so it is never on a command line (every local user
can read /proc/<pid>/cmdline; a fork-server run shows its argv there too): it goes in a config
file only this user can read (`--config-locations`, which `--ignore-config` still honours).
yt-dlp hands the proxy to the ffmpeg it starts for HLS/DASH through ffmpeg's environment
(FFmpegFD sets HTTP_PROXY/http_proxy), which only this user can read; the proxy variables the bot
itself was started with are not passed on (ffmpeg would honour a `no_proxy`). `/verbose` echoes the
config file's contents, so every line the run prints is redacted before anyone sees it.

When the run fails and the proxy refused something to it, the failure is the refusal: the tool
may have hidden the 403 (a skipped HLS fragment ends in "The downloaded file is empty", an
ffmpeg download in "ffmpeg exited with code 1"), so a last ERROR line in the guard's words is
added for the classification to find.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Mapping
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

    def environment(self, env: Mapping[str, str]) -> Mapping[str, str]:
        """`env` without the proxy variables a behind-the-proxy run must not inherit: ffmpeg
        honours `no_proxy` (a `no_proxy=127.0.0.1` would send its segment requests around the
        proxy), and yt-dlp passes its environment on to ffmpeg."""
        if self._session is None:
            return env
        return {k: v for k, v in env.items() if not k.lower().endswith("_proxy") and k != "REQUEST_METHOD"}

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
async def guarded_run(proxy: EgressProxy | None) -> AsyncIterator[GuardedRun]:
    """A run behind `proxy` (None: straight out)."""
    if proxy is None:
        yield GuardedRun(None, None)
        return
    session = await proxy.session()
    folder = Path(tempfile.mkdtemp(prefix="vidrelay-egress-"))  # 0700: only this user may enter
    try:
        yield GuardedRun(session, _write_private(folder / "run.conf", f"--proxy {session.url}\n"))
    finally:
        session.close()
        shutil.rmtree(folder, ignore_errors=True)


def _write_private(path: Path, text: str) -> Path:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(text)
    return path


def _secret_of(url: str) -> str | None:
    userinfo = url.partition("://")[2].partition("@")[0]
    return userinfo.partition(":")[2] or None
