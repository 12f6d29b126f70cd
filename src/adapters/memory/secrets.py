"""The install's secrets in memory."""

from __future__ import annotations

from adapters.memory.tables import MemoryTablesUser
from ports.secrets import InstallSecrets


class MemoryInstallSecrets(MemoryTablesUser, InstallSecrets):
    async def install_secret(self, name: str, candidate: bytes) -> bytes:
        return self._tables.secrets.setdefault(name, bytes(candidate))
