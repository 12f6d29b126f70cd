"""Name resolution, so the SSRF decision can be made before any request leaves the process."""

from __future__ import annotations

from typing import Protocol


class HostResolver(Protocol):
    async def resolve(self, host: str) -> list[str]:
        """Every address `host` resolves to (IP literals resolve to themselves); [] if none."""
        ...
