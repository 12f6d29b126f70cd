"""Every store port on one PostgreSQL database, for one ingest process and many workers on many
machines: one class per port (jobs, failed_jobs, pending, blobs, caches, secrets, chat_settings)
over one pool.

Unlike SQLite there is no single-instance lock: any number of processes share the database, and
the leases, fencing tokens and dead-holder rule of the queue are what keep them apart.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from typing import Final

from adapters.postgres.blobs import PostgresBlobIndex
from adapters.postgres.caches import PostgresHandledUrls, PostgresInfoCache
from adapters.postgres.cancels import PostgresJobCancels
from adapters.postgres.chat_settings import PostgresChatSettings
from adapters.postgres.claims import ClaimBatcher
from adapters.postgres.connection import DRIVER_ERRORS, connect, open_pool
from adapters.postgres.database import Database
from adapters.postgres.dsn import masked
from adapters.postgres.jobs import PostgresJobQueue
from adapters.postgres.notices import WorkListener, WorkNotifier
from adapters.postgres.pending import PostgresPending
from adapters.postgres.queue_view import PostgresQueueView
from adapters.postgres.quota import PostgresUserQuota
from adapters.postgres.schema import MIGRATIONS, Migration, migrate
from adapters.postgres.secrets import PostgresInstallSecrets
from ports.clock import Clock
from ports.errors import StoreError
from ports.notices import WorkNotices
from ports.store import Store

DEFAULT_POOL_SIZE: Final = 4
"""Connections per process besides the listening one and the claims' one (all of the workers'
claims share one round trip at a time): these serve the handlers' enqueues, the heartbeats and
the other finishing writes."""


class PostgresStore(
    PostgresJobQueue,
    PostgresJobCancels,
    PostgresQueueView,
    PostgresUserQuota,
    PostgresPending,
    PostgresBlobIndex,
    PostgresInfoCache,
    PostgresHandledUrls,
    PostgresInstallSecrets,
    PostgresChatSettings,
    WorkNotices,
    Store,
):
    def __init__(
        self, db: Database, claims_db: Database, node: str, listener: WorkListener, *, fair: bool = True
    ) -> None:
        """Use `PostgresStore.open`."""
        self._fair = fair
        self._db = db
        self._claims_db = claims_db
        self._node = node
        self._claims = ClaimBatcher(claims_db)
        self._notifier = WorkNotifier(
            db,
            listener.token,
            wake_here=listener.wake_all,
            quick_here=listener.quick_all,
            check_here=listener.check_all,
        )
        self._listener = listener
        self._closed = False

    @classmethod
    async def open(
        cls,
        dsn: str,
        *,
        node: str,
        pool_size: int = DEFAULT_POOL_SIZE,
        clock: Clock,
        migrations: Sequence[Migration] = MIGRATIONS,
        fair: bool = True,
    ) -> PostgresStore:
        """Connect, migrate (once, whoever starts first), open the pool. `fair` False: claims go
        first-in, first-out instead of in the fair order (see ports.queue; a comparison).

        `node` names this process's blob folder (its bytes are its own, see blobs.py). StoreError
        (its message masks the password) when the database cannot be used; StoreRefused when it
        is not ours to touch."""
        connection = await connect(dsn)
        try:
            await migrate(connection, migrations)
        except DRIVER_ERRORS as error:
            raise StoreError(f"cannot prepare the PostgreSQL database {masked(dsn)}: {error}") from error
        finally:
            await connection.close()
        pool = await open_pool(dsn, pool_size)
        try:
            # The workers' claims run one round trip at a time on a connection of their own, so
            # a burst of enqueues holding every pooled connection never delays the next claim.
            claims_pool = await open_pool(dsn, 1)
        except BaseException:
            await pool.close()
            raise
        return cls(
            Database(pool),
            Database(claims_pool),
            node,
            WorkListener(dsn, clock, secrets.token_hex(8)),
            fair=fair,
        )

    def on_work(self, wake: Callable[[], None]) -> None:
        self._listener.on_work(wake)

    def on_cancel(self, check: Callable[[], None]) -> None:
        self._listener.on_cancel(check)

    def on_quick_work(self, wake: Callable[[], None]) -> None:
        self._listener.on_quick_work(wake)

    @property
    def listener(self) -> WorkListener:
        return self._listener

    async def close(self) -> None:
        """Finish the round trips already submitted, then close every connection."""
        if self._closed:
            return
        self._closed = True
        await self._listener.close()
        await self._claims.close()
        await self._notifier.close()
        try:
            await self._claims_db.pool.close()
            await self._db.pool.close()
        except DRIVER_ERRORS as error:
            raise StoreError(f"closing the PostgreSQL pool failed: {error}") from error
