"""The install's secrets on SQLite: the first candidate stored under a name wins, for every process."""

from __future__ import annotations

from adapters.sqlite.connection import Db, fetch_one
from adapters.sqlite.port_base import SqliteAccess
from ports.secrets import InstallSecrets

_KEEP_FIRST_CANDIDATE = """
    INSERT INTO install_secrets (name, value, created_at)
    VALUES (?, ?, (julianday('now') - 2440587.5) * 86400.0)
    ON CONFLICT DO NOTHING
"""
_STORED_VALUE = "SELECT value FROM install_secrets WHERE name = ?"


class SqliteInstallSecrets(SqliteAccess, InstallSecrets):
    async def install_secret(self, name: str, candidate: bytes) -> bytes:
        async def work(db: Db) -> bytes:
            await db.execute(_KEEP_FIRST_CANDIDATE, (name, candidate))
            (value,) = await fetch_one(db, _STORED_VALUE, (name,))
            return bytes(value)

        return await self._write(work)
