"""Base of the per-port classes of SqliteStore: every operation goes through its one writer."""

from __future__ import annotations

from typing import Any, TypeVar

from adapters.sqlite.connection import Work
from adapters.sqlite.kinds import ALONE, Kind
from adapters.sqlite.writer import GroupCommitWriter

T = TypeVar("T")


class SqliteAccess:
    _writer: GroupCommitWriter
    _fair: bool
    """The queue's order: fair (ports.queue), or first-in, first-out (a comparison)."""

    async def _write(self, work: Work[T]) -> T:
        answer: T = await self._writer.submit(ALONE, work)
        return answer

    async def _read(self, work: Work[T]) -> T:
        answer: T = await self._writer.submit(ALONE, work, writes=False)
        return answer

    async def _together(self, kind: Kind, request: object) -> Any:
        """One request of a kind that runs all of a batch's requests at once."""
        return await self._writer.submit(kind, request)
