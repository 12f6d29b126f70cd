"""Base of the per-port classes of SqliteStore: every operation goes through its one writer."""

from __future__ import annotations

from typing import TypeVar

from adapters.sqlite.connection import Work
from adapters.sqlite.writer import GroupCommitWriter

T = TypeVar("T")


class SqliteAccess:
    _writer: GroupCommitWriter
    _fair: bool
    """The queue's order: fair (ports.queue), or first-in, first-out (a comparison)."""

    async def _write(self, work: Work[T]) -> T:
        return await self._writer.submit(work)

    async def _read(self, work: Work[T]) -> T:
        return await self._writer.submit(work, writes=False)
