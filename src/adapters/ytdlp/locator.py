"""Which yt-dlp a run uses: the updater's current install, else the packaged one.

The updater installs each release with `pip --target <data>/ytdlp/versions/<version>/` and renames
a new `<data>/ytdlp/current` symlink over the old one. The link is resolved once, when a run is
spawned, and the child gets the resolved directory on its PYTHONPATH: a download started before a
switch keeps its version to the end, and a new one sees the old or the new install, never a mix.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol


@dataclass(frozen=True, slots=True)
class YtDlpCommand:
    argv: tuple[str, ...]
    """The argv prefix: options and the URL follow it."""
    env: Mapping[str, str] = field(default_factory=dict)
    install_dir: Path | None = None
    """The resolved versioned install; None for the packaged yt-dlp."""


class Locator(Protocol):
    def command(self) -> YtDlpCommand: ...


class YtDlpLocator(Locator):
    def __init__(self, data_dir: Path | None = None, *, python: str = sys.executable) -> None:
        self._root = data_dir / "ytdlp" if data_dir is not None else None
        self._python = python

    @property
    def versions_dir(self) -> Path | None:
        return self._root / "versions" if self._root is not None else None

    @property
    def current_link(self) -> Path | None:
        return self._root / "current" if self._root is not None else None

    def command(self) -> YtDlpCommand:
        env = _child_env()
        argv = (self._python, "-m", "yt_dlp")
        link = self.current_link
        if link is None or not link.exists():
            return YtDlpCommand(argv, env)
        install = Path(os.path.realpath(link))
        # Replaces (not extends) PYTHONPATH so no other yt_dlp can shadow the selected install.
        return YtDlpCommand(argv, {**env, "PYTHONPATH": str(install)}, install)


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONUTF8"] = "1"
    return env
