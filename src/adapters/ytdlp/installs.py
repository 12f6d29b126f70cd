"""The yt-dlp versions kept on disk beside the packaged one, and what a rollback goes back to.

A version is a `versions/<version>/` folder the updater verified and named (hidden names are
its work in progress), or the packaged yt-dlp, which runs while no `current` link exists.
"""

from __future__ import annotations

import importlib.metadata
import shutil
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "yt-dlp"


@dataclass(frozen=True, slots=True)
class Install:
    version: str
    folder: Path | None
    """None: the packaged yt-dlp."""


def release_of(version: str) -> tuple[int, ...]:
    """The numeric release: `2025.01.12` (what yt-dlp prints) and `2025.1.12` (what pip says) match,
    as do a nightly's `2025.01.12.232754` and `2025.1.12.232754.dev0`."""
    words = version.strip().lstrip("v").split()
    numbers: list[int] = []
    for part in (words[0] if words else "").split("."):
        if not part.isdigit():
            break
        numbers.append(int(part))
    while numbers and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


def packaged_version() -> str | None:
    """The yt-dlp installed with vidrelay, which runs while no versioned install is selected."""
    try:
        return importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None


def previous_install(versions_dir: Path, current: str, avoid: Collection[str]) -> Install | None:
    """The newest version on disk (the packaged one included) older than `current` and not one
    of `avoid`; None when there is none."""
    below, bad = release_of(current), {release_of(v) for v in avoid}
    kept = [Install(p.name, p) for p in _folders(versions_dir)]
    packaged = packaged_version()
    candidates = [*kept, *([Install(packaged, None)] if packaged is not None else [])]
    older = [c for c in candidates if () < release_of(c.version) < below and release_of(c.version) not in bad]
    return max(older, key=lambda c: release_of(c.version), default=None)


def _folders(versions_dir: Path) -> list[Path]:
    if not versions_dir.is_dir():
        return []
    return [p for p in versions_dir.iterdir() if p.is_dir() and not p.name.startswith(".")]


def remove_tree(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    elif path.exists():
        shutil.rmtree(path, ignore_errors=True)
