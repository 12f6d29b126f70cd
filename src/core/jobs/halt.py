"""The engine stops by itself when the store's data is damaged: every worker stops instead of
looping on it, and whoever runs the engine is told why, once (the process then exits)."""

from __future__ import annotations

import asyncio
import logging

from core.jobs.signals import Signal
from ports.errors import StoreDamaged

log = logging.getLogger("vidrelay.engine")


class Halt:
    def __init__(self, *, stopping: asyncio.Event, wake: Signal) -> None:
        """`stopping`: the workers stop claiming; `wake`: idle ones wake to see it."""
        self._stopping = stopping
        self._wake = wake
        self._damaged = asyncio.Event()
        self.damage: StoreDamaged | None = None

    def __call__(self, error: StoreDamaged) -> None:
        if self.damage is not None:
            return
        self.damage = error
        log.critical("the store is damaged, the workers stop", exc_info=error)
        self._stopping.set()
        self._wake.fire()
        self._damaged.set()

    async def until_damaged(self) -> StoreDamaged:
        await self._damaged.wait()
        assert self.damage is not None
        return self.damage
