"""The driver this adapter needs: asyncpg 0.30 or newer (its pools take `reset=`, which the store
uses to skip the reset query on every release). pyproject.toml's floor says the same; an older
asyncpg is refused at the store's open with one line rather than a TypeError mid-start."""

from __future__ import annotations

from typing import Final

import asyncpg

from ports.errors import StoreRefused

FLOOR: Final = (0, 30)


def too_old(version: str) -> str | None:
    """Why `version` of asyncpg cannot serve the store, or None."""
    try:
        found = tuple(int(part) for part in version.split(".")[:2])
    except ValueError:
        return None  # a development build: let it try
    if found >= FLOOR:
        return None
    floor = ".".join(map(str, FLOOR))
    return (
        f"asyncpg {version} is too old for the PostgreSQL store:"
        f" install asyncpg>={floor} (pip install -U asyncpg)"
    )


def check_driver() -> None:
    """StoreRefused when the installed asyncpg is older than the floor."""
    if (problem := too_old(asyncpg.__version__)) is not None:
        raise StoreRefused(problem)
