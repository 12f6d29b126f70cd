"""`vidrelay --version`: this install's version, and the yt-dlp a download would run.

The updater may have switched `<data>/ytdlp/current` to a newer yt-dlp than the one installed
with vidrelay; an operator asking for versions (a bug report, a site that broke) needs that one.
It is read from the settings' data folder when the settings load, and never fails the answer.
"""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version

from adapters.ytdlp.locator import YtDlpLocator
from entrypoints.settings import SettingsError, load_settings


def versions_line() -> str:
    packaged = _installed("yt-dlp")
    updated = _updater_install()
    ytdlp = (
        f"yt-dlp {updated} (installed by the updater; {packaged} packaged)"
        if updated
        else f"yt-dlp {packaged}"
    )
    python = ".".join(map(str, sys.version_info[:3]))
    return f"vidrelay {_installed('vidrelay')}, {ytdlp}, Python {python}"


def _installed(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "(not installed)"


def _updater_install() -> str | None:
    try:
        settings = load_settings()
    except SettingsError:
        return None
    install = YtDlpLocator(settings.data_dir).command().install_dir
    return install.name if install is not None else None
