"""What `run` and `demo` need from the machine, checked before anything starts: one line, exit 2."""

from __future__ import annotations

import shutil
from collections.abc import Callable

TOOLS = ("ffmpeg", "ffprobe")
PACKAGE = "ffmpeg"
"""The Debian/Ubuntu package (and Homebrew formula) that installs both."""


def missing_tools(which: Callable[[str], str | None] = shutil.which) -> str | None:
    """Why the bot cannot run here, in one line, or None."""
    missing = [tool for tool in TOOLS if which(tool) is None]
    if not missing:
        return None
    names = " and ".join(missing)
    verb = "is" if len(missing) == 1 else "are"
    return (
        f"{names} {verb} not on PATH: install the `{PACKAGE}` package (Debian/Ubuntu: apt install {PACKAGE})"
    )
