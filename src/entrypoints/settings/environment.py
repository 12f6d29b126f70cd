"""Where the settings come from: the process environment and a `.env` file in the working
directory (the file Compose reads, so a clone runs with the same settings outside a container),
the environment winning over the file; and the VIDRELAY_* names among them that are no setting,
since a misspelt name is a setting silently left at its default.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from pathlib import Path

from dotenv import dotenv_values

PREFIX = "VIDRELAY_"
ENV_FILE_VARIABLE = "VIDRELAY_ENV_FILE"
DEFAULT_ENV_FILE = ".env"


def env_file(environ: Mapping[str, str], default: str = DEFAULT_ENV_FILE) -> Path | None:
    """The env file to read (VIDRELAY_ENV_FILE, else `default`; empty: none), if it exists."""
    chosen = environ.get(ENV_FILE_VARIABLE, default)
    path = Path(chosen) if chosen else None
    return path if path is not None and path.is_file() else None


def vidrelay_variables(environ: Mapping[str, str], default_file: str = DEFAULT_ENV_FILE) -> dict[str, str]:
    """Every VIDRELAY_* value: the env file's, overridden by the environment's."""
    values: dict[str, str] = {}
    if (path := env_file(environ, default_file)) is not None:
        values.update({k: v for k, v in dotenv_values(path).items() if v is not None})
    values.update(environ)
    return {k: v for k, v in values.items() if k.startswith(PREFIX)}


def unknown_variables(names: Collection[str], known: Collection[str]) -> list[str]:
    """One line per VIDRELAY_* name that is no setting, with the closest known one."""
    lines = []
    # Compared without the prefix that every name shares, or everything would look close.
    suffixes = {name.removeprefix(PREFIX): name for name in known}
    for name in sorted(set(names) - set(known)):
        close = difflib.get_close_matches(name.removeprefix(PREFIX), sorted(suffixes), n=1, cutoff=0.6)
        hint = f": did you mean {suffixes[close[0]]}?" if close else ""
        lines.append(f"{name} is not a vidrelay setting and is ignored{hint}")
    return lines
