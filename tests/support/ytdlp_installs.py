"""yt-dlp installs a test puts where the updater puts releases (`<data>/ytdlp/versions/<v>/`), and
the updater's switch to one: the real locator then runs them, in the tests and in the bot."""

from __future__ import annotations

import textwrap
from pathlib import Path


def install_fake_ytdlp(data: Path, version: str, main: str) -> Path:
    """A fake yt_dlp package installed where the updater puts a release; its install dir."""
    package = data / "ytdlp" / "versions" / version / "yt_dlp"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(textwrap.dedent(main))
    return package.parent


def switch_ytdlp(data: Path, version: str) -> None:
    """The updater's switch: a new symlink renamed over `current`."""
    link = data / "ytdlp" / "current"
    tmp = link.with_name("current.new")
    tmp.symlink_to(data / "ytdlp" / "versions" / version)
    tmp.replace(link)
