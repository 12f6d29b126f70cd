"""The SQLite store on a real file in the test's folder, closed at the end."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.sqlite import SqliteStore


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "vidrelay.db"


@pytest.fixture
async def store(path: Path) -> AsyncIterator[SqliteStore]:
    opened = await SqliteStore.open(path)
    try:
        yield opened
    finally:
        await opened.close()
