"""The install's signing keys, from one secret the store keeps.

The secret is made on the first boot of an install and kept in the store, not in a process:
it survives restarts (a prompt posted before one still works after it), and every process of a
deployment that shares the store (ingest and workers on PostgreSQL) signs and verifies alike.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from core.trust.mac import derive_key
from ports.secrets import InstallSecrets

STORED_AS = "signing"
"""The name the secret is kept under in the store."""
SECRET_BYTES = 32


class InstallKeys:
    def __init__(self, secrets: InstallSecrets, new_secret: Callable[[int], bytes]) -> None:
        """`new_secret(n)`: n bytes from a CSPRNG (secrets.token_bytes), a candidate used only
        when the store has no secret yet."""
        self._secrets = secrets
        self._new_secret = new_secret
        self._secret: bytes | None = None
        self._loading = asyncio.Lock()

    async def key(self, purpose: str) -> bytes:
        return derive_key(await self._install_secret(), purpose)

    async def _install_secret(self) -> bytes:
        if self._secret is None:
            async with self._loading:
                if self._secret is None:
                    candidate = self._new_secret(SECRET_BYTES)
                    self._secret = await self._secrets.install_secret(STORED_AS, candidate)
        return self._secret
