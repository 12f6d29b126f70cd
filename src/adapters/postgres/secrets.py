"""The install's signing secrets on PostgreSQL: every process of the deployment signs alike."""

from __future__ import annotations

from adapters.postgres.database import PostgresAccess
from ports.secrets import InstallSecrets

# The first writer wins: a concurrent insert waits for the other's commit and then does nothing;
# the value is read by a statement of its own, which sees the winner's committed row.
_KEEP_FIRST_CANDIDATE = """
    INSERT INTO install_secrets (name, value, created_at)
    VALUES ($1, $2, extract(epoch FROM clock_timestamp()))
    ON CONFLICT DO NOTHING
"""
_STORED_VALUE = "SELECT value FROM install_secrets WHERE name = $1"


class PostgresInstallSecrets(PostgresAccess, InstallSecrets):
    async def install_secret(self, name: str, candidate: bytes) -> bytes:
        await self._db.execute(_KEEP_FIRST_CANDIDATE, name, candidate)
        value: bytes = await self._db.fetchval(_STORED_VALUE, name)
        return bytes(value)
