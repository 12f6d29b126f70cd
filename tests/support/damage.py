"""A store file with real damage: rows written by the real store, then bytes of its table pages
overwritten on disk, as a failing disk or a careless copy leaves them."""

from __future__ import annotations

import os
import random
from pathlib import Path

from adapters.sqlite import SqliteStore
from ports.jobs import NewJob

NOW = 1_700_000_000.0
PAGE = 4096
"""SQLite's default page size, which the store keeps."""


async def filled_and_closed(path: Path, rows: int = 2000) -> None:
    """Enough queued jobs that their table spans hundreds of pages; closed, so every byte is in
    the file itself (no WAL left)."""
    store = await SqliteStore.open(path)
    try:
        for n in range(rows):
            await store.enqueue(
                NewJob("download_video", {"n": n, "url": "https://example.com/" + "v" * 200}, 3), NOW
            )
    finally:
        await store.close()


def scribble_table_pages(path: Path, seed: int = 20) -> None:
    """Overwrite the cells of the file's second half of pages (the rows written last; the header
    page and the schema stay whole) with random bytes, in place."""
    pages = path.stat().st_size // PAGE
    noise = random.Random(seed)
    with path.open("r+b") as file:
        for page in range(pages // 2, pages):
            file.seek(page * PAGE + 16)
            file.write(noise.randbytes(PAGE - 32))
        file.flush()
        os.fsync(file.fileno())
