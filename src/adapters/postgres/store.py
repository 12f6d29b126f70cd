"""Every store port on one PostgreSQL database, for one ingest process and many workers on many
machines: one class per port (jobs, failed_jobs, pending, blobs, caches, secrets, chat_settings,
inbox, the yt-dlp record) over one pool.

Unlike SQLite there is no single-instance lock: any number of processes share the database, and
the leases, fencing tokens and dead-holder rule of the queue are what keep them apart; a process
that died is seen gone by its sessions (presence.py).
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Final

from adapters.postgres.blobs import PostgresBlobIndex
from adapters.postgres.caches import PostgresHandledUrls, PostgresInfoCache
from adapters.postgres.cancels import PostgresJobCancels
from adapters.postgres.chat_settings import PostgresChatSettings
from adapters.postgres.claims import ClaimBatcher
from adapters.postgres.connection import APPLICATION_NAME, KeptAliveConnection, connect, open_pool
from adapters.postgres.database import Database
from adapters.postgres.driver import check_driver
from adapters.postgres.dsn import masked
from adapters.postgres.enqueues import EnqueueBatcher
from adapters.postgres.errors import as_store_errors
from adapters.postgres.held_back import PostgresHeldBackJobs
from adapters.postgres.inbox import PostgresInbox
from adapters.postgres.jobs import PostgresJobQueue
from adapters.postgres.limits import DEFAULT_LIMITS, SessionLimits
from adapters.postgres.notices import WorkListener, WorkNotifier
from adapters.postgres.pending import PostgresPending
from adapters.postgres.presence import GRACE_SECONDS, Presence
from adapters.postgres.queue_view import PostgresQueueView
from adapters.postgres.quota import PostgresUserQuota
from adapters.postgres.schema import MIGRATIONS, Migration, migrate
from adapters.postgres.secrets import PostgresInstallSecrets
from adapters.postgres.ytdlp_record import PostgresYtDlpRecord
from ports.clock import Clock
from ports.notices import WorkNotices
from ports.store import Store

DEFAULT_POOL_SIZE: Final = 4
"""Connections per process besides the listening one and the claims' one (all of the workers'
claims share one round trip at a time): these serve the handlers' enqueues, the heartbeats and
the other finishing writes."""
MIGRATION_SECONDS: Final = 600.0
"""A migration's statements may rewrite a large table: bounded, but not like a store call."""


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
    PostgresInbox,
    PostgresHeldBackJobs,
    PostgresYtDlpRecord,
    WorkNotices,
    Store,
):
    def __init__(
        self,
        db: Database,
        claims_db: Database,
        node: str,
        listener: WorkListener,
        presence: Presence,
        *,
        fair: bool = True,
    ) -> None:
        """Use `PostgresStore.open`."""
        self._fair = fair
        self._db = db
        self._claims_db = claims_db
        self._node = node
        self._presence = presence
        self._claims = ClaimBatcher(claims_db, presence)
        self._enqueues = EnqueueBatcher(db, self._enqueue_alone)
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
        limits: SessionLimits = DEFAULT_LIMITS,
        connection_class: type[KeptAliveConnection] = KeptAliveConnection,
        presence_grace_seconds: float = GRACE_SECONDS,
    ) -> PostgresStore:
        """Connect, migrate (once, whoever starts first), open the pool. `fair` False: claims go
        first-in, first-out instead of in the fair order (see ports.queue; a comparison).

        `node` names this process's blob folder (its bytes are its own, see blobs.py). StoreError
        (its message masks the password) when the database cannot be used; StoreRefused when it
        is not ours to touch. `connection_class` lets tests cause driver failures a real server
        cannot produce on demand. Every connection carries the store's session name: while one
        of them is seen, its workers are alive (presence.py)."""
        check_driver()
        token = secrets.token_hex(8)
        session = f"{APPLICATION_NAME} {token}"
        opened = functools.partial(
            open_pool, dsn, limits=limits, application_name=session, connection_class=connection_class
        )
        await _migrate(dsn, migrations, replace(limits, statement_seconds=MIGRATION_SECONDS))
        pool = await opened(pool_size)
        try:
            # The workers' claims run one round trip at a time on a connection of their own, so
            # a burst of enqueues holding every pooled connection never delays the next claim.
            claims_pool = await opened(1)
        except BaseException:
            pool.terminate()
            raise
        listener = WorkListener(dsn, clock, token, limits=limits, application_name=session)
        presence = Presence(session, presence_grace_seconds)
        return cls(Database(pool, limits), Database(claims_pool, limits), node, listener, presence, fair=fair)

    def on_work(self, wake: Callable[[], None]) -> None:
        self._listener.on_work(wake)

    def on_cancel(self, check: Callable[[], None]) -> None:
        self._listener.on_cancel(check)

    def on_quick_work(self, wake: Callable[[], None]) -> None:
        self._listener.on_quick_work(wake)

    @property
    def listener(self) -> WorkListener:
        return self._listener

    @property
    def session(self) -> str:
        """The name every connection of this store carries (presence.py)."""
        return self._presence.session

    async def close(self) -> None:
        """Finish the round trips already submitted, then close every connection, each step
        bounded (a silent network cannot hold a shutdown)."""
        if self._closed:
            return
        self._closed = True
        await self._listener.close()
        await self._claims.close()
        await self._enqueues.close()
        await self._notifier.close()
        await self._claims_db.close()
        await self._db.close()


async def _migrate(dsn: str, migrations: Sequence[Migration], limits: SessionLimits) -> None:
    connection = await connect(dsn, limits)
    try:
        with as_store_errors(f"cannot prepare the PostgreSQL database {masked(dsn)}"):
            await migrate(connection, migrations)
    finally:
        connection.terminate()
